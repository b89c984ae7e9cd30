"""The human table format: one row per subject, or a detailed block per subject."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from sealverify._internal import fastpath
from sealverify._internal.reports.formats import terminal
from sealverify._internal.reports.formats.grid import (
    ID,
    TEXT,
    WHERE,
    Notes,
    View,
    display_width,
    grid,
    wrap,
)
from sealverify._internal.reports.formats.protocol import (
    AroundStream,
    Context,
    Ending,
    Piece,
    Stream,
    counted,
)
from sealverify._internal.reports.formats.terminal import (
    counted_pass,
    passed_findings_note,
)
from sealverify._internal.reports.visible import visible
from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, Report, Status, Subject
from sealverify._internal.results.outcomes import RECEIPT_OUTCOMES

__all__ = [
    "FORMAT",
    "TableFormat",
    "decisive_order",
    "decisive_reason",
    "passed_findings_note",
    "published_keys_note",
    "receipt_row_subject",
    "render",
]


def _json_text(value: Any) -> str:
    """A fact value as JSON text: ``true``, ``null``, ``["a","b"]``; never a Python repr."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _flat(prefix: str, value: Any, out: list[tuple[str, str]]) -> None:
    # A string is shown as itself; every other value as JSON. A non-empty list is walked by
    # index (`changes.0.pointer`), so no nested value is ever shown as a Python repr.
    if isinstance(value, dict) and value:
        for key in sorted(value):
            _flat(f"{prefix}.{key}" if prefix else key, value[key], out)
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            _flat(f"{prefix}.{index}" if prefix else str(index), item, out)
    else:
        out.append((prefix, value if isinstance(value, str) else _json_text(value)))


def detail_block(subject: Subject, view: View, notes: Notes | None = None) -> str:
    """One subject's block: its heading, its facts and its checks (``notes``: shared notes)."""
    facts: list[tuple[str, str]] = []
    if subject.facts:  # an empty facts map shows nothing (never a bare "{}")
        _flat("", subject.facts, facts)
    label = f" ({subject.label})" if subject.label else ""
    heading = f"{subject.name}: {subject.outcome}{label}"
    lines = wrap("== " + _cell(heading), view.columns, "   ")
    if facts:
        lines.extend(_fact_lines(_cells(facts), view.columns))
    rows = _cells((c.status.upper(), c.id, c.reason, c.location) for c in subject.sorted_checks())
    if rows:
        lines.append("")
        lines.extend(_checks_table(rows, "check", view, notes))
    return "\n".join(lines)


def _fact_lines(facts: list[tuple[str, ...]], columns: int) -> list[str]:
    """Facts as "key  value" lines; a value that does not fit goes whole under its key.

    A value (a digest, a key) is never cut: below its key, indented, it is broken only when
    it is wider than a line.
    """
    width = max(len(key) for key, _ in facts)
    out: list[str] = []
    for key, value in facts:
        line = f"{key.ljust(width)}  {value}".rstrip()
        if display_width(line) <= columns:
            out.append(line)
            continue
        out.append(key)
        out.extend(wrap("    " + value, columns, "    "))
    return out


def _checks_table(
    rows: list[tuple[str, ...]], name: str, view: View, notes: Notes | None = None
) -> list[str]:
    """Checks as status, id, reason, at: fitted, a reason repeated on many rows as a note.

    With ``notes`` (shared by a report's blocks) the notes are said by the caller, once,
    after the last block; without, under this table.
    """
    own = Notes() if notes is None else notes
    shown = own.rows(rows, 1, 2)
    out = grid(["status", name, "reason", "at"], shown, (ID, ID, TEXT, WHERE), view, status=0)
    said = own.lines(view) if notes is None else []
    return [*out, "", *said] if said else out


def _row(subject: Subject) -> tuple[str, ...]:
    shown = decisive_reason([c for c in subject.checks if c.status == "fail"])
    outcome = subject.outcome + (f" ({subject.label})" if subject.label else "")
    return tuple(map(_cell, (subject.name, outcome, shown)))


_PASS = Status.PASS
# The statuses a receipts-table row keeps (a not-evaluated replay.decision is then dropped).
_ROW_STATUSES = frozenset(("fail", "waived", "not-evaluated"))


def _row_checks(checks: tuple[Check, ...]) -> list[Check]:
    """The failing, waived and not-evaluated checks, less a not-evaluated replay.decision."""
    kept = []
    for check in checks:  # a loop, not a generator: most checks pass and are passed over
        status = check.status
        if status in _ROW_STATUSES and (
            status != "not-evaluated" or check.id != ids.REPLAY_DECISION
        ):
            kept.append(check)
    return kept


def receipt_row_subject(subject: Subject) -> Subject:
    """The part of a receipt subject the receipts table shows; renders the identical row.

    Kept: name, outcome, label, family, verdict and the failing or not-evaluated checks, less
    a ``replay.decision`` that did not fail (every receipt carries one and the summary line
    counts them; a failed one shows in the row). A long ``verify``
    run then holds a few hundred bytes per receipt for this format (docs/performance.md).
    """
    family, verdict = subject.facts.get("family"), subject.facts.get("verdict")
    rederived = subject.facts.get("rederivation")
    shared = all(isinstance(v, str | None) for v in (family, verdict, rederived))
    facts: dict[str, Any] = (
        _row_facts(
            "family" in subject.facts, family, "verdict" in subject.facts, verdict, rederived
        )
        if shared
        else {
            k: subject.facts[k] for k in ("family", "verdict", "rederivation") if k in subject.facts
        }
    )
    return Subject(
        subject.name,
        subject.outcome,
        tuple(_row_checks(subject.checks)),
        facts,
        subject.label,
    )


@fastpath.cache(maxsize=256)
def _row_facts(
    has_family: bool, family: Any, has_verdict: bool, verdict: Any, rederived: Any
) -> dict[str, Any]:
    # Receipts share a handful of (family, verdict, re-derivation status) triples: one
    # read-only dict per triple. The status feeds the summary line's counts.
    facts: dict[str, Any] = {}
    if has_family:
        facts["family"] = family
    if has_verdict:
        facts["verdict"] = verdict
    if rederived is not None:
        facts["rederivation"] = rederived
    return facts


# How decisive a failed check's family is, most first: a receipt seal never mediated, then a
# document that cannot be read, a signature that does not verify, authority, the kernel
# build, the bindings, the decision, and last the legacy projections a fleet may waive.
_SEVERITY = {
    "bypass": 0,
    "document": 1,
    "json": 1,
    "format": 1,
    "log": 1,
    "signature": 2,
    "authority": 3,
    "kernel": 4,
    "binding": 5,
    "spine": 5,
    "decision": 6,
    "replay": 6,
    "approval": 7,
    "history": 7,
    "scope": 8,
    "legacy": 10,
}
WHY_WIDTH = 300  # characters of the "why" cell


def _severity(check: Check) -> tuple[int, str, str]:
    return (_SEVERITY.get(check.id.partition(".")[0], 9), check.id, check.location)


def decisive_order(checks: Iterable[Check]) -> list[Check]:
    """``checks`` most decisive first: one of each family, then the rest, by severity.

    Families are ordered by how decisive they are, then checks by id and location (stable).
    One check of each family comes first (a forged decision shows its ``replay.decision``
    beside the bindings it broke), then the others, each group in severity order.
    """
    families: set[str] = set()
    first: list[Check] = []
    others: list[Check] = []
    for check in sorted(checks, key=_severity):
        family = check.id.partition(".")[0]
        (others if family in families else first).append(check)
        families.add(family)
    return [*first, *others]


def decisive_reason(checks: Iterable[Check], width: int = WHY_WIDTH) -> str:
    """The checks that decide an outcome, most severe first, within ``width`` characters.

    Checks come in :func:`decisive_order`. Whole checks are shown while they fit; the next
    one is cut at a word and marked "…" when its id and a few words still fit; "(+N more)"
    counts the rest. A check is never cut mid-word unmarked.
    """
    return _reason(decisive_order(checks), width)


def _reason(ordered: list[Check], width: int = WHY_WIDTH) -> str:
    """:func:`decisive_reason` of checks already in :func:`decisive_order`."""
    parts = [f"{c.id}: {c.reason}" for c in ordered]
    if not parts:
        return ""
    shown: list[str] = []
    for index, part in enumerate(parts):
        rest = len(parts) - index - 1
        tail = f" (+{rest} more)" if rest else ""
        candidate = "; ".join([*shown, part])
        if len(candidate) + len(tail) <= width:
            shown.append(part)
            continue
        more = f" (+{rest} more)" if rest else ""
        if not shown:  # the most decisive check alone is too long: cut it, marked
            return _cut(part, width - len(more)) + more
        room = width - len("; ".join(shown)) - 2 - len(more)
        if room >= len(part.partition(": ")[0]) + 12:  # its id and a few words still fit
            return "; ".join([*shown, _cut(part, room)]) + more
        return "; ".join(shown) + f" (+{len(parts) - len(shown)} more)"
    return "; ".join(shown)


def _cut(text: str, width: int) -> str:
    """``text`` within ``width`` characters, cut after a whole word and ended with "…"."""
    if len(text) <= width:
        return text
    head = text[: width - 1]
    space = head.rfind(" ")
    if space > 0:
        head = head[:space]
    return head.rstrip(" ;,:") + "…"


def _receipt_row(subject: Subject) -> tuple[str, str, str, str, str]:
    """One receipt: outcome, family, verdict, and why it is not VERIFIED (or what was left out)."""
    # The row shows only the failing checks (else the not-evaluated ones) in the order of
    # `Subject.sorted_checks`, which within one status is by (id, location) and stable: so
    # filtering first and sorting those few checks gives the same sequence as filtering the
    # fully sorted list, without sorting the ~40 passing checks of every receipt.
    why = _reason(decisive_order(_why_checks(subject)))
    outcome, family, verdict = _outcome_cells(subject)
    return subject.name, outcome, family, verdict, why


def _outcome_cells(subject: Subject) -> tuple[str, str, str]:
    """A receipt row's outcome (with its label), family and verdict ("-" when unknown)."""
    label, facts = subject.label, subject.facts
    return (
        subject.outcome + (f" ({label})" if label else ""),
        str(facts.get("family") or "-"),
        str(facts.get("verdict") or "-"),
    )


def _why_checks(subject: Subject) -> list[Check]:
    """The checks a row's "why" names: the failing ones, else those not evaluated or waived."""
    # One scan for what does not pass (most of a receipt's checks pass; a status is its
    # Status member whenever it is one of the words), then the few it keeps are read.
    unpassed = [c for c in subject.checks if c.status is not _PASS]
    failing = [c for c in unpassed if c.status == "fail"]
    if failing:
        return failing
    return [
        c
        for c in unpassed
        if c.status in ("not-evaluated", "waived") and c.id != ids.REPLAY_DECISION
    ]


def receipt_brief(subject: Subject) -> tuple[str, str, str]:
    """A terminal row's short "why": the most decisive check's id and reason, and the others.

    The reason is cut at a word within :data:`WHY_WIDTH` characters; the third item counts
    the other checks (:func:`decisive_order`), as text. All three are visible (:func:`_cell`).
    """
    return _brief(decisive_order(_why_checks(subject)))


def _brief(ordered: list[Check]) -> tuple[str, str, str]:
    """:func:`receipt_brief` of a receipt's "why" checks already in :func:`decisive_order`."""
    if not ordered:
        return "", "", "0"
    first = ordered[0]
    return _cell(first.id), _cell(_cut(first.reason, WHY_WIDTH)), str(len(ordered) - 1)


def _cell(text: str) -> str:
    """One table cell as a person sees it: on one line, evidence's controls shown escaped.

    Line ends and tabs are escaped with every other control (``\\x0a``, ``\\x09``), so a
    cell can neither start a row of its own nor move the cursor (reports/visible.py).
    """
    return visible(text)


def _cells(rows: Iterable[Iterable[str]]) -> list[tuple[str, ...]]:
    """Every cell of ``rows`` through :func:`_cell`, once."""
    return [tuple(map(_cell, row)) for row in rows]


def receipt_cells(subject: Subject) -> tuple[str, ...]:
    """The five cells of one receipt's row, each on one line, ready to show (:func:`_cell`)."""
    return tuple(_cell(cell) for cell in _receipt_row(subject))


def receipt_spool_cells(subject: Subject) -> tuple[str, ...]:
    """What ``verify`` spools per receipt: the row's first four cells, then the brief's three.

    The fitted view (reports/formats/terminal.py) reads these seven, on a terminal, in a pipe
    and in a file alike; it shows the brief, never the row's full "why" (:func:`receipt_cells`).
    """
    # The brief depends only on the ids, reasons and locations of the checks it is made of,
    # and most receipts of a run name the same ones (a waived legacy check): its three cells
    # are made once per distinct tuple (:func:`_brief_of`).
    why = tuple([(c.id, c.reason, c.location) for c in _why_checks(subject)])
    outcome, family, verdict = _outcome_cells(subject)
    return (
        _cell(subject.name),
        _cell(outcome),
        _cell(family),
        _cell(verdict),
        *_brief_of(why),
    )


@fastpath.cache(maxsize=256)
def _brief_of(why: tuple[tuple[str, str, str], ...]) -> tuple[str, str, str]:
    """:func:`receipt_brief` of a receipt whose "why" checks are (id, reason, location).

    In the checks' order, as :func:`_why_checks` gives them: only these three members of a
    check are read by :func:`decisive_order` and :func:`_brief`.
    """
    return _brief(decisive_order(Check(i, Status.FAIL, reason, at) for i, reason, at in why))


def receipts_summary(report: Report) -> str:
    """The closing line of a receipts table: counts per outcome and of re-derived decisions."""
    counts = ", ".join(f"{report.summary.get(name, 0)} {name}" for name in RECEIPT_OUTCOMES)
    return (
        f"{report.summary.get('receipts', len(report.subjects))} receipt(s): {counts}; "
        + rederivation_summary(report.summary)
        + published_keys_note(report.summary)
    )


def rederivation_summary(summary: dict[str, Any]) -> str:
    """How many decisions sealverify's kernel model re-derived, refuted or could not judge."""
    counts = summary.get("decision_rederivation")
    counts = counts if isinstance(counts, dict) else {}
    # VERIFIED needs the decision re-derived (seal-check@0632f31 README's rule): when some
    # were not, the line says so where the counts are read.
    unevaluated = counts.get("not-evaluated", 0)
    rule = " (a kernel decision not re-derived is never VERIFIED)" if unevaluated else ""
    return (
        "decisions re-derived by sealverify's kernel model: "
        f"{counts.get('pass', 0)} identical, {counts.get('fail', 0)} different, "
        f"{unevaluated} not evaluated{rule}"
    )


def published_keys_note(summary: dict[str, Any], *, option: bool = True) -> str:
    """What a summary line adds when the run accepted published keys, else "".

    ``option`` names the flag that allowed them; verify's one-line summary leaves it out.
    """
    if not summary.get("allow_published_keys"):
        return ""
    flag = " (--allow-published-keys)" if option else ""
    return f"; published keys allowed{flag}: not for real evidence"


def findings_table(report: Report, view: View | None = None) -> str:
    """The run-level findings (broken log lines, history checks), or "" when there are none.

    Passing findings are counted under the table (:func:`passed_findings_note`), not listed.
    """
    view = view or View()
    shown = [c for c in report.findings if not counted_pass(c)]
    note = passed_findings_note(report.findings)
    notes = wrap(note, view.columns, "  ") if note else []
    if not shown:
        return "\n".join(notes)
    rows = _cells((c.status.upper(), c.id, c.reason, c.location) for c in shown)
    return "\n".join([*_checks_table(rows, "finding", view), *notes])


def render(report: Report, view: View | None = None) -> str:
    """Render for a person within ``view`` (default: :data:`grid.DEFAULT_COLUMNS`, no colour).

    The summary line goes to stderr, once (see the CLI), not here.
    """
    view = view or View()
    parts: list[str] = []
    if report.layout == "receipts" and report.subjects:
        rows = [receipt_spool_cells(s) for s in report.subjects]
        lines = terminal.lines(lambda: rows, report.findings, view.columns, view.colour)
        return "\n".join(lines) + "\n"
    if report.findings:
        parts.append(findings_table(report, view))
    if report.layout == "detail":
        notes = Notes()
        parts.extend(detail_block(s, view, notes) for s in report.subjects)
        parts.extend(["\n".join(notes.lines(view))] if notes.lines(view) else [])
    elif report.subjects:
        rows = [_row(s) for s in report.subjects]  # visible already
        table = grid(
            ["subject", "outcome", "failing checks"], rows, (WHERE, ID, TEXT), view, status=1
        )
        parts.append("\n".join(table))
    return "\n\n".join(parts) + "\n"


class _Stream(AroundStream):
    """A table: detail blocks spooled (their notes said once, at the end), rows kept whole."""

    separator = b"\n\n"

    def __init__(self, context: Context) -> None:
        super().__init__(context, lambda report: render(report, self.view))
        self.view = context.view
        self._notes = Notes()  # reasons repeated across the detail blocks, said at the end

    def take(self, subject: Subject, piece: Piece) -> bytes | None:
        if self.context.layout != "detail":
            return None  # a row's widths are the whole table's: rendered at the end
        return detail_block(subject, self.view, self._notes).encode()

    def around(self, bare: Report) -> tuple[str, str]:
        findings = findings_table(bare, self.view)  # detail layout
        notes = "\n".join(self._notes.lines(self.view))  # complete: every subject was added
        return (findings + "\n\n" if findings else ""), ("\n\n" + notes if notes else "") + "\n"

    def encoded(self, text: str) -> str | bytes:
        # click strips colour from text written to a pipe; bytes are written as they are
        return text.encode() if self.view.colour else text

    def pieces(
        self, bare: Report, kept: tuple[Subject, ...], spool: IO[bytes], ending: Ending
    ) -> Iterator[str | bytes]:
        self.view = ending.view or self.view
        yield from super().pieces(bare, kept, spool, ending)
        if ending.said:  # a pipe to a pager: it shows the summary last
            yield self.encoded(said_lines(ending.said, self.view))


class _Receipts(_Stream):
    """``verify``'s table: each receipt's cells spooled as a line, fitted at the end."""

    separator = b""

    def take(self, subject: Subject, piece: Piece) -> bytes | None:
        # receipt_cells puts every cell on one line with tabs escaped (\x09): a tab and a line
        # end separate cells and rows exactly (the spool never translates newlines).
        cells = piece if isinstance(piece, tuple) else ()
        return ("\t".join(cells) + "\n").encode()

    def pieces(
        self, bare: Report, kept: tuple[Subject, ...], spool: IO[bytes], ending: Ending
    ) -> Iterator[str | bytes]:
        view = ending.view or self.view
        rows = lambda: _spooled_rows(spool)  # noqa: E731 -- read afresh on each call
        # Lines are written a few hundred at a time: one write a line cost as much as the
        # line's drawing (the CLI's echo decides its stream and colour on every write).
        chunk: list[str] = []
        for text in terminal.lines(rows, bare.findings, view.columns, view.colour):
            chunk.append(text)
            if len(chunk) == _LINES_A_WRITE:
                yield _encoded("\n".join(chunk) + "\n", view)
                chunk.clear()
        if chunk:
            yield _encoded("\n".join(chunk) + "\n", view)
        if ending.said:  # a pipe to a pager: it shows the summary last
            yield _encoded(said_lines(ending.said, view), view)


_LINES_A_WRITE = 256  # lines of the fitted table joined into one write


def _encoded(text: str, view: View) -> str | bytes:
    return text.encode() if view.colour else text


def _spooled_rows(spool: IO[bytes]) -> Iterator[tuple[str, ...]]:
    """The spooled rows from the start: the seven cells of :func:`receipt_spool_cells`."""
    spool.seek(0)
    return (tuple(line[:-1].decode().split("\t")) for line in spool)


def said_lines(line: str, view: View) -> str:
    """The summary line again under a table, wrapped to its width."""
    return "".join(t + "\n" for t in wrap(visible(line), view.columns, "  "))


class TableFormat:
    """The table format's side of the streaming interface (``protocol.Format``)."""

    name = "table"
    page = False
    coloured = True

    def render(self, report: Report, view: View | None = None) -> str:
        return render(report, view)

    def fragment(self, subject: Subject, context: Context) -> tuple[Subject, Piece]:
        if context.layout == "receipts":  # the row's cells, made where it was verified
            bare = Subject(
                subject.name, subject.outcome, facts=counted(subject), label=subject.label
            )
            return bare, receipt_spool_cells(subject)
        return subject, None  # a block is made as it is spooled: the notes are shared

    def stream(self, context: Context) -> Stream:
        return _Receipts(context) if context.layout == "receipts" else _Stream(context)

    def document(self, value: Any, text: Callable[[], str]) -> str:
        return text()


FORMAT = TableFormat()
