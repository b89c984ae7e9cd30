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
metadata, checked for consistency only. Everything here is pure (callers pass bytes), but
:func:`walk_logs`, which reads each log through the opener it is given, as it walks it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sealverify._internal.history.chain_heads import Heads
from sealverify._internal.history.chain_log import LogData, LogReading, parse_log, read_records
from sealverify._internal.history.chain_records import (
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
from sealverify._internal.history.chain_views import RecordViews
from sealverify._internal.history.chain_walk import ChainWalk
from sealverify._internal.results import ids
from sealverify._internal.results.model import (
    Check,
    Status,
    fail,
    info,
    not_evaluated,
    passed,
)
from sealverify._internal.results.repeats import KEEP, Findings
from sealverify._internal.wire.spelling import HEX64
from sealverify._internal.wire.strictjson import JsonError, parse_bytes, parse_text
from sealverify.errors import InputFileError

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
    "ReceiptBinding",
    "bind_receipts",
    "commit",
    "genesis",
    "parse_log",
    "parse_state_file",
    "receipt_audit",
    "verify_chain",
    "verify_logs",
    "walk_logs",
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
    # What the walk kept of the records (a streamed walk holds none of them): their number,
    # where the chain starts and ends, the anchor or recorded heads some record holds.
    count: int = 0
    first_prev_head: str | None = None
    final_session: str | None = None
    final_entry: int | None = None
    heads_found: frozenset[str] = frozenset()
    display: RecordViews | None = None  # the html report's view of each record, when kept
    anchored_through: int | None = None  # the last record an anchor is at, when kept
    overflows: int = 0  # the last checks close kinds of finding past their first ``keep``

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
    walk = ChainWalk(anchor, start_head, lambda: Heads(_placed(records)))
    for rec in records:
        walk.add(rec)
    finished = walk.finish()
    found, breaks, closing, _ = finished
    empty = [] if walk.count else [_NO_RECORDS]
    result = _result(walk, finished, records=tuple(records))
    return replace(result, checks=(*empty, *found, *breaks, *closing))


def _placed(records: Iterable[ChainRecord]) -> Iterator[tuple[str, str, int]]:
    """Each record's head and where it is (its log and line), as the heads index takes them."""
    for rec in records:
        yield rec.head, rec.line.source, rec.line.number


def _result(
    walk: ChainWalk,
    finished: tuple[list[Check], list[Check], list[Check], bool],
    records: tuple[ChainRecord, ...] = (),
) -> ChainResult:
    """What the walk found, its checks left for the caller to put in order."""
    unanchored = finished[3]
    prev = walk.prev
    return ChainResult(
        records=records,
        checks=(),
        other_lines=0,
        malformed_records=0,
        first_break=walk.first_break,
        final_head=prev.head if prev is not None else None,
        sessions=tuple(walk.sessions),
        unanchored_tail=unanchored,
        unanchored_start=walk.unanchored_start,
        count=walk.count,
        first_prev_head=walk.first.prev_head if walk.first is not None else None,
        final_session=prev.session if prev is not None else None,
        final_entry=prev.entry if prev is not None else None,
        heads_found=frozenset(h for h, (at, _) in walk.found.items() if at >= 0),
        display=walk.display,
        anchored_through=walk.anchored_through,
    )


_NO_RECORDS = fail(
    "chain.records",
    "not an audit chain: no line is a seal_record chain record, so nothing in it is "
    "verified (capture seal-host's stderr, where the chain is written)",
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


def walk_logs(
    sources: Sequence[tuple[str, LogData]],
    anchor: Anchor = _NO_ANCHOR,
    start_head: str | None = None,
    *,
    recorded: str | None = None,
    keep: int = KEEP,
    display: bool = False,
    on_record: Callable[[ChainRecord], object] | None = None,
) -> ChainResult:
    """:func:`verify_logs` as the logs are read: no log, line or record is held whole.

    Each log is its bytes or a call that opens it (read a window at a time, and read again
    only to classify a break). Each kind of finding keeps its first ``keep``, counting the rest
    (:class:`~sealverify._internal.results.repeats.Findings`: the report closes them); the result
    holds no records (``count`` says how many), the per-record view of the html report when
    ``display``, and ``on_record`` sees each record as it is read. ``recorded`` is the head an
    earlier run recorded: the walk starts from it when the first record links from it.
    """
    reading = LogReading(keep)
    walk = ChainWalk(
        anchor,
        start_head,
        lambda: Heads(_placed(read_records(sources, LogReading(0)))),
        keep=keep,
        recorded=recorded,
        display=display,
    )
    for rec in read_records(sources, reading):
        walk.add(rec)
        if on_record is not None:
            on_record(rec)
    found, breaks, closing, unanchored = walk.finish()
    merged = Findings(keep=keep)
    empty = [] if walk.count else [_NO_RECORDS]
    for bucket in (*reading.buckets, empty, found, breaks, closing):
        merged.extend(bucket)
        if isinstance(bucket, Findings):  # what a bucket counted past its first ``keep``
            for kind, total in bucket.counts.items():
                merged.counts[kind] += max(0, total - bucket.keep)
    overflows = merged.overflows()
    return replace(
        _result(walk, (found, breaks, closing, unanchored)),
        checks=(*merged, *overflows),
        overflows=len(overflows),
        other_lines=reading.other,
        malformed_records=reading.malformed,
    )


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
    binding = ReceiptBinding(receipts)
    for rec in records:
        binding.add(rec)
    return binding.checks()


class ReceiptBinding:
    """:func:`bind_receipts` as the records are read: :meth:`add` each, then :meth:`checks`.

    What is held is the receipts' audits and, per receipt, the record it took (its entry,
    session and locations); a record no receipt waits for is only counted.
    """

    def __init__(self, receipts: Sequence[ReceiptAudit]) -> None:
        self.receipts = receipts
        # The receipts waiting for each payload, in order: a payload's records are taken by
        # them in log order, as a queue of free records taken from the front would give.
        self._waiting: dict[bytes, deque[int]] = {}
        for index, item in enumerate(receipts):
            if item.audit is not None:
                self._waiting.setdefault(item.audit.encode("utf-8"), deque()).append(index)
        self._taken: dict[int, ChainRecord] = {}
        self._unbound = 0  # chained audit payloads (with a request hash) no receipt took

    def add(self, rec: ChainRecord) -> None:
        """One record, in log order."""
        if rec.payload is None:
            return
        waiting = self._waiting.get(rec.payload.data)
        if waiting:
            self._taken[waiting.popleft()] = rec
        elif self.receipts and _audit_request_hash(rec.payload.data) is not None:
            self._unbound += 1

    def checks(self) -> list[Check]:
        """Each receipt bound or not, in order; then the payloads no receipt took."""
        checks: list[Check] = []
        for index, item in enumerate(self.receipts):
            if item.audit is None:
                checks.append(
                    fail("chain.receipt-binding", f"cannot bind: {item.problem}", item.name)
                )
                continue
            rec = self._taken.get(index)
            if rec is None:
                checks.append(
                    fail(
                        "chain.receipt-binding",
                        "no chain payload equals this receipt's emitted_bytes.audit: the "
                        "decision is not in the given log",
                        item.name,
                    )
                )
                continue
            checks.extend(_bound(item, rec))
        if self.receipts and self._unbound:
            checks.append(
                info(
                    "chain.receipt-coverage",
                    f"{self._unbound} chained audit payload(s) have no receipt among those given",
                )
            )
        return checks


def _bound(item: ReceiptAudit, rec: ChainRecord) -> list[Check]:
    """The checks of a receipt bound to ``rec``: its request hash, then the binding."""
    assert item.audit is not None
    checks: list[Check] = []
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
                f"the chained audit names request {audit_hash}, the receipt {item.request_sha256}",
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
    return checks
