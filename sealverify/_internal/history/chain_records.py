"""The audit chain's vocabulary: genesis, one commitment step, a record, its line, an anchor.

seal-host@099be66 ``rust/src/receipt.rs`` (``genesis``, ``commit``,
``ReceiptRecord::to_json_line``); :mod:`sealverify._internal.history.chain` reads and judges them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "COMMITMENT",
    "GENESIS",
    "GENESIS_PREIMAGE",
    "Anchor",
    "BreakKind",
    "ChainRecord",
    "LogLine",
    "commit",
    "genesis",
]

GENESIS_PREIMAGE = b"seal-verifiable-record/genesis/v1"
COMMITMENT = "sha256(prevHead || 0x1f || payload)"
BreakKind = Literal["mutation", "insertion", "reordering", "deletion", "unknown"]


def genesis() -> str:
    """The genesis head: lowercase hex ``sha256("seal-verifiable-record/genesis/v1")``."""
    return hashlib.sha256(GENESIS_PREIMAGE).hexdigest()


GENESIS = genesis()


def commit(prev_head: str, payload: bytes) -> str:
    """One chain step: ``sha256(prev_head.encode() || 0x1f || payload)`` as lowercase hex.

    The previous head enters as its 64-character hex text, not as raw digest bytes
    (seal-host ``rust/src/receipt.rs`` ``commit``).
    """
    return hashlib.sha256(prev_head.encode("ascii") + b"\x1f" + payload).hexdigest()


@dataclass(frozen=True, slots=True)
class LogLine:
    """One stderr line as read: which file, its 1-based line number, and its bytes (no LF)."""

    source: str
    number: int
    data: bytes

    @property
    def location(self) -> str:
        return f"{self.source}:{self.number}"


@dataclass(frozen=True, slots=True)
class ChainRecord:
    """A well-formed ``seal_record`` v1 line and the payload line printed just before it."""

    line: LogLine
    entry: int
    session: str
    prev_head: str
    prior_session: str | None
    head: str
    payload: LogLine | None

    @property
    def location(self) -> str:
        return self.line.location

    @property
    def recomputed(self) -> str | None:
        """The head recomputed from ``prev_head`` and the payload, or None without a payload."""
        return None if self.payload is None else commit(self.prev_head, self.payload.data)


@dataclass(frozen=True, slots=True)
class Anchor:
    """What truncation is judged against: an expected final head, a count, a host state file."""

    head: str | None = None
    count: int | None = None
    state_session: str | None = None
    state_head: str | None = None
    state_location: str = ".seal-audit-head.state"

    @property
    def present(self) -> bool:
        return self.head is not None or self.count is not None or self.state_head is not None
