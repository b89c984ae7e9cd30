"""The host's stderr audit chain, judged record by record as it lands (``verify --chain``).

seal-host prints each audit payload line and then its chain record (seal-host@099be66
``rust/src/main.rs`` ``emit_audit``), so the last line read may be a payload whose record is
not written yet: it is held back until the next line arrives. Each batch of new lines is
walked by :func:`~sealverify._internal.history.chain.verify_logs` together with the last record
judged and its payload (carried in the checkpoint), from that record's ``prev_head``: so the first
new record is held to the record before it exactly as in a batch walk of the whole log, and
findings about the carried lines, reported before, are not repeated. A first new record
that does not link from the checkpointed head is ``follow.chain-diverged``: the chain the
host writes now does not extend the one already verified.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sealverify._internal.follow.tail import Line
from sealverify._internal.history.chain import parse_log, verify_logs
from sealverify._internal.history.chain_records import GENESIS, ChainRecord
from sealverify._internal.results.model import Check, Status, fail

_FAIL, _NOT_EVALUATED = Status.FAIL, Status.NOT_EVALUATED

__all__ = ["ChainFollow"]

_SOURCE = "\x00chunk"  # the name the walk gives the batch's lines, mapped back to their own
# Checks that describe a whole log, not a live one: the walk's pass, its count, its open tail.
_WHOLE_LOG = frozenset({"chain.links", "chain.records", "chain.tail-unanchored"})


def _looks_like_record(data: bytes) -> bool:
    return data.lstrip().startswith(b"{") and b'"seal_record"' in data


def _line_value(line: Line) -> list[Any]:
    return [line.source, line.number, line.offset, base64.b64encode(line.data).decode()]


def _line_of(value: Any) -> Line:
    if not (
        isinstance(value, list)
        and len(value) == 4
        and isinstance(value[0], str)
        and all(isinstance(v, int) for v in value[1:3])
        and isinstance(value[3], str)
    ):
        raise ValueError("a carried chain line is not [source, number, offset, base64]")
    return Line(value[0], value[1], value[2], base64.b64decode(value[3], validate=True))


@dataclass(slots=True)
class ChainFollow:
    """One followed chain: the last record's head and the lines carried to the next batch."""

    head: str | None = None  # of the last record judged
    carried: list[Line] = field(default_factory=list)  # its payload line and its record line
    pending: list[Line] = field(default_factory=list)  # the last line, held back

    def to_value(self) -> dict[str, Any]:
        return {
            "head": self.head,
            "carried": [_line_value(x) for x in self.carried],
            "pending": [_line_value(x) for x in self.pending],
        }

    @staticmethod
    def from_value(value: Any) -> ChainFollow:
        """The checkpointed state; ValueError when it is not the shape :meth:`to_value` writes."""
        if not isinstance(value, dict) or set(value) != {"head", "carried", "pending"}:
            raise ValueError("the chain checkpoint is not {head, carried, pending}")
        head = value["head"]
        if head is not None and not isinstance(head, str):
            raise ValueError("the chain checkpoint's head is not a string")
        if not isinstance(value["carried"], list) or not isinstance(value["pending"], list):
            raise ValueError("the chain checkpoint's lines are not lists")
        return ChainFollow(
            head, [_line_of(v) for v in value["carried"]], [_line_of(v) for v in value["pending"]]
        )

    def judge(self, lines: list[Line], final: bool = False) -> list[Check]:
        """Findings of the new ``lines`` (``final``: the input ends here, hold nothing back)."""
        if not lines:
            return []
        chunk = [*self.carried, *self.pending, *lines]
        hold = not final and not _looks_like_record(chunk[-1].data)
        walked = chunk[:-1] if hold else chunk
        self.pending = chunk[-1:] if hold else []
        if len(walked) <= len(self.carried):
            return []
        data = b"".join(x.data + b"\n" for x in walked)
        start = self._start_head()
        result = verify_logs([(_SOURCE, data)], start_head=start)
        findings = [
            found for check in result.checks if (found := self._placed(check, walked)) is not None
        ]
        findings.extend(self._diverged(result.records, walked))
        self._carry(result.records, walked)
        return findings

    def _start_head(self) -> str | None:
        """The head the walk starts from: the carried record's ``prev_head``, if one is."""
        if not self.carried:
            return self.head
        data = b"".join(x.data + b"\n" for x in self.carried)
        records = parse_log([(_SOURCE, data)])[0]
        return records[-1].prev_head if records else self.head

    def _placed(self, check: Check, walked: list[Line]) -> Check | None:
        """``check`` located at its own line, or None for what is not reported live."""
        if check.status not in (_FAIL, _NOT_EVALUATED) or check.id in _WHOLE_LOG:
            return None
        prefix = _SOURCE + ":"
        if not check.location.startswith(prefix):
            return check
        index = int(check.location[len(prefix) :]) - 1
        if index < len(self.carried):
            return None  # about the carried lines: reported when they were new
        line = walked[index]
        return Check(
            check.id, check.status, check.reason, f"{line.source}:{line.number}", check.data
        )

    def _diverged(self, records: Sequence[ChainRecord], walked: list[Line]) -> list[Check]:
        new = [r for r in records if r.line.number > len(self.carried)]
        if not new or self.head is None or new[0].prev_head == self.head:
            return []
        first = new[0]
        if first.prev_head == GENESIS and first.entry == 0:
            return []  # a restart from genesis: chain.session-link names it
        line = walked[first.line.number - 1]
        return [
            fail(
                "follow.chain-diverged",
                f"the record links from {first.prev_head}, not from the head {self.head} "
                "verified before it: the chain written now does not extend the verified one",
                f"{line.source}:{line.number}",
            )
        ]

    def _carry(self, records: Sequence[ChainRecord], walked: list[Line]) -> None:
        if not records:
            return
        last = records[-1]
        if last.line.number <= len(self.carried):
            return
        self.head = last.head
        kept = (
            [last.line.number] if last.payload is None else [last.payload.number, last.line.number]
        )
        self.carried = [walked[n - 1] for n in kept]
