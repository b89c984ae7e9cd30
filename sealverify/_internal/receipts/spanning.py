"""Sessions whose receipts sit in more than one input of a run, re-derived across all of them.

Hosts rotate their logs, and auditors pass a log with loose files: one run is one body of
evidence. A session's receipts in one log are re-derived in log order and the separate receipt
files in the order of the positions they claim (``receipts/sessions.py``); a session whose
receipts sit in two inputs or more (two logs, a log and files) is re-derived across them all in
the order of the positions its receipts claim (a blocked call before the executed one at one
position, then input order, then line order), so two receipts claiming one position are a
contradiction wherever they sit, and a gap or a missing first call leaves the later calls
not evaluated, named. A receipt of such a session that claims no position (a temporal deny)
cannot be placed and is judged alone, as among files.

What is held: the run's :class:`~sealverify._internal.receipts.session_index.SessionIndex` (per
session its name and the input it was first seen in; per operation a 20-byte record, on disk beyond
a bound); per receipt of a
spanning session that claims a position, one :class:`Place`; per receipt re-derived, its
result (as for one log).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from sealverify._internal.kernel.receipt_inputs import carried_frames
from sealverify._internal.kernel.session_pass import session_of
from sealverify._internal.receipts.sessions import (
    ORDER_OF_POSITIONS,
    Contested,
    FileFact,
    Reading,
    Room,
    SessionPasses,
    SessionRederivation,
    feed_file,
    frames_weight,
    glance,
    strict_document,
)

__all__ = ["Place", "session_rederivations_spanning"]


class Place(NamedTuple):
    """Where a receipt of a spanning session sits, its fields in the order it is re-derived in."""

    position: int
    executed: bool  # a blocked call before the executed one at the same position
    source: int  # the input's place among the run's inputs
    line: int  # the line of a log (1-based); 0 for a file
    name: str  # the file, or the log
    start: int  # the line's bytes in the log, [start, end); 0, 0 for a file
    end: int


def session_rederivations_spanning(
    spanning: frozenset[str],
    files: Sequence[tuple[int, FileFact]],
    logs: Iterable[tuple[int, str, Iterable[tuple[int, bytes]]]],
    read: Callable[[str], bytes | None],
    read_range: Callable[[str, int, int], bytes],
    raw_lines: Mapping[str, bytes],
    contested: Contested | None = None,
    reading: Reading | None = None,
    room: Room | None = None,
) -> tuple[dict[str, SessionRederivation], dict[str, dict[int, SessionRederivation]]]:
    """Re-derivations of the spanning sessions' receipts: by file name, and by log and line.

    ``files`` are the separate files' facts with each file's place among the inputs; ``logs``
    each log's place, name and lines (each with its byte offset in the log). A file is read
    again with ``read`` (its kept reading given by ``reading``, as :func:`feed_file` takes
    it), a log line with ``read_range``, in the session's order; each result is bound to the
    bytes it was made of (:class:`SessionRederivation`). The frames decoded of a receipt
    read again travel with its result while ``room`` grants what they hold; beyond, its
    task decodes them again.
    """
    places: dict[str, list[Place]] = {}
    for source, fact in files:
        claim = fact.claim
        if fact.session in spanning and claim is not None and claim.position is not None:
            place = Place(claim.position, claim.executed, source, 0, fact.name, 0, 0)
            places.setdefault(fact.session, []).append(place)
    for source, name, lines in logs:
        for number, (offset, line) in enumerate(lines, start=1):
            item = glance(line)
            if item is None or item.session not in spanning:
                continue
            claim = item.claim
            if claim is not None and claim.position is not None:
                place = Place(
                    claim.position, claim.executed, source, number, name, offset, offset + len(line)
                )
                places.setdefault(item.session, []).append(place)
    passes = SessionPasses(raw_lines, ORDER_OF_POSITIONS, contested)
    by_file: dict[str, SessionRederivation] = {}
    by_log: dict[str, dict[int, SessionRederivation]] = {}
    for members in places.values():
        for place in sorted(members):
            if not place.line:
                if (bound := feed_file(passes, place.name, read, reading, room)) is not None:
                    by_file[place.name] = bound
                continue
            data = read_range(place.name, place.start, place.end)
            item = glance(data)
            doc = strict_document(data) if item is not None else None
            if item is None or doc is None or session_of(doc) != item.session:
                continue  # changed since, not strict JSON: the receipt is judged on its own
            where = f"{place.name} line {place.line}"
            frames = carried_frames(doc)
            result = passes.feed(doc, item, where, frames)
            kept = frames if room is not None and room(frames_weight(frames)) else None
            by_log.setdefault(place.name, {})[place.line] = SessionRederivation.of(
                data, result, kept
            )
    return by_file, by_log
