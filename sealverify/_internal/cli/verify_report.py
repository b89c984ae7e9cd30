"""``verify``'s report, assembled as the run's results arrive: spooled, counted, then written.

Every format is spooled as receipts complete (flat memory): a JSON subject, a subject's SARIF
results or JUnit case (rendered where the receipt was verified), or a table row's cells. Only
small things stay: counts, column widths, SARIF rule ids, the JUnit failure count. The report
is then the head rendered from the tally and the findings, the spool, and the tail.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from sealverify import Check, Report, Subject
from sealverify._internal.cli import spooled
from sealverify._internal.cli.common import say, summary_first, table_view, write_result
from sealverify._internal.cli.spooled import SubjectSpool
from sealverify._internal.receipts.verify import build_report_from_tally
from sealverify._internal.reports.formats import table, terminal
from sealverify._internal.reports.formats.protocol import Ending, PageRows, Piece
from sealverify._internal.results.repeats import Findings

if TYPE_CHECKING:
    from sealverify._internal.history import facts  # a run with --state only
    from sealverify._internal.history.state import HistoryStore

__all__ = ["VerifyReport"]


class VerifyReport:
    """The results of one run in ``fmt``, as they arrive (:meth:`add`), then the report."""

    def __init__(self, fmt: str) -> None:
        self.found_facts: list[facts.ReceiptFacts] = []
        self.tally: Counter[tuple[str, str]] = Counter()  # (outcome, label) -> receipts
        self.rederived: Counter[str] = Counter()  # replay.decision status -> receipts
        # Run-level findings, flat: a log of a million blank lines keeps the first few, counted.
        self.findings = Findings()
        # every format, as it arrives
        self.spool = SubjectSpool(fmt, "verify", "receipts", in_memory=spooled.IN_MEMORY)

    def __enter__(self) -> VerifyReport:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.spool.__exit__(kind, exc, tb)

    def add(
        self,
        result: Subject | Check,
        fragment: Piece,
        found: facts.ReceiptFacts | None,
    ) -> None:
        """One result of the run: a subject is spooled and counted, a finding kept."""
        if isinstance(result, Subject):
            self.spool.take(result, fragment)
            self.tally[result.outcome, result.label] += 1
            self.rederived[str(result.facts.get("rederivation"))] += 1
        else:
            self.findings.append(result)
        if found is not None:
            self.found_facts.append(found)

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
            + table.published_keys_note(summary, option=False)
        )

    def write(
        self,
        report: Report,
        output: Path | None,
        color: str,
        page_rows: PageRows,
    ) -> None:
        """Write ``report`` around the spool to stdout or ``output``; the summary to stderr.

        ``page_rows`` gives the html page's settings rows and the command line it names.
        """
        line = self.summary_line(report)
        first = summary_first(output)  # a pipe to a pager: said before, not over its screen
        ending = Ending(line if first else "", page_rows, table_view(output, color))
        if first:
            say(line)
        write_result(self.spool.pieces(report, ending), output)
        if not first:
            say(line)


def _located(check: Check, state: str) -> Check:
    return Check(check.id, check.status, check.reason, f"history:{state}", check.data)
