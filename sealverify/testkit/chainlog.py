"""Minting seal-host-shaped stderr audit chains (payload line, then its chain record)."""

from __future__ import annotations

import json

from sealverify.history.chain import GENESIS, commit

__all__ = ["audit_payload", "chain_lines", "demo_log", "record_line"]


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
            "commitment": "sha256(prevHead || 0x1f || payload)",
            "session": session,
            "prev_head": prev,
            "prior_session": prior,
            "head": head,
        },
        separators=(",", ":"),
    ).encode()


def chain_lines(
    payloads: list[bytes],
    *,
    session: str = "s1",
    start: str = GENESIS,
    prior: str | None = None,
) -> tuple[list[bytes], list[str]]:
    """One host process's stderr lines (payload, record, an unchained line per entry) and heads.

    The first record links from ``start`` (genesis by default) with ``prior`` as its
    ``prior_session``; each record commits to the payload line printed just before it.
    """
    lines: list[bytes] = []
    heads: list[str] = []
    head = start
    for entry, payload in enumerate(payloads):
        new = commit(head, payload)
        lines += [
            payload,
            record_line(entry, session, head, new, prior if entry == 0 else None),
            b'{"authorization_decision":"receipt-%020d.json"}' % entry,
        ]
        heads.append(new)
        head = new
    return lines, heads


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
