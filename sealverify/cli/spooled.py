"""Long reports written with flat memory: each subject rendered as it comes, then spooled.

A command with one subject per input element (``approval``: a token per line; ``lint``: a
file each) holds no subject once it is rendered: its text goes to a temporary file, and only
counts stay (SARIF rule ids, JUnit failures). The report is then the head rendered from the
summary and findings, the spool, and the tail: byte for byte what ``render`` gives for the
whole report (tests/test_flat_memory.py holds that for every format). html needs the whole
report for its charts, so it keeps the subjects, as before.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterator
from types import TracebackType
from typing import IO

from sealverify.reports.formats import View, jsonfmt, jsonl, junit, render, sarif, table
from sealverify.reports.formats.grid import Notes
from sealverify.reports.model import Report, Subject

__all__ = ["SubjectSpool"]

_SEPARATOR = {
    "json": jsonfmt.SUBJECT_SEPARATOR,
    "jsonl": "",  # each line ends in its own newline
    "sarif": sarif.RESULT_SEPARATOR,
    "junit": "\n",
    "table": "\n\n",
}


class SubjectSpool:
    """Subjects of one report in ``fmt``, rendered as added; :meth:`pieces` writes the report."""

    def __init__(
        self, fmt: str, command: str, layout: str = "detail", view: View | None = None
    ) -> None:
        self.fmt, self.command, self.layout = fmt, command, layout
        self.view = view or View()  # a table's width and colour (cli/common.py table_view)
        self._notes = Notes()  # reasons repeated across the detail blocks, said at the end
        self.count = 0  # subjects added
        self._spooled = 0  # fragments in the spool
        self._rules: set[str] = set()
        self._failures = 0
        self._kept: list[Subject] = []  # html only
        self._file: IO[bytes] = tempfile.TemporaryFile("w+b")  # noqa: SIM115 (closed on exit)

    def __enter__(self) -> SubjectSpool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._file.close()

    def add(self, subject: Subject) -> None:
        self.count += 1
        fragment = self._fragment(subject)
        if fragment is None:
            self._kept.append(subject)
        elif fragment:
            if self._spooled:
                self._file.write(_SEPARATOR[self.fmt].encode())
            self._file.write(fragment.encode())
            self._spooled += 1

    def _fragment(self, subject: Subject) -> str | None:
        if self.fmt == "json":
            return jsonfmt.subject_text(subject)
        if self.fmt == "jsonl":
            return jsonl.subject_line(subject)
        if self.fmt == "sarif":
            self._rules.update(c.id for c in sarif.rule_subject(subject).checks)
            return sarif.subject_text(subject)
        if self.fmt == "junit":
            case = junit.subject_case(self.command, subject)
            self._failures += junit.case_failed(case)
            return case
        if self.fmt == "table" and self.layout == "detail":
            return table.detail_block(subject, self.view, self._notes)
        return None

    def pieces(self, report: Report) -> Iterator[str | bytes]:
        """The whole report: ``report`` (its subjects left out) around the spooled ones."""
        bare = dataclasses.replace(report, subjects=())
        if self._kept or (self._spooled == 0 and self.fmt not in ("sarif", "junit", "jsonl")):
            kept = dataclasses.replace(report, subjects=tuple(self._kept))
            yield self._encoded(render(kept, self.fmt, self.view))
            return
        head, tail = self._around(bare)
        yield self._encoded(head)
        self._file.seek(0)
        yield from iter(lambda: self._file.read(1 << 20), b"")
        yield self._encoded(tail)

    def _encoded(self, text: str) -> str | bytes:
        """Coloured text as bytes: click would strip its colour from text written to a pipe."""
        return text.encode() if self.fmt == "table" and self.view.colour else text

    def _around(self, bare: Report) -> tuple[str, str]:
        if self.fmt == "json":
            return jsonfmt.render_around_subjects(bare)
        if self.fmt == "jsonl":
            return "", jsonl.tail_text(bare)
        if self.fmt == "sarif":
            if not self._spooled:
                return sarif.render(bare), ""
            return sarif.render_around_results(bare, self._rules)
        if self.fmt == "junit":
            cases = junit.finding_cases(bare.command, bare.findings)
            failed = sum(map(junit.case_failed, cases))  # a run note is no failure
            tests, failures = self._spooled + len(cases), self._failures + failed
            head = junit.render_head(bare, tests, failures)
            return head, ("\n" if self._spooled else "") + "".join(
                c + "\n" for c in cases
            ) + junit.FOOTER
        findings = table.findings_table(bare, self.view)  # table, detail layout
        notes = "\n".join(self._notes.lines(self.view))  # complete: every subject was added
        return (findings + "\n\n" if findings else ""), ("\n\n" + notes if notes else "") + "\n"
