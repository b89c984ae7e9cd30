"""Mint seal-host stderr audit logs: payload lines, chain records, and the host's other lines."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "GENESIS",
    "MintedLog",
    "audit_payload",
    "chain_lines",
    "chain_log",
    "demo_log",
    "mint_log",
    "record_line",
    "step",
]

# seal-host@099be66 rust/src/receipt.rs `genesis` and `commit`, written out here from the
# documented formula rather than taken from sealverify's verifier (docs/chain.md), so the
# chain tests never check the verifier against its own code.
GENESIS = hashlib.sha256(b"seal-verifiable-record/genesis/v1").hexdigest()
_COMMITMENT = "sha256(prevHead || 0x1f || payload)"


def step(prev_head: str, payload: bytes) -> str:
    """The next head: ``sha256(prev_head as hex text || 0x1f || payload)``, lowercase hex."""
    return hashlib.sha256(prev_head.encode("ascii") + b"\x1f" + payload).hexdigest()


def audit_payload(index: int, tool: str = "shell_exec", verdict: str = "allow") -> bytes:
    """A Lean audit line as the kernel prints it before each record (distinct per ``index``)."""
    sha = f"{index:064x}"
    return (
        b'{"certs":[],"epoch":1,"request_sha256":"'
        + sha.encode()
        + b'","tool":'
        + json.dumps(tool).encode()
        + b',"verdict":'
        + json.dumps(verdict).encode()
        + b"}"
    )


def record_line(entry: int, session: str, prev: str, head: str, prior: str | None) -> bytes:
    """One ``seal_record`` v1 chain record line (no line end)."""
    # Member order of seal-host@099be66 rust/src/receipt.rs `ReceiptRecord::to_json_line`.
    return json.dumps(
        {
            "seal_record": "v1",
            "entry": entry,
            "commitment": _COMMITMENT,
            "session": session,
            "prev_head": prev,
            "prior_session": prior,
            "head": head,
        },
        separators=(",", ":"),
    ).encode()


def chain_lines(
    payloads: Sequence[bytes],
    *,
    session: str = "s1",
    start: str = GENESIS,
    prior: str | None = None,
    receipts_dir: str = "",
) -> tuple[list[bytes], list[str]]:
    """One host process's stderr lines (payload, record, an unchained line per entry) and heads.

    The first record links from ``start`` (genesis by default) with ``prior`` as its
    ``prior_session``; each record commits to the payload line printed just before it. After
    each record comes the ``authorization_decision`` line the host prints (not chained), as
    seal-host's ``emit_audit`` does, naming ``<receipts_dir>receipt-<entry>.json``.
    """
    lines: list[bytes] = []
    heads: list[str] = []
    head = start
    for entry, payload in enumerate(payloads):
        new = step(head, payload)
        decision = {"authorization_decision": f"{receipts_dir}receipt-{entry:020d}.json"}
        lines += [
            payload,
            record_line(entry, session, head, new, prior if entry == 0 else None),
            json.dumps(decision, separators=(",", ":")).encode(),
        ]
        heads.append(new)
        head = new
    return lines, heads


@dataclass(frozen=True, slots=True)
class MintedLog:
    """A minted log's bytes, its final head and how many records it holds."""

    data: bytes
    head: str
    count: int


def mint_log(
    payloads: Sequence[bytes], session: str = "sealverify-demo-session", start: str = GENESIS
) -> MintedLog:
    """One host process's stderr from ``start``, its receipts named under ``receipts/``."""
    lines, heads = chain_lines(payloads, session=session, start=start, receipts_dir="receipts/")
    return MintedLog(
        b"".join(line + b"\n" for line in lines), heads[-1] if heads else start, len(payloads)
    )


def chain_log(payloads: Sequence[bytes]) -> bytes:
    """The bytes of :func:`mint_log` from genesis."""
    return mint_log(payloads).data


def demo_log() -> tuple[bytes, str]:
    """A two-session chain with one mutated payload, and the head that anchors session one.

    Twelve records of session ``s1`` from genesis, then four of ``s2`` linked to it; entry 5's
    payload is edited after the host chained it (a mutation break), and the returned anchor
    is the last head of ``s1``, so ``s2`` is an unanchored tail under ``--expect-head``.
    """
    first, heads = chain_lines([audit_payload(i) for i in range(12)])
    second, _ = chain_lines(
        [audit_payload(100 + i, "search_notes") for i in range(4)],
        session="s2",
        start=heads[-1],
        prior="s1",
    )
    lines = first + second
    lines[15] = lines[15].replace(b'"verdict":"allow"', b'"verdict":"deny"')  # entry 5's payload
    return b"".join(line + b"\n" for line in lines), heads[-1]
