"""The ``chain`` report: the log's outcome, its receipts bound, its history, the exit code.

``sealverify chain`` only reads the logs, the state file and the receipt files, opens the
``--state`` store, calls :func:`chain_report`, and writes the report: the library and the
command give one answer. It lives with the receipts because binding receipts to the chain
reads receipt directories (:mod:`sealverify._internal.receipts.discovery`), a layer above the chain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sealverify._internal.history.chain import (
    Anchor,
    ChainRecord,
    ChainResult,
    ReceiptBinding,
    parse_state_file,
    receipt_audit,
    walk_logs,
)
from sealverify._internal.history.chain_display import chain_display, chain_facts
from sealverify._internal.history.chain_log import LogData
from sealverify._internal.history.state import ChainFacts, HistoryStore
from sealverify._internal.receipts.discovery import ReceiptFile, check_directory, read_receipt_file
from sealverify._internal.results.model import Check, Report, Status, Subject, fail, unpinned
from sealverify._internal.results.outcomes import Outcome, Vocabulary, decide, exit_code
from sealverify._internal.results.repeats import Findings
from sealverify._internal.wire.spelling import HEX64
from sealverify.errors import OptionError

_FAIL = Status.FAIL

__all__ = ["VOCABULARY", "ChainOptions", "ReceiptGroup", "chain_outcome", "chain_report"]


@dataclass(frozen=True, slots=True)
class ChainOptions:
    """What one ``sealverify chain`` run judges the logs against (its options).

    ``expect_head``, ``expect_count`` and ``state_file`` (seal-host's
    ``.seal-audit-head.state`` as ``(name, bytes)``) anchor the tail; ``start_head`` the start
    of a log that does not begin at genesis. ``display`` adds the per-record view the html
    report draws. Raises :class:`OptionError` for a head that is not 64 lowercase hex digits.
    """

    expect_head: str | None = None
    expect_count: int | None = None
    start_head: str | None = None
    state_file: tuple[str, bytes] | None = None
    display: bool = False

    def __post_init__(self) -> None:
        for flag, head in (("--expect-head", self.expect_head), ("--start-head", self.start_head)):
            if head is not None and not HEX64.fullmatch(head):
                raise OptionError(f"{flag} must be 64 hex digits")
        if self.expect_count is not None and self.expect_count < 0:
            raise OptionError("--expect-count must not be negative")


@dataclass(frozen=True, slots=True)
class ReceiptGroup:
    """One ``--receipts`` input: its label, the names in its directory, its receipt files.

    ``names`` is empty for a single file; ``files`` holds ``(name, bytes)`` of each receipt.
    """

    label: str
    names: tuple[str, ...]
    files: tuple[tuple[str, bytes], ...]


# What the chain's subjects are called under the one rule (results/outcomes.py ``decide``): a
# failed check BROKEN; a start or tail no anchor covers (its check declares the cap, as an
# unpinned authority does) UNANCHORED; else INTACT.
VOCABULARY = Vocabulary(passed=Outcome.INTACT, failed=Outcome.BROKEN, unpinned=Outcome.UNANCHORED)


def chain_outcome(checks: Iterable[Check]) -> Outcome:
    """BROKEN when any check fails, else UNANCHORED when one caps, else INTACT."""
    return decide(checks, VOCABULARY).outcome


def _anchor(options: ChainOptions) -> tuple[Anchor, list[Check]]:
    """The anchor of ``options``; a state file that cannot be read is a finding."""
    extra: list[Check] = []
    session = head = None
    where = ".seal-audit-head.state"
    if options.state_file is not None:
        where, data = options.state_file
        try:
            session, head = parse_state_file(data)
        except ValueError as exc:
            extra.append(fail("chain.state-file", f"state file refused: {exc}", where))
    anchor = Anchor(options.expect_head, options.expect_count, session, head, where)
    return anchor, extra


def _receipt_bindings(
    groups: Sequence[ReceiptGroup], on_receipt: Callable[[int], object] | None
) -> list[ReceiptBinding]:
    """One binding per receipt group, its receipts' audits read: fed each record as read."""
    bindings = []
    for group in groups:
        audits = []
        for name, data in group.files:
            audits.append(receipt_audit(name, data))
            if on_receipt is not None:
                on_receipt(1)
        bindings.append(ReceiptBinding(audits))
    return bindings


def _receipt_subjects(
    groups: Sequence[ReceiptGroup], bindings: Sequence[ReceiptBinding]
) -> list[Subject]:
    """A subject per receipt group: each receipt bound to a chain payload, the directory read."""
    subjects = []
    for group, binding in zip(groups, bindings, strict=True):
        read: list[ReceiptFile] = [read_receipt_file(name, data) for name, data in group.files]
        checks = Findings(binding.checks())
        if group.names:
            checks.extend(check_directory(group.names, read))
        subjects.append(
            Subject(
                f"receipts: {group.label}",
                chain_outcome(checks),
                tuple(checks.checks()),
                {"receipts": len(group.files)},
            )
        )
    return subjects


def _history_subject(
    result: ChainResult, location: str, store: HistoryStore, store_name: str
) -> Subject:
    """The chain's head checked against ``store`` and recorded there when nothing failed."""
    with store:
        history_checks: list[Check] = []
        if result.count and result.ok:
            recorded = store.recorded_head()
            held = (recorded,) if recorded is not None and recorded in result.heads_found else ()
            facts = ChainFacts(
                location=location,
                first_prev_head=str(result.first_prev_head),
                heads=(*held, str(result.final_head)),
                final_session=str(result.final_session),
                final_entry=int(result.final_entry or 0),
                records=result.count,
            )
            # Only a walk whose start is anchored (genesis, --start-head, or a head an earlier
            # run recorded) teaches the next: an unanchored start is never exit 0, so its head
            # must not make a continuing run INTACT (docs/chain.md). It is still checked.
            anchored = not result.unanchored_start
            history_checks = store.check_chain(facts, record=anchored)
            if not anchored:
                history_checks.append(
                    unpinned(
                        "history.chain-unanchored",
                        "the log's start is not anchored (genesis, --start-head, or a head an "
                        "earlier run recorded), so its head is not recorded",
                        location,
                    )
                )
        elif result.count:
            history_checks = [
                fail(
                    "history.chain-not-recorded",
                    "the chain is broken, so its head is not recorded",
                )
            ]
        subject = Subject(
            store_name,
            chain_outcome(history_checks),
            tuple(history_checks),
            {"recorded_head_before": store.recorded_head()},
        )
        if not any(c.status == _FAIL for c in history_checks):
            store.commit()
    return subject


def chain_report(
    sources: Sequence[tuple[str, LogData]],
    options: ChainOptions = ChainOptions(),
    receipts: Sequence[ReceiptGroup] = (),
    *,
    store: HistoryStore | None = None,
    store_name: str = "history",
    on_receipt: Callable[[int], object] | None = None,
) -> Report:
    """The report ``sealverify chain`` writes for ``sources``, the logs in order.

    Each source is ``(name, bytes)`` or ``(name, opener)``, a call that opens the log for
    reading: the log is then read a window at a time as it is walked, never held whole
    (:func:`~sealverify._internal.history.chain.walk_logs`); the html view spills its rows past the
    first.

    The first subject is the chain: BROKEN when a check fails, UNANCHORED when its start or tail
    has no anchor, else INTACT; then one per :class:`ReceiptGroup`, each receipt bound to a
    chain payload; then, given the ``--state`` ``store``, the history (the head recorded when
    nothing failed; :class:`~sealverify._internal.history.databases.HistoryError` when the store
    cannot be used). ``on_receipt(1)`` is called as each receipt is read (a progress bar). Exit 1
    when any subject is BROKEN (or there is no chain record at all), else 3 when unanchored, else 0.
    """
    anchor, extra = _anchor(options)
    bindings = _receipt_bindings(receipts, on_receipt)

    def bind(record: ChainRecord) -> None:
        for binding in bindings:
            binding.add(record)

    result = walk_logs(
        sources,
        anchor,
        options.start_head,
        recorded=store.recorded_head() if store is not None else None,
        display=options.display,
        on_record=bind if bindings else None,
    )
    # A log whose every record breaks keeps the first breaks of each kind located, counted:
    # the walk kept them so; the closing counts stay last.
    kept = len(result.checks) - result.overflows
    chain_checks = [*result.checks[:kept], *extra, *result.checks[kept:]]
    display = chain_display(result, anchor, options.start_head) if options.display else {}
    subjects = [
        Subject(
            ", ".join(name for name, _ in sources),
            # no record at all: the input is not an audit chain, said as such, not as a break
            chain_outcome(chain_checks) if result.count else Outcome.NOT_A_CHAIN,
            tuple(chain_checks),
            chain_facts(result, anchor),
            display=display,
        ),
        *_receipt_subjects(receipts, bindings),
    ]
    if store is not None:
        subjects.append(_history_subject(result, subjects[0].name, store, store_name))
    broken = any(s.outcome == Outcome.BROKEN for s in subjects)
    summary = {
        "records": result.count,
        "other_lines": result.other_lines,
        "broken": broken,
        "unanchored_tail": result.unanchored_tail,
        "unanchored_start": result.unanchored_start,
    }
    # Exit 1 when any subject is BROKEN, else 3 when the chain is UNANCHORED, else 0: the one
    # table (results.outcomes.EXIT_CODES), as every command.
    code = exit_code(s.outcome for s in subjects)
    return Report("chain", tuple(subjects), summary, code, layout="detail")
