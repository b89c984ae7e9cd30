"""seal-host's audit chain on stderr: records, genesis, head recomputation and break classes.

The host prints each audit payload line and then one chain record
``{"seal_record":"v1","entry","commitment","session","prev_head","prior_session","head"}``
(seal-host@099be66 ``rust/src/main.rs`` ``emit_audit``; record shape ``rust/src/receipt.rs``
``ReceiptRecord::to_json_line``). The commitment is
``head = sha256(prev_head as lowercase hex text || 0x1f || payload bytes)`` from the genesis
``sha256("seal-verifiable-record/genesis/v1")`` (``rust/src/receipt.rs`` ``genesis``/``commit``,
mirrored by ``scripts/seal_log.mjs`` and ``Host/Record.lean``). ``entry`` restarts at 0 in every
host process; the first record of a process names the previous process in ``prior_session``
and links to the head persisted in ``.seal-audit-head.state``.

Only ``head`` is committed: ``entry``, ``session`` and ``prior_session`` are unauthenticated
metadata, checked for consistency only. Everything here is pure: callers pass bytes.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sealverify.errors import InputFileError
from sealverify.history.chain_log import parse_log
from sealverify.history.chain_records import (
    COMMITMENT,
    GENESIS,
    GENESIS_PREIMAGE,
    Anchor,
    BreakKind,
    ChainRecord,
    LogLine,
    commit,
    genesis,
)
from sealverify.reports import ids
from sealverify.reports.model import (
    Check,
    Compared,
    Status,
    fail,
    info,
    not_evaluated,
    passed,
    unpinned,
)
from sealverify.wire.spelling import HEX64
from sealverify.wire.strictjson import JsonError, parse_bytes, parse_text

_FAIL, _NOT_EVALUATED = Status.FAIL, Status.NOT_EVALUATED

__all__ = [
    "COMMITMENT",
    "GENESIS",
    "GENESIS_PREIMAGE",
    "Anchor",
    "BreakKind",
    "ChainRecord",
    "ChainResult",
    "LogLine",
    "ReceiptAudit",
    "bind_receipts",
    "commit",
    "genesis",
    "parse_log",
    "parse_state_file",
    "receipt_audit",
    "verify_chain",
    "verify_logs",
]

STATE_MEMBERS = frozenset({"seal_audit_state", "session", "head"})


@dataclass(frozen=True, slots=True)
class ChainResult:
    """The outcome of walking one stream of logs: records, checks and the head reached."""

    records: tuple[ChainRecord, ...]
    checks: tuple[Check, ...]
    other_lines: int
    malformed_records: int
    first_break: dict[str, Any] | None
    final_head: str | None
    sessions: tuple[str, ...] = ()
    unanchored_tail: bool = False
    unanchored_start: bool = False
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(c.status == _FAIL for c in self.checks)


def parse_state_file(data: bytes) -> tuple[str, str]:
    """Parse ``.seal-audit-head.state`` (``{"seal_audit_state":"v1","session","head"}``).

    Returns ``(session, head)``; raises ValueError naming what is wrong (seal-host
    ``rust/src/receipt.rs`` ``ReceiptChain::open`` applies the same rules).
    """
    try:
        doc = parse_bytes(data)
    except JsonError as exc:
        raise InputFileError(f"not strict JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise InputFileError("not a JSON object")
    if set(doc) != STATE_MEMBERS:
        raise InputFileError("members must be exactly seal_audit_state, session, head")
    if doc["seal_audit_state"] != "v1":
        raise InputFileError('seal_audit_state is not "v1"')
    head, session = doc["head"], doc["session"]
    if not (isinstance(head, str) and HEX64.fullmatch(head)):
        raise InputFileError("head is not 64 lowercase hex digits")
    if not (isinstance(session, str) and session):
        raise InputFileError("session is not a non-empty string")
    return session, head


_NO_ANCHOR = Anchor()  # the default: truncation is not judged


class _Heads:
    """Where each head occurs, built once: maps rebuilt per break were quadratic."""

    def __init__(self, records: Sequence[ChainRecord]) -> None:
        self.positions: dict[str, list[int]] = {}
        for j, r in enumerate(records):
            self.positions.setdefault(r.head, []).append(j)

    def last(self, head: str) -> int:
        """Position of the last record whose head is ``head`` (-1 when none)."""
        found = self.positions.get(head)
        return found[-1] if found else -1

    def last_before(self, head: str, i: int) -> int:
        """Position of the last record before ``i`` whose head is ``head`` (-1 when none)."""
        found = self.positions.get(head)
        return found[bisect_left(found, i) - 1] if found and found[0] < i else -1


def _classify(
    records: Sequence[ChainRecord], i: int, expected_entry: int | None, heads: _Heads
) -> tuple[BreakKind, str]:
    """Name the likeliest cause of a link break at position ``i`` (prev_head != previous head)."""
    rec = records[i]
    prev = records[i - 1]
    later = heads.last(rec.prev_head)
    earlier = heads.last_before(rec.prev_head, i)
    if later > i:
        j = later
        return "reordering", (
            f"it links to the head of a record that appears later "
            f"({records[j].location}); records are out of order"
        )
    if rec.prev_head == prev.recomputed:
        return "mutation", (
            f"it links to the head the previous record's payload commits to, "
            f"so the previous record's head field ({prev.location}) was "
            "rewritten"
        )
    if earlier >= 0 or (i == 1 and rec.prev_head == records[0].prev_head):
        j = earlier
        skipped = i - 1 - j
        origin = records[j].location if j >= 0 else "the start of the log"
        return "insertion", (
            f"it links to the head of {origin}, so the {skipped} record(s) after that were inserted"
        )
    if expected_entry is not None and rec.entry > expected_entry:
        missing = rec.entry - expected_entry
        return "deletion", (
            f"entry {rec.entry} follows entry {prev.entry}: {missing} record(s) were deleted"
        )
    if prev.recomputed == prev.head:
        return "mutation", (
            f"the previous record ({prev.location}) has a head its payload "
            "commits to, but not the one this record links from: that payload "
            "was rewritten and re-sealed"
        )
    return "unknown", "no known tampering pattern explains the break"


def verify_chain(
    records: Sequence[ChainRecord], anchor: Anchor = _NO_ANCHOR, start_head: str | None = None
) -> ChainResult:
    """Verify records against the heads the host recorded; never re-seals.

    Each record must commit to its own payload (``head == commit(prev_head, payload)``) and
    link to the previous record's head; the stream starts at genesis (entry 0, no
    ``prior_session``), at ``start_head`` when given (a head recorded by an earlier run), or is
    reported as starting from unverified earlier history. Every break is a finding; the first
    is summarised with its likely cause. Truncation is judged only against ``anchor``.
    """
    checks: list[Check] = []
    if not records:
        checks.append(
            fail(
                "chain.records",
                "not an audit chain: no line is a seal_record chain record, so nothing in it is "
                "verified (capture seal-host's stderr, where the chain is written)",
            )
        )
    breaks, sessions = _walk(records, start_head, checks)
    for item in breaks:
        found = fail(
            "chain.break",
            f"entry {item['entry']}: {item['kind']}: {item['reason']}",
            item["location"],
            kind=item["kind"],
            entry=item["entry"],
            **({"heads": item["heads"]} if "heads" in item else {}),
        )
        checks.append(replace(found, compared=item.pop("compared", None)))
    if records and not breaks:
        checks.append(
            passed(
                "chain.links",
                f"all {len(records)} record(s) commit to their payloads "
                "and link to the previous head",
            )
        )
    tail_checks, unanchored = _anchor_checks(records, anchor)
    checks.extend(tail_checks)
    unanchored_start = any(c.id == ids.CHAIN_START and c.status == _NOT_EVALUATED for c in checks)
    return ChainResult(
        records=tuple(records),
        checks=tuple(checks),
        other_lines=0,
        malformed_records=0,
        first_break=breaks[0] if breaks else None,
        final_head=records[-1].head if records else None,
        sessions=tuple(sessions),
        unanchored_tail=unanchored,
        unanchored_start=unanchored_start,
    )


def _walk(
    records: Sequence[ChainRecord], start_head: str | None, checks: list[Check]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Each record's commitment and link to the one before: the breaks and the sessions seen.

    Findings that are not breaks (the start, session links) are appended to ``checks``.
    """
    breaks: list[dict[str, Any]] = []
    sessions: list[str] = []
    displaced_until = -1  # after a reordering, the breaks it causes are not new findings
    heads: _Heads | None = None  # built at the first break
    for i, rec in enumerate(records):
        if rec.session not in sessions:
            sessions.append(rec.session)
        if rec.payload is None or rec.recomputed != rec.head:
            breaks.append(_payload_break(rec))
        if i == 0:
            checks.extend(_start_checks(rec, start_head))
            continue
        prev = records[i - 1]
        new_process = rec.entry == 0 and rec.session != prev.session
        if new_process and rec.prior_session is None and rec.prev_head == GENESIS:
            checks.append(
                fail(
                    "chain.session-link",
                    f"session {rec.session!r} restarted the chain from genesis (the "
                    "host's .seal-audit-head.state was missing): everything before "
                    "it is unlinked",
                    rec.location,
                )
            )
            continue
        if rec.prev_head != prev.head:
            if i <= displaced_until:
                continue
            if heads is None:
                heads = _Heads(records)
            kind, why = _classify(records, i, None if new_process else prev.entry + 1, heads)
            if kind == "reordering":
                displaced_until = max(heads.last(rec.prev_head), i) + 1
            breaks.append(
                {
                    "entry": rec.entry,
                    "location": rec.location,
                    "kind": kind,
                    "reason": f"prev_head does not equal the previous record's head; {why}",
                }
            )
            continue
        _sequence_findings(rec, prev, new_process, checks, breaks)
    return breaks, sessions


_EXCERPT = 160  # characters of a payload line a break's reason quotes


def _excerpt(rec: ChainRecord) -> str:
    """The start of ``rec``'s payload line, as text (a report shows its controls escaped)."""
    assert rec.payload is not None
    text = rec.payload.data[: _EXCERPT * 4].decode("utf-8", errors="replace")
    return text[:_EXCERPT] + ("…" if len(text) > _EXCERPT else "")


def _payload_break(rec: ChainRecord) -> dict[str, Any]:
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
        f"(head recomputed {str(rec.recomputed)[:16]}…, recorded {rec.head[:16]}…)",
        "compared": Compared(str(rec.recomputed), rec.head, "commit(prev_head, payload)", "head"),
        "heads": {"recomputed": rec.recomputed, "recorded": rec.head},  # whole, in the data
    }


def _sequence_findings(
    rec: ChainRecord,
    prev: ChainRecord,
    new_process: bool,
    checks: list[Check],
    breaks: list[dict[str, Any]],
) -> None:
    """The unauthenticated metadata of a linked record: session start, entry and session."""
    if new_process:
        if rec.prior_session != prev.session:
            checks.append(
                fail(
                    "chain.session-link",
                    f"session {rec.session!r} starts with prior_session "
                    f"{rec.prior_session!r}, but the previous session was "
                    f"{prev.session!r}",
                    rec.location,
                )
            )
    elif rec.session != prev.session or rec.entry != prev.entry + 1:
        breaks.append(
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
        checks.append(
            fail(
                "chain.session-link",
                "prior_session is set on a record that is not a session's first",
                rec.location,
            )
        )


def verify_logs(
    sources: Sequence[tuple[str, bytes]], anchor: Anchor = _NO_ANCHOR, start_head: str | None = None
) -> ChainResult:
    """Parse the stderr captures (in order) and verify them as one chain; see verify_chain."""
    records, parse_checks, other = parse_log(sources)
    result = verify_chain(records, anchor, start_head)
    malformed = sum(1 for c in parse_checks if c.id == ids.CHAIN_RECORD_MALFORMED)
    return replace(
        result,
        checks=tuple(parse_checks) + result.checks,
        other_lines=other,
        malformed_records=malformed,
    )


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


def _anchor_checks(records: Sequence[ChainRecord], anchor: Anchor) -> tuple[list[Check], bool]:
    """The records judged against the anchor; and whether the tail is left unanchored."""
    checks = _count_checks(records, anchor)
    checks.extend(_head_checks(records, anchor))
    if anchor.state_head is not None and anchor.state_session is not None:
        owner = next((r for r in records if r.head == anchor.state_head), None)
        if owner is not None and owner.session != anchor.state_session:
            checks.append(
                fail(
                    "chain.anchor-state",
                    f"the state file names session {anchor.state_session!r}, but the "
                    f"record with its head belongs to {owner.session!r}",
                    anchor.state_location,
                )
            )
    if not anchor.present:
        checks.append(
            unpinned(
                "chain.tail-unanchored",
                "no anchor given (--expect-head, --expect-count or --state-file): a log cut short "
                "after its last record cannot be told from a complete one",
            )
        )
        return checks, True
    final = records[-1].head if records else GENESIS
    covered = anchor.count == len(records) or final in (anchor.head, anchor.state_head)
    if not covered and not any(c.status == _FAIL for c in checks):
        # Every anchor names an earlier head: the records after it could have been appended
        # by anyone, and a cut among them could not be told either.
        checks.append(
            unpinned(
                "chain.tail-unanchored",
                "the records after the last anchored head are an unanchored tail: no anchor "
                "covers the final record (pass its head with --expect-head, or --expect-count)",
            )
        )
        return checks, True
    return checks, False


def _count_checks(records: Sequence[ChainRecord], anchor: Anchor) -> list[Check]:
    """The number of records against ``--expect-count``."""
    if anchor.count is None:
        return []
    if len(records) == anchor.count:
        return [
            passed("chain.anchor-count", f"the log holds the expected {anchor.count} record(s)")
        ]
    if len(records) < anchor.count:
        return [
            fail(
                "chain.truncated",
                f"the log holds {len(records)} record(s), "
                f"{anchor.count} expected: "
                f"{anchor.count - len(records)} missing",
                kind="truncation",
            )
        ]
    return [
        fail(
            "chain.anchor-count",
            f"the log holds {len(records)} record(s), more than the {anchor.count} expected",
        )
    ]


def _head_checks(records: Sequence[ChainRecord], anchor: Anchor) -> list[Check]:
    """The final head against ``--expect-head`` and the state file's head."""
    checks: list[Check] = []
    heads = {r.head: i for i, r in enumerate(records)}
    last = len(records) - 1
    for label, head, location in (
        ("--expect-head", anchor.head, ""),
        ("state file head", anchor.state_head, anchor.state_location),
    ):
        if head is None:
            continue
        check_id = "chain.anchor-head" if label == "--expect-head" else "chain.anchor-state"
        if records and records[-1].head == head:
            checks.append(passed(check_id, f"the final head equals the {label}", location))
        elif head in heads:
            after = last - heads[head]
            checks.append(
                info(
                    check_id,
                    f"the {label} is the head of "
                    f"{records[heads[head]].location}; the {after} record(s) "
                    "after it are not covered by this anchor",
                    location,
                )
            )
        elif head == GENESIS and not records:
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


@dataclass(frozen=True, slots=True)
class ReceiptAudit:
    """What a receipt says about its chain payload: the audit text and the request hash."""

    name: str
    audit: str | None
    request_sha256: str | None
    problem: str = ""


def receipt_audit(name: str, data: bytes) -> ReceiptAudit:
    """Extract ``emitted_bytes.audit`` and the expected request hash from receipt bytes.

    The expected hash is ``request_sha256``, or ``canonical_request_sha256`` for receipts that
    do not carry it (fleet receipts; ``/tmp/research/verify-rules.md`` §3.4).
    """
    try:
        doc = parse_bytes(data)
    except JsonError as exc:
        return ReceiptAudit(name, None, None, f"receipt is not strict JSON: {exc}")
    if not isinstance(doc, dict):
        return ReceiptAudit(name, None, None, "receipt is not a JSON object")
    expected = doc.get("request_sha256", doc.get("canonical_request_sha256"))
    request = expected if isinstance(expected, str) else None
    emitted = doc.get("emitted_bytes")
    if not isinstance(emitted, str):
        return ReceiptAudit(name, None, request, "emitted_bytes is not a string")
    try:
        step = parse_text(emitted)
    except JsonError as exc:
        return ReceiptAudit(name, None, request, f"emitted_bytes is not strict JSON: {exc}")
    audit = step.get("audit") if isinstance(step, dict) else None
    if not isinstance(audit, str):
        return ReceiptAudit(name, None, request, "emitted_bytes.audit is not a string")
    return ReceiptAudit(name, audit, request)


def _audit_request_hash(payload: bytes) -> str | None:
    try:
        doc = parse_bytes(payload)
    except JsonError:
        return None
    value = doc.get("request_sha256") if isinstance(doc, dict) else None
    return value if isinstance(value, str) else None


def bind_receipts(records: Sequence[ChainRecord], receipts: Sequence[ReceiptAudit]) -> list[Check]:
    """Bind each receipt to a chain payload byte-equal to its ``emitted_bytes.audit``.

    Each payload binds at most one receipt (identical payloads are matched in order), and the
    payload's ``request_sha256`` must equal the receipt's own request hash.
    """
    checks: list[Check] = []
    free: dict[bytes, deque[ChainRecord]] = {}  # a queue: taken from the front, in order
    for rec in records:
        if rec.payload is not None:
            free.setdefault(rec.payload.data, deque()).append(rec)
    for item in receipts:
        if item.audit is None:
            checks.append(fail("chain.receipt-binding", f"cannot bind: {item.problem}", item.name))
            continue
        candidates = free.get(item.audit.encode("utf-8"), deque())
        if not candidates:
            checks.append(
                fail(
                    "chain.receipt-binding",
                    "no chain payload equals this receipt's emitted_bytes.audit: the "
                    "decision is not in the given log",
                    item.name,
                )
            )
            continue
        rec = candidates.popleft()
        audit_hash = _audit_request_hash(item.audit.encode("utf-8"))
        if audit_hash is None:
            checks.append(
                not_evaluated(
                    "chain.receipt-request",
                    "the audit payload carries no request_sha256 (older kernel)",
                    item.name,
                    entry=rec.entry,
                )
            )
        elif audit_hash != item.request_sha256:
            checks.append(
                fail(
                    "chain.receipt-request",
                    f"the chained audit names request {audit_hash}, the receipt "
                    f"{item.request_sha256}",
                    item.name,
                    entry=rec.entry,
                )
            )
        checks.append(
            passed(
                "chain.receipt-binding",
                f"bound to the payload of chain entry {rec.entry} "
                f"({rec.payload.location if rec.payload else rec.location})",
                item.name,
                entry=rec.entry,
                session=rec.session,
            )
        )
    unbound = sum(
        1
        for recs in free.values()
        for r in recs
        if r.payload is not None and _audit_request_hash(r.payload.data) is not None
    )
    if receipts and unbound:
        checks.append(
            info(
                "chain.receipt-coverage",
                f"{unbound} chained audit payload(s) have no receipt among those given",
            )
        )
    return checks
