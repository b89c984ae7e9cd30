"""Walking the audit chain one record at a time: commitments, links, breaks, the anchors.

:class:`ChainWalk` takes the records in log order (a held sequence, or as a log is read) and
keeps what judging the next one needs: the record before, the sessions seen, the anchor heads
found. Breaks are classified against an index of every head (a reordering names a later
record), built only at the first break: an intact log is judged holding one record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from sealverify._internal.history.chain_heads import Heads
from sealverify._internal.history.chain_records import GENESIS, Anchor, BreakKind, ChainRecord
from sealverify._internal.history.chain_views import RecordViews
from sealverify._internal.results.model import Check, Compared, Status, fail, info, passed, unpinned
from sealverify._internal.results.repeats import Findings

_FAIL, _NOT_EVALUATED = Status.FAIL, Status.NOT_EVALUATED

__all__ = ["ChainWalk"]


def _classify(
    rec: ChainRecord, prev: ChainRecord, i: int, expected_entry: int | None, heads: Heads
) -> tuple[BreakKind, str]:
    """Name the likeliest cause of a link break at position ``i`` (prev_head != previous head)."""
    later, later_at = heads.last(rec.prev_head)
    if later > i:
        return "reordering", (
            f"it links to the head of a record that appears later "
            f"({later_at}); records are out of order"
        )
    prev_recomputed = prev.recomputed
    if rec.prev_head == prev_recomputed:
        return "mutation", (
            f"it links to the head the previous record's payload commits to, "
            f"so the previous record's head field ({prev.location}) was "
            "rewritten"
        )
    earlier, earlier_at = heads.last_before(rec.prev_head, i)
    # At position 1 the previous record is the first: a link to its own start is an insertion.
    if earlier >= 0 or (i == 1 and rec.prev_head == prev.prev_head):
        skipped = i - 1 - earlier
        origin = earlier_at if earlier >= 0 else "the start of the log"
        return "insertion", (
            f"it links to the head of {origin}, so the {skipped} record(s) after that were inserted"
        )
    if expected_entry is not None and rec.entry > expected_entry:
        missing = rec.entry - expected_entry
        return "deletion", (
            f"entry {rec.entry} follows entry {prev.entry}: {missing} record(s) were deleted"
        )
    if prev_recomputed == prev.head:
        return "mutation", (
            f"the previous record ({prev.location}) has a head its payload "
            "commits to, but not the one this record links from: that payload "
            "was rewritten and re-sealed"
        )
    return "unknown", "no known tampering pattern explains the break"


_EXCERPT = 160  # characters of a payload line a break's reason quotes


def _excerpt(rec: ChainRecord) -> str:
    """The start of ``rec``'s payload line, as text (a report shows its controls escaped)."""
    assert rec.payload is not None
    text = rec.payload.data[: _EXCERPT * 4].decode("utf-8", errors="replace")
    return text[:_EXCERPT] + ("…" if len(text) > _EXCERPT else "")


def _payload_break(rec: ChainRecord, recomputed: str | None) -> dict[str, Any]:
    """The break of a record whose payload line is missing or does not commit to its head."""
    if rec.payload is None:
        return {
            "entry": rec.entry,
            "location": rec.location,
            "kind": "deletion",
            "reason": "no payload line precedes this chain record",
        }
    return {
        "entry": rec.entry,
        "location": rec.payload.location,
        "kind": "mutation",
        # The line that broke leads: a person compares it with the host's copy; the two
        # heads stay whole in "compared" (the JSON report, the html page).
        "reason": f"this payload line does not commit to the recorded head: {_excerpt(rec)} "
        f"(head recomputed {str(recomputed)[:16]}…, recorded {rec.head[:16]}…)",
        "compared": Compared(str(recomputed), rec.head, "commit(prev_head, payload)", "head"),
        "heads": {"recomputed": recomputed, "recorded": rec.head},  # whole, in the data
    }


class ChainWalk:
    """One stream of records judged as it comes: :meth:`add` each, then :meth:`finish`.

    ``heads`` builds the index of every record's head (:class:`~.chain_heads.Heads`) when a
    break needs it (the records after this one included). ``keep`` caps each kind of finding
    (:class:`~sealverify._internal.results.repeats.Findings`; None keeps all). ``recorded`` is a
    head an earlier run recorded: the walk starts from it when the first record links from it and no
    ``start_head`` is given. ``display`` keeps the per-record view the html report draws.
    """

    def __init__(
        self,
        anchor: Anchor,
        start_head: str | None,
        heads: Callable[[], Heads],
        *,
        keep: int | None = None,
        recorded: str | None = None,
        display: bool = False,
    ) -> None:
        self.anchor, self.start_head, self.recorded = anchor, start_head, recorded
        self._heads_of = heads
        self._heads: Heads | None = None  # built at the first break
        self.count = 0
        self.first: ChainRecord | None = None
        self.prev: ChainRecord | None = None
        self.sessions: dict[str, None] = {}  # in order of first appearance
        self.checks = self._bucket(keep)
        self.breaks = self._bucket(keep)
        self.first_break: dict[str, Any] | None = None
        self.unanchored_start = False
        self._displaced_until = -1  # after a reordering, the breaks it causes are not new
        wanted = (anchor.head, anchor.state_head, recorded)
        self.found: dict[str, tuple[int, str]] = {h: (-1, "") for h in wanted if h is not None}
        self.owner: str | None = None  # the session of the first record with the state head
        self.display: RecordViews | None = RecordViews() if display else None
        self.anchored_through: int | None = None  # the last record an anchor is at

    @staticmethod
    def _bucket(keep: int | None) -> list[Check]:
        return [] if keep is None else Findings(keep=keep)

    def add(self, rec: ChainRecord) -> None:
        """Judge the next record."""
        i = self.count
        self.count += 1
        prev, self.prev = self.prev, rec
        self.sessions.setdefault(rec.session)
        self._note(rec, i)
        recomputed = rec.recomputed
        if self.display is not None:
            self._draw(rec, prev, recomputed)
        if rec.payload is None or recomputed != rec.head:
            self._break(_payload_break(rec, recomputed))
        if prev is None:
            self.first = rec
            self.checks.extend(self._start_checks(rec))
            return
        new_process = rec.entry == 0 and rec.session != prev.session
        if new_process and rec.prior_session is None and rec.prev_head == GENESIS:
            self.checks.append(
                fail(
                    "chain.session-link",
                    f"session {rec.session!r} restarted the chain from genesis (the "
                    "host's .seal-audit-head.state was missing): everything before "
                    "it is unlinked",
                    rec.location,
                )
            )
        elif rec.prev_head != prev.head:
            self._link_break(rec, prev, i, new_process)
        else:
            self._sequence_findings(rec, prev, new_process)

    def _note(self, rec: ChainRecord, i: int) -> None:
        """Where the anchor and recorded heads occur: the last record with each."""
        if rec.head in self.found:
            self.found[rec.head] = (i, rec.location)
            if rec.head == self.anchor.state_head and self.owner is None:
                self.owner = rec.session

    def _draw(self, rec: ChainRecord, prev: ChainRecord | None, recomputed: str | None) -> None:
        assert self.display is not None
        anchor, index = self.anchor, self.count - 1
        anchors = []
        if anchor.head is not None and rec.head == anchor.head:
            anchors.append("--expect-head")
        if anchor.state_head is not None and rec.head == anchor.state_head:
            anchors.append("state file")
        if anchor.count is not None and anchor.count == index + 1:
            anchors.append("--expect-count")
        if anchors:
            self.anchored_through = index
        self.display.append(
            {
                "entry": rec.entry,
                "session": rec.session,
                "location": rec.location,
                "payload": rec.payload.location if rec.payload is not None else None,
                "prev_head": rec.prev_head,
                "head": rec.head,
                "prior_session": rec.prior_session,
                "commits": recomputed == rec.head,
                "links": prev is None or rec.prev_head == prev.head,
                "anchors": anchors,
            }
        )

    def _break(self, item: dict[str, Any]) -> None:
        compared = item.pop("compared", None)
        if self.first_break is None:
            self.first_break = item
        found = fail(
            "chain.break",
            f"entry {item['entry']}: {item['kind']}: {item['reason']}",
            item["location"],
            kind=item["kind"],
            entry=item["entry"],
            **({"heads": item["heads"]} if "heads" in item else {}),
        )
        self.breaks.append(replace(found, compared=compared))

    def _link_break(self, rec: ChainRecord, prev: ChainRecord, i: int, new_process: bool) -> None:
        if i <= self._displaced_until:
            return
        if self._heads is None:
            self._heads = self._heads_of()
        heads = self._heads
        kind, why = _classify(rec, prev, i, None if new_process else prev.entry + 1, heads)
        if kind == "reordering":
            self._displaced_until = max(heads.last(rec.prev_head)[0], i) + 1
        self._break(
            {
                "entry": rec.entry,
                "location": rec.location,
                "kind": kind,
                "reason": f"prev_head does not equal the previous record's head; {why}",
            }
        )

    def _sequence_findings(self, rec: ChainRecord, prev: ChainRecord, new_process: bool) -> None:
        """The unauthenticated metadata of a linked record: session start, entry and session."""
        if new_process:
            if rec.prior_session != prev.session:
                self.checks.append(
                    fail(
                        "chain.session-link",
                        f"session {rec.session!r} starts with prior_session "
                        f"{rec.prior_session!r}, but the previous session was "
                        f"{prev.session!r}",
                        rec.location,
                    )
                )
        elif rec.session != prev.session or rec.entry != prev.entry + 1:
            self._break(
                {
                    "entry": rec.entry,
                    "location": rec.location,
                    "kind": "unknown",
                    "reason": f"entry/session metadata out of sequence (after entry "
                    f"{prev.entry} of {prev.session!r} comes entry {rec.entry} "
                    f"of {rec.session!r}) although the heads link",
                }
            )
        elif rec.prior_session is not None:
            self.checks.append(
                fail(
                    "chain.session-link",
                    "prior_session is set on a record that is not a session's first",
                    rec.location,
                )
            )

    def _start_checks(self, rec: ChainRecord) -> list[Check]:
        start_head = self.start_head
        if start_head is None and self.recorded is not None and rec.prev_head == self.recorded:
            # The log continues from the head an earlier run recorded: its verified start.
            start_head = self.recorded
        checks = _start_checks(rec, start_head)
        self.unanchored_start = checks[0].status == _NOT_EVALUATED
        return checks

    def finish(self) -> tuple[list[Check], list[Check], list[Check], bool]:
        """The walk's findings, its breaks, its closing checks (links, anchors); tail unanchored."""
        closing: list[Check] = []
        if self.count and not self.breaks:
            closing.append(
                passed(
                    "chain.links",
                    f"all {self.count} record(s) commit to their payloads "
                    "and link to the previous head",
                )
            )
        anchored, unanchored = self._anchor_checks()
        closing.extend(anchored)
        return self.checks, self.breaks, closing, unanchored

    def _anchor_checks(self) -> tuple[list[Check], bool]:
        """The records judged against the anchor; and whether the tail is left unanchored."""
        anchor = self.anchor
        checks = _count_checks(self.count, anchor)
        checks.extend(self._head_checks())
        owner = self.owner
        if anchor.state_session is not None and owner not in (None, anchor.state_session):
            checks.append(
                fail(
                    "chain.anchor-state",
                    f"the state file names session {anchor.state_session!r}, but the "
                    f"record with its head belongs to {owner!r}",
                    anchor.state_location,
                )
            )
        if not anchor.present:
            checks.append(
                unpinned(
                    "chain.tail-unanchored",
                    "no anchor given (--expect-head, --expect-count or --state-file): a log cut "
                    "short after its last record cannot be told from a complete one",
                )
            )
            return checks, True
        final = self.prev.head if self.prev is not None else GENESIS
        covered = anchor.count == self.count or final in (anchor.head, anchor.state_head)
        if not covered and not any(c.status == _FAIL for c in checks):
            # Every anchor names an earlier head: the records after it could have been appended
            # by anyone, and a cut among them could not be told either.
            checks.append(
                unpinned(
                    "chain.tail-unanchored",
                    "the records after the last anchored head are an unanchored tail: no "
                    "anchor covers the final record (pass its head with --expect-head, or "
                    "--expect-count)",
                )
            )
            return checks, True
        return checks, False

    def _head_checks(self) -> list[Check]:
        """The final head against ``--expect-head`` and the state file's head."""
        checks: list[Check] = []
        anchor, last = self.anchor, self.count - 1
        for label, head, location in (
            ("--expect-head", anchor.head, ""),
            ("state file head", anchor.state_head, anchor.state_location),
        ):
            if head is None:
                continue
            check_id = "chain.anchor-head" if label == "--expect-head" else "chain.anchor-state"
            at, where = self.found[head]
            if self.prev is not None and self.prev.head == head:
                checks.append(passed(check_id, f"the final head equals the {label}", location))
            elif at >= 0:
                checks.append(
                    info(
                        check_id,
                        f"the {label} is the head of {where}; the {last - at} record(s) "
                        "after it are not covered by this anchor",
                        location,
                    )
                )
            elif head == GENESIS and not self.count:
                checks.append(
                    passed(check_id, f"the {label} is genesis and the log is empty", location)
                )
            else:
                checks.append(
                    fail(
                        "chain.truncated",
                        f"no record in the log has the {label} {head}: "
                        "the log was truncated or is from another chain",
                        location,
                        kind="truncation",
                    )
                )
        return checks


def _start_checks(rec: ChainRecord, start_head: str | None) -> list[Check]:
    if start_head is not None:
        if rec.prev_head == start_head:
            return [
                passed(
                    "chain.start",
                    "the first record links to the head recorded before",
                    rec.location,
                )
            ]
        return [
            fail(
                "chain.start",
                f"the first record links from {rec.prev_head}, not from the "
                f"head recorded before ({start_head})",
                rec.location,
            )
        ]
    if rec.entry == 0 and rec.prior_session is None:
        if rec.prev_head == GENESIS:
            return [passed("chain.start", "the log starts at genesis", rec.location)]
        return [
            fail(
                "chain.start",
                f"the first record has no prior session but does not link from genesis {GENESIS}",
                rec.location,
            )
        ]
    if rec.entry == 0:
        return [
            unpinned(
                "chain.start",
                f"the log starts a session linked to prior session "
                f"{rec.prior_session!r} at head {rec.prev_head}; that earlier "
                "history is not given, so its start is unanchored (give the earlier logs, "
                "--start-head with the head it continues from, or --state)",
                rec.location,
            )
        ]
    return [
        unpinned(
            "chain.start",
            f"the log starts mid-session at entry {rec.entry}; the {rec.entry} "
            "earlier record(s) of that session are not given, so its start is unanchored "
            "(give them, --start-head with the head it continues from, or --state)",
            rec.location,
        )
    ]


def _count_checks(count: int, anchor: Anchor) -> list[Check]:
    """The number of records against ``--expect-count``."""
    if anchor.count is None:
        return []
    if count == anchor.count:
        return [
            passed("chain.anchor-count", f"the log holds the expected {anchor.count} record(s)")
        ]
    if count < anchor.count:
        return [
            fail(
                "chain.truncated",
                f"the log holds {count} record(s), "
                f"{anchor.count} expected: "
                f"{anchor.count - count} missing",
                kind="truncation",
            )
        ]
    return [
        fail(
            "chain.anchor-count",
            f"the log holds {count} record(s), more than the {anchor.count} expected",
        )
    ]
