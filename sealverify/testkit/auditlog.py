"""Mint seal-host stderr audit logs: payload lines, chain records, and the host's other lines."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["GENESIS", "MintedLog", "chain_log", "mint_log", "step"]

# seal-host@099be66 rust/src/receipt.rs `genesis` and `commit`, written out here from the
# documented formula rather than taken from sealverify's verifier (docs/chain.md).
GENESIS = hashlib.sha256(b"seal-verifiable-record/genesis/v1").hexdigest()
_COMMITMENT = "sha256(prevHead || 0x1f || payload)"


def step(prev_head: str, payload: bytes) -> str:
    """The next head: ``sha256(prev_head as hex text || 0x1f || payload)``, lowercase hex."""
    return hashlib.sha256(prev_head.encode("ascii") + b"\x1f" + payload).hexdigest()


@dataclass(frozen=True, slots=True)
class MintedLog:
    """A minted log's bytes, its final head and how many records it holds."""

    data: bytes
    head: str
    count: int


def mint_log(
    payloads: Sequence[bytes], session: str = "sealverify-demo-session", start: str = GENESIS
) -> MintedLog:
    """One host process's stderr: for each decision its payload line, then its chain record.

    After each record comes the ``authorization_decision`` line the host prints (not
    chained), as seal-host's ``emit_audit`` does. Member order is ``ReceiptRecord::to_json_line``.
    """
    lines: list[bytes] = []
    head = start
    for entry, payload in enumerate(payloads):
        new = step(head, payload)
        record = {
            "seal_record": "v1",
            "entry": entry,
            "commitment": _COMMITMENT,
            "session": session,
            "prev_head": head,
            "prior_session": None,
            "head": new,
        }
        lines.append(payload)
        lines.append(json.dumps(record, separators=(",", ":")).encode())
        decision = {"authorization_decision": f"receipts/receipt-{entry:020d}.json"}
        lines.append(json.dumps(decision, separators=(",", ":")).encode())
        head = new
    return MintedLog(b"".join(line + b"\n" for line in lines), head, len(payloads))


def chain_log(payloads: Sequence[bytes]) -> bytes:
    """The bytes of :func:`mint_log` from genesis."""
    return mint_log(payloads).data
