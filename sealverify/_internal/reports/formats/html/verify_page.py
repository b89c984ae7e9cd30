"""The html report of ``verify``, assembled receipt by receipt so memory stays flat."""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

from sealverify._internal.reports.explain_text import severity_of
from sealverify._internal.reports.formats.html.env import render as template
from sealverify._internal.reports.formats.html.page import close, open_page
from sealverify._internal.reports.formats.terminal import counted_pass, passed_findings_note
from sealverify._internal.results.model import Report, Subject
from sealverify._internal.results.outcomes import RECEIPTS_BY_SEVERITY, Outcome
from sealverify._version import __version__

__all__ = [
    "DETAIL_CAP",
    "OTHER_ROW_CAP",
    "VERIFIED_ROW_CAP",
    "VerifyPage",
    "bare",
    "receipt_fragments",
    "render",
]

OUTCOMES = RECEIPTS_BY_SEVERITY  # VERIFIED, UNPINNED, REDUCED, FAIL
# Drill-downs are filled worst first: every FAIL (up to the cap), then REDUCED, then UNPINNED,
# each in input order, so a forged receipt named last is never the one left without detail.
TRIAGE = OUTCOMES[:0:-1]
COLOUR = {
    Outcome.VERIFIED: "#1a7f37",
    Outcome.UNPINNED: "#9a6700",
    Outcome.REDUCED: "#bc4c00",
    Outcome.FAIL: "#cf222e",
}
# The stated caps (docs/report-format.md): drill-downs and rows for the receipts that did not
# verify, rows for those that did; beyond them receipts are counted, never dropped silently.
DETAIL_CAP = 200
OTHER_ROW_CAP = 10_000
VERIFIED_ROW_CAP = 2_000
DOT_CAP = 1_000  # receipts drawn one by one on the timeline; beyond, counts per bin
# The by-check table links each check to this many receipts' drill-downs, worst outcome first;
# its "show" filter lists every receipt the check did not pass on.
CHECK_LINKS = 5
_BINS = 60
_WIDTH = 760
_BIN_HEIGHT = 20  # px of the fullest bin
_MIN_BIN = 5  # px of any bin that holds a receipt: a lone FAIL beside thousands stays drawn
_OPEN = ("fail", "not-evaluated", "waived")
_RANK = {status: index for index, status in enumerate(_OPEN)}
_HEADLINE = {
    0: "every receipt VERIFIED: signatures, bindings, pins and re-derived decisions agree",
    1: "FAIL: at least one receipt failed or a run finding failed",
    3: "UNPINNED: authority not established for at least one receipt (nothing worse)",
    4: "REDUCED: at least one receipt verified only in part, such as a decision not "
    "re-derived (no FAIL)",
}


def _open_ids(subject: Subject) -> list[tuple[str, str]]:
    """The ids of the checks that did not pass, each with its worst status, failures first."""
    rank = {status: index for index, status in enumerate(_OPEN)}
    worst: dict[str, str] = {}
    for check in sorted(subject.checks, key=lambda c: -rank.get(c.status, -1)):
        if check.status in rank:
            worst[check.id] = check.status  # the worse statuses come later and win
    return sorted(worst.items(), key=lambda item: (rank[item[1]], item[0]))


def _facts(subject: Subject) -> list[tuple[str, str]]:
    return [
        (key, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
        for key, value in sorted(subject.facts.items())
    ]


def receipt_fragments(subject: Subject) -> tuple[str, str, str]:
    """One verified receipt as (row linking to its detail, plain row, detail html).

    The detail is empty for a VERIFIED receipt. Rendered where the receipt was verified (a
    worker), so the parent only spools text.
    """
    ids = _open_ids(subject)
    plain = template("verify_row.html", s=subject, link=False, open_ids=ids)
    if subject.outcome == Outcome.VERIFIED:
        return plain, plain, ""
    linked = template("verify_row.html", s=subject, link=True, open_ids=ids)
    return linked, plain, template("verify_detail.html", s=subject, facts=_facts(subject))


def bare(subject: Subject) -> Subject:
    """What the page keeps of a receipt besides its fragments.

    Its outcome, verdict and signed time, and the ids of the checks that did not pass (the
    "by check" table counts them).
    """
    facts: dict[str, Any] = {k: subject.facts.get(k) for k in ("rederivation", "verdict")}
    facts["open"] = _open_ids(subject)
    return Subject(
        subject.name, subject.outcome, facts=facts, label=subject.label, display=subject.display
    )


class VerifyPage:
    """Receipts in, the page out: rows, drill-downs and signed times wait in spools.

    ``spool`` makes a text file to hold them (``io.StringIO`` by default; the CLI passes
    temporary files). Only counters, the time range and at most ``DOT_CAP`` timeline points are
    held in memory.
    """

    def __init__(self, spool: Callable[[], IO[str]] = io.StringIO) -> None:
        self._rows, self._times = spool(), spool()
        # Up to DETAIL_CAP drill-downs of each outcome, in input order: which of them the page
        # shows is known only once every receipt is in (worst first, TRIAGE).
        self._details = {outcome: spool() for outcome in OUTCOMES}
        self._spooled: Counter[str] = Counter()  # drill-downs held, per outcome
        self._open: Counter[str] = Counter()  # receipts that did not verify, per outcome
        self._kept: set[int] | None = None  # the receipts whose drill-down is shown
        self._shown: dict[str, int] = {}  # drill-downs shown, per outcome
        self._seq = 0
        self._listed: Counter[str] = Counter()  # rows written, VERIFIED and other
        self._unlisted: Counter[str] = Counter()  # receipts counted but not listed
        self._by_check: Counter[str] = Counter()  # receipts per check id that did not pass
        self._check_status: dict[str, str] = {}  # the worst status seen per check id
        # Per check id and outcome, the first CHECK_LINKS receipts (seq, name): whichever of
        # them keep their drill-down are linked from the by-check table.
        self._examples: dict[tuple[str, str], list[tuple[int, str]]] = {}
        self._verdicts: Counter[tuple[str, str]] = Counter()
        self._signed = self._unsigned = 0
        self._first: int | None = None
        self._last: int | None = None

    def __enter__(self) -> VerifyPage:
        return self

    def __exit__(self, *exc: object) -> None:
        for spool in (self._rows, self._times, *self._details.values()):
            spool.close()

    def add(self, subject: Subject, fragments: Sequence[str]) -> None:
        """Take one receipt: ``subject`` (:func:`bare` is enough) and its fragments."""
        linked, plain, detail = fragments
        outcome = subject.outcome
        verified = outcome == Outcome.VERIFIED
        kind = Outcome.VERIFIED if verified else "other"
        seq = self._seq
        self._seq += 1
        verdict = subject.facts.get("verdict")
        self._verdicts[verdict if isinstance(verdict, str) else "(none)", outcome] += 1
        opened = subject.facts["open"] if "open" in subject.facts else _open_ids(subject)
        for check_id, status in opened:
            self._by_check[check_id] += 1
            if not verified:
                seen = self._examples.setdefault((check_id, outcome), [])
                if len(seen) < CHECK_LINKS:
                    seen.append((seq, subject.name))
            current = self._check_status.get(check_id)
            if current is None or _RANK[status] < _RANK[current]:
                self._check_status[check_id] = status
        if not verified:
            group = outcome if outcome in self._details else Outcome.FAIL
            self._open[group] += 1
            if self._spooled[group] < DETAIL_CAP:
                self._details[group].write(json.dumps([seq, detail]) + "\n")
                self._spooled[group] += 1
        if self._listed[kind] < (VERIFIED_ROW_CAP if verified else OTHER_ROW_CAP):
            # Both forms: the row links to its drill-down only if the page keeps that one.
            pair = [seq, linked, plain] if linked != plain else [seq, plain]
            self._rows.write(json.dumps(pair) + "\n")
            self._listed[kind] += 1
        else:
            self._unlisted[outcome] += 1
        when = subject.display.get("signed_time_ms")
        if isinstance(when, int):
            self._signed += 1
            self._first = when if self._first is None else min(self._first, when)
            self._last = when if self._last is None else max(self._last, when)
            self._times.write(json.dumps([when, outcome, subject.name, seq]) + "\n")
        else:
            self._unsigned += 1

    def _choose(self) -> tuple[set[int], dict[str, int]]:
        """The drill-downs the page shows: worst outcome first, input order within each."""
        if self._kept is None:
            shown: dict[str, int] = {}
            room = DETAIL_CAP
            for outcome in TRIAGE:
                shown[outcome] = min(self._spooled[outcome], room)
                room -= shown[outcome]
            kept: set[int] = set()
            for outcome in TRIAGE:
                spool = self._details[outcome]
                spool.seek(0)
                for _, line in zip(range(shown[outcome]), spool, strict=False):
                    kept.add(json.loads(line)[0])
            self._kept, self._shown = kept, shown
        return self._kept, self._shown

    def _detail_pieces(self) -> Iterator[str]:
        _, shown = self._choose()
        for outcome in TRIAGE:
            spool = self._details[outcome]
            spool.seek(0)
            for _, line in zip(range(shown[outcome]), spool, strict=False):
                yield json.loads(line)[1]

    def _row_pieces(self) -> Iterator[str]:
        kept, _ = self._choose()
        self._rows.seek(0)
        for line in self._rows:
            seq, *forms = json.loads(line)
            yield forms[0] if seq in kept else forms[-1]

    def _check_rows(self) -> list[tuple[str, int, str, str, list[str]]]:
        """The "by check" table: (id, receipts, worst status, severity, linked receipt names).

        Failures first. The names are of receipts whose drill-down the page shows, worst
        outcome first, at most CHECK_LINKS.
        """
        kept, _ = self._choose()
        rows = []
        for check_id, count in self._by_check.items():
            linked = [
                name
                for outcome in TRIAGE
                for seq, name in self._examples.get((check_id, outcome), ())
                if seq in kept
            ]
            status = self._check_status[check_id]
            rows.append((check_id, count, status, severity_of(check_id), linked[:CHECK_LINKS]))
        return sorted(rows, key=lambda row: (_RANK[row[2]], -row[1], row[0]))

    def _timeline(self) -> dict[str, Any]:
        first, last = self._first, self._last
        values: dict[str, Any] = {
            "outcomes": OUTCOMES,
            "colour": COLOUR,
            "unsigned": self._unsigned,
            "signed": self._signed,
            "span": first is not None,
            "dots": [],
            "bins": [],
            "dot_cap": DOT_CAP,
            "min_bin": _MIN_BIN,
            "bin_count": _BINS,
            "bin_width": round(_WIDTH / _BINS, 1),
            "width": _WIDTH,
            "first": first,
            "last": last,
        }
        if first is None or last is None:
            return values
        scale = _WIDTH / max(last - first, 1)
        lane = {o: i for i, o in enumerate(OUTCOMES)}
        self._times.seek(0)
        points = (json.loads(line) for line in self._times)
        if self._signed <= DOT_CAP:
            kept, _ = self._choose()
            values["dots"] = [
                (round((when - first) * scale, 1), lane.get(o, 3), o, name, when, seq in kept)
                for when, o, name, seq in points
            ]
        else:
            counts: Counter[tuple[int, str]] = Counter()
            for when, o, _name, _linked in points:
                counts[min(int((when - first) * scale * _BINS / _WIDTH), _BINS - 1), o] += 1
            peak = max(counts.values())
            values["bins"] = [
                (
                    round(b * _WIDTH / _BINS, 1),
                    lane.get(o, 3),
                    o,
                    n,
                    max(round(_BIN_HEIGHT * n / peak, 1), _MIN_BIN),
                )
                for (b, o), n in sorted(counts.items())
            ]
        return values

    def _verdict_rows(self) -> list[tuple[str, dict[str, int], int]]:
        rows = []
        for verdict in sorted({v for v, _ in self._verdicts}):
            counts = {o: self._verdicts[verdict, o] for o in OUTCOMES}
            rows.append((verdict, counts, sum(counts.values())))
        return rows

    def _notes(self) -> tuple[str, str]:
        unlisted = sum(self._unlisted.values())
        table = (
            f"Every receipt is listed ({sum(self._listed.values())})."
            if not unlisted
            else f"{unlisted} receipt(s) are not listed ("
            + ", ".join(f"{n} {o}" for o, n in sorted(self._unlisted.items()))
            + f"): the table lists at most {VERIFIED_ROW_CAP} VERIFIED receipts and "
            f"{OTHER_ROW_CAP} others; the summary counts every receipt."
        )
        _, shown = self._choose()
        total = sum(self._open.values())
        if not total:
            return table, "Every receipt verified: there is nothing to drill into."
        detailed = sum(shown.values())
        details = (
            f"{detailed} receipt(s), each with every check, worst first: "
            + ", ".join(f"{shown[o]} {o}" for o in TRIAGE if shown[o])
            + " (in input order within each)"
        )
        cut = {o: self._open[o] - shown[o] for o in TRIAGE if self._open[o] > shown[o]}
        if cut:
            details += (
                f"; {sum(cut.values())} more did not verify and are not shown in detail ("
                + ", ".join(f"{n} {o}" for o, n in cut.items())
                + f"): at most {DETAIL_CAP} per report, so run verify on them alone, or use "
                "--format json."
            )
        return table, details + ("" if cut else ".")

    def pieces(
        self, report: Report, settings: Sequence[tuple[str, str]] = (), command: str = ""
    ) -> Iterator[str]:
        """The page, in pieces, from ``report`` (its summary and findings) and the spools.

        ``settings`` are the run's pins and options as (name, value) rows; ``command`` the
        command line the footer names (empty: the footer names the version only).
        """
        summary = report.summary
        worst = next((o for o in reversed(OUTCOMES) if summary.get(o)), Outcome.VERIFIED)
        if report.exit_code == 1 and not summary.get(Outcome.FAIL):
            worst = Outcome.FAIL
        headline = f"{_HEADLINE.get(report.exit_code, 'could not run')} (exit {report.exit_code})"
        table_note, details_note = self._notes()
        yield open_page(
            "sealverify verify report",
            # "checked", not "verified": beside VERIFIED 0 the word would say the opposite
            f"{summary.get('receipts', 0)} receipt(s) checked from their exact bytes: "
            f"{summary.get(Outcome.VERIFIED, 0)} VERIFIED",
            [
                ("summary", "Summary"),
                ("timeline", "Timeline"),
                ("by-check", "By check"),
                ("receipts", "Receipts"),
                ("details", "Receipts that did not verify"),
            ],
        )
        yield template(
            "verify_head.html",
            **self._timeline(),
            summary=summary,
            worst=worst,
            headline=headline,
            verdicts=self._verdict_rows(),
            rederived=summary.get("decision_rederivation", {}),
            settings=list(settings) or [("pins and options", "not recorded in this report")],
            # Passing run checks (--state's history checks, one or two per receipt) are
            # counted, not listed: listed they would bury the failures.
            findings=[
                c
                for c in sorted(report.findings, key=lambda c: (c.status, c.id, c.location))
                if not counted_pass(c)
            ],
            passed_note=passed_findings_note(report.findings),
            listed=sum(self._listed.values()),
            by_check=self._check_rows(),
        )
        yield from self._row_pieces()
        yield template("verify_middle.html", table_note=table_note, details_note=details_note)
        yield from self._detail_pieces()
        yield template("verify_close.html", version=__version__, command=command)
        yield close()


def render(report: Report) -> str:
    """A whole verify report held in memory (the CLI streams the same page instead)."""
    with VerifyPage() as page:
        for subject in report.subjects:
            page.add(subject, receipt_fragments(subject))
        return "".join(page.pieces(report))
