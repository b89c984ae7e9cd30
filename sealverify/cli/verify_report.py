"""``verify``'s report, assembled as the run's results arrive: spooled, counted, then written.

Every format is spooled as receipts complete (flat memory): a JSON subject, a subject's SARIF
results or JUnit case (rendered where the receipt was verified), or a table row's cells. Only
small things stay: counts, column widths, SARIF rule ids, the JUnit failure count. The report
is then the head rendered from the tally and the findings, the spool, and the tail.
"""

from __future__ import annotations

import itertools
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING

from sealverify import Check, Report, Subject
from sealverify.cli.common import say, summary_first, table_view, write_result
from sealverify.history import facts
from sealverify.receipts.verify import build_report_from_tally
from sealverify.reports.caps import Findings
from sealverify.reports.formats import View, jsonfmt, jsonl, junit, sarif, terminal
from sealverify.reports.formats.grid import wrap
from sealverify.reports.visible import visible

if TYPE_CHECKING:
    from sealverify.history.state import HistoryStore
    from sealverify.reports.formats.html.verify_page import VerifyPage

__all__ = ["VerifyReport"]

_SEPARATOR = {
    "json": jsonfmt.SUBJECT_SEPARATOR.encode(),
    "jsonl": b"",  # each line ends in its own newline
    "sarif": sarif.RESULT_SEPARATOR.encode(),
    "junit": b"\n",
}


class VerifyReport:
    """The results of one run in ``fmt``, as they arrive (:meth:`add`), then the report."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.found_facts: list[facts.ReceiptFacts] = []
        self.tally: Counter[tuple[str, str]] = Counter()  # (outcome, label) -> receipts
        self.rederived: Counter[str] = Counter()  # replay.decision status -> receipts
        # Run-level findings, flat: a log of a million blank lines keeps the first few, counted.
        self.findings = Findings()
        self.spool: IO[bytes] = _byte_spool()
        self.spooled = self.failures = 0  # fragments in the spool; JUnit cases that failed
        self.rules: set[str] = set()  # SARIF rule ids of the spooled results
        self.page: VerifyPage | None = None
        if fmt == "html":  # spools of its own
            from sealverify.reports.formats.html.verify_page import VerifyPage

            self.page = VerifyPage(_spool)

    def __enter__(self) -> VerifyReport:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.spool.close()

    def add(
        self,
        result: Subject | Check,
        fragment: bytes | str | tuple[str, ...] | None,
        found: facts.ReceiptFacts | None,
    ) -> None:
        """One result of the run: a subject is spooled and counted, a finding kept."""
        if isinstance(result, Subject):
            self._spool(result, fragment)
            self.tally[result.outcome, result.label] += 1
            self.rederived[str(result.facts.get("rederivation"))] += 1
        else:
            self.findings.append(result)
        if found is not None:
            self.found_facts.append(found)

    def _spool(self, result: Subject, fragment: bytes | str | tuple[str, ...] | None) -> None:
        fmt = self.fmt
        if self.page is not None and isinstance(fragment, tuple):  # html rows and detail
            self.page.add(result, fragment)
        elif fmt == "table" and isinstance(fragment, tuple):  # tab-separated cells
            self.spool.write(("\t".join(fragment) + "\n").encode())
        elif isinstance(fragment, bytes | str) and fragment:  # "": no SARIF results
            self.spool.write(_SEPARATOR[fmt] if self.spooled else b"")
            self.spool.write(fragment if isinstance(fragment, bytes) else fragment.encode())
            self.spooled += 1
            if fmt == "junit" and isinstance(fragment, str) and junit.case_failed(fragment):
                self.failures += 1
            elif fmt == "sarif":  # rule_subject: one bare check per rule id
                self.rules.update(c.id for c in result.checks)

    def stage(self, store: HistoryStore) -> None:
        """Check the run's facts against ``--state`` and stage them; its checks are findings."""
        for check in store.check_and_stage(self.found_facts):
            self.findings.append(check if check.location else _located(check, store.where))

    def report(self, allow_published_keys: bool) -> Report:
        return build_report_from_tally(
            self.tally,
            self.findings.checks(),
            rederived=self.rederived,
            allow_published_keys=allow_published_keys,
        )

    def summary_line(self, report: Report) -> str:
        """The run's one summary line on stderr, short enough to stay one line on a terminal.

        VERIFIED always, the other outcomes when some receipt has them (FAIL with its NOT
        MEDIATED count), the failed and passing run findings, and how many decisions
        sealverify's kernel model re-derived (a different one named): the full counts are in
        the report and the table's closing line.
        """
        summary = report.summary
        failed = sum(f.status == "fail" for f in self.findings)  # each alone makes the exit 1
        # Passing run checks (--state's history checks) are counted here, not in a table.
        passing = sum(map(terminal.counted_pass, self.findings))
        counts = [f"{summary['VERIFIED']} VERIFIED"]
        counts += [f"{summary[o]} {o}" for o in ("REDUCED", "UNPINNED", "FAIL") if summary[o]]
        if summary["not_mediated"]:
            counts[-1] += f" ({summary['not_mediated']} NOT MEDIATED)"
        if failed:
            counts.append(f"{failed} failed run finding(s)")
        if passing:
            counts.append(f"{passing} passing run check(s)")
        rederived = summary.get("decision_rederivation") or {}
        different = rederived.get("fail", 0)
        return (
            f"sealverify verify: {summary['receipts']} receipt(s): {', '.join(counts)}; "
            f"{rederived.get('pass', 0)}/{summary['receipts']} decisions re-derived"
            + (f", {different} different" if different else "")
            + (
                "; published keys allowed: not for real evidence"
                if summary.get("allow_published_keys")
                else ""
            )
        )

    def write(
        self,
        report: Report,
        output: Path | None,
        color: str,
        page_rows: Callable[[], tuple[list[tuple[str, str]], str]],
    ) -> None:
        """Write ``report`` around the spool to stdout or ``output``; the summary to stderr.

        ``page_rows`` gives the html page's settings rows and the command line it names.
        """
        line = self.summary_line(report)
        spool = self.spool
        spool.seek(0)
        if self.page is not None:
            with self.page:
                rows, command = page_rows()
                _write(self.page.pieces(report, rows, command), output, line)
        elif self.fmt == "table":
            view = table_view(output, color)
            text = _fitted_table(report, spool, view)
            if summary_first(output):  # a pipe to a pager: it shows the summary last
                said = wrap(visible(line), view.columns, "  ")
                text = itertools.chain(text, [t + "\n" for t in said])
            # click strips colour from text written to a pipe; bytes are written as they are
            _write((t.encode() for t in text) if view.colour else text, output, line)
        else:
            head, tail = self._around(report)
            body = iter(lambda: spool.read(1 << 20), b"")
            _write(itertools.chain([head], body, [tail]), output, line)

    def _around(self, report: Report) -> tuple[str, str]:
        """The text of ``render(report, fmt)`` before and after its spooled fragments.

        ``report`` has no subjects: its subjects' fragments are in the spool, and for SARIF
        ``rules`` holds their rule ids, for JUnit ``failures`` counts their failed cases.
        """
        fmt, spooled = self.fmt, self.spooled
        if fmt == "json":
            return jsonfmt.render_around_subjects(report)
        if fmt == "jsonl":
            return "", jsonl.tail_text(report)
        if fmt == "sarif":
            if not spooled:  # no subject has a result: the findings' are the whole list
                return sarif.render(report), ""
            return sarif.render_around_results(report, self.rules)
        cases = junit.finding_cases(report.command, report.findings)  # after the subjects'
        failed = sum(map(junit.case_failed, cases))  # a run note is a case, not a failure
        head = junit.render_head(report, spooled + len(cases), self.failures + failed)
        return head, ("\n" if spooled else "") + "".join(c + "\n" for c in cases) + junit.FOOTER


def _spool() -> IO[str]:
    return tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n")


def _byte_spool() -> IO[bytes]:
    """The fragments as UTF-8, encoded once: copied to the output as they are, never decoded."""
    return tempfile.TemporaryFile("w+b")


def _spooled_rows(spool: IO[bytes]) -> Iterator[tuple[str, ...]]:
    """The spooled rows from the start: five cells each, eight on a terminal (Settings.brief)."""
    # receipt_cells puts every cell on one line with tabs escaped (\x09): a tab and a line end
    # separate cells and rows exactly (the spool neither writes nor reads translated newlines).
    spool.seek(0)
    return (tuple(line[:-1].decode().split("\t")) for line in spool)


def _fitted_table(report: Report, spool: IO[bytes], view: View) -> Iterator[str]:
    """The table within ``view``'s width (reports/formats/terminal.py), line by line."""
    rows = lambda: _spooled_rows(spool)  # noqa: E731 -- read afresh on each call
    for text in terminal.lines(rows, report.findings, view.columns, view.colour):
        yield text + "\n"


def _write(pieces: Iterable[str | bytes], output: Path | None, summary: str) -> None:
    """:func:`emit` for a report assembled from spooled pieces."""
    first = summary_first(output)  # a pipe to a pager: said before, not over its screen
    if first:
        say(summary)
    write_result(pieces, output)
    if not first:
        say(summary)


def _located(check: Check, state: str) -> Check:
    return Check(check.id, check.status, check.reason, f"history:{state}", check.data)
