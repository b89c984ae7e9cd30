"""Follow events: one JSON line per receipt or finding, the ``--format jsonl`` line plus where.

A receipt's event is its ``jsonl`` subject line (``"type":"subject"``, name, outcome, checks,
facts) and a finding's is its ``jsonl`` finding line (``"type":"finding"``, id, status,
reason, location), each with two more members: ``time`` (when the event was made, RFC 3339
UTC) and ``input`` (the followed path, and the byte offset and line, or the file, it was
read from). Events are written before the batch that made them is committed, so after a
kill the events of the uncommitted batch are written again: delivery is at least once, the
store's record exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from sealverify._internal import fastpath
from sealverify._internal.reports.formats.jsonl import finding_line, subject_line
from sealverify._internal.results.model import Check, Status, Subject
from sealverify._internal.results.outcomes import Outcome

_FAIL = Status.FAIL

__all__ = ["Event", "finding_event", "stamp", "subject_event"]


@dataclass(frozen=True, slots=True)
class Event:
    """One event: its JSON line, whether it is a failure, and what metrics count it by."""

    line: bytes  # ends in a line feed
    failed: bool
    outcome: str | None  # a receipt's outcome
    finding: str | None  # a finding's check id


@fastpath.cache(maxsize=1)  # every event of a step carries the step's one time
def stamp(when: float) -> str:
    """``when`` (seconds since the epoch) as RFC 3339 UTC with milliseconds."""
    moment = datetime.fromtimestamp(when, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _with(line: str, when: float, where: dict[str, Any]) -> bytes:
    """The jsonl line (one object, ending in ``}\n``) with ``time`` and ``input`` added last."""
    assert line.endswith("}\n")
    added = orjson.dumps({"time": stamp(when), "input": where})
    return line[:-2].encode() + b"," + added[1:] + b"\n"


def subject_event(subject: Subject, when: float, where: dict[str, Any]) -> Event:
    """A receipt's event."""
    line = _with(subject_line(subject), when, where)
    return Event(line, subject.outcome == Outcome.FAIL, subject.outcome, None)


def finding_event(check: Check, when: float, where: dict[str, Any]) -> Event:
    """A finding's event (a failed one is a failure)."""
    line = _with(finding_line(check), when, where)
    return Event(line, check.status == _FAIL, None, check.id)
