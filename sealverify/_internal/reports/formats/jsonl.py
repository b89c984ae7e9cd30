"""The JSON Lines format: one line per subject, then the findings, then one summary line."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from sealverify._internal.reports.formats.grid import View
from sealverify._internal.reports.formats.jsonfmt import dumps_compact, subject_body
from sealverify._internal.reports.formats.protocol import AroundStream, Context, Piece, Stream
from sealverify._internal.reports.formats.table import receipt_row_subject
from sealverify._internal.results.model import Check, Report, Subject

__all__ = [
    "FORMAT",
    "JsonlFormat",
    "finding_line",
    "lines",
    "parse_check",
    "parse_subject",
    "render",
    "subject_line",
    "summary_line",
    "tail_text",
]

# Every line is one JSON object with a "type": "subject" (the json format's subject object
# plus "type"), "finding" (a report-level finding: a check), "summary" (last, exactly once:
# what the json format holds besides subjects and findings). A stream without its summary
# line did not complete.


def _line(kind: str, value: dict[str, Any]) -> str:
    """One line: ``"type"`` first (``grep '^{"type":"summary"'`` works), then ``value`` sorted.

    Compact UTF-8 (``jsonfmt.dumps_compact``: ``json.dumps`` with compact separators).
    """
    return _typed(kind, dumps_compact(value), bool(value))


def _typed(kind: str, body: str, members: bool) -> str:
    return f'{{"type":"{kind}"' + ("," + body[1:] if members else "}") + "\n"


def subject_line(subject: Subject) -> str:
    """One subject as its line (ending in a newline); a subject's dict is never empty."""
    return _typed("subject", subject_body(subject), True)


def finding_line(check: Check) -> str:
    """One report-level finding as its line."""
    return _line("finding", check.to_dict())


def summary_line(report: Report) -> str:
    """The closing line: schema, command, exit code and summary counts."""
    return _line(
        "summary",
        {
            "schema": report.schema,
            "command": report.command,
            "exit_code": report.exit_code,
            "summary": report.summary,
        },
    )


def tail_text(report: Report) -> str:
    """What follows the subjects' lines: the findings' lines and the summary line."""
    return "".join(map(finding_line, report.findings)) + summary_line(report)


def render(report: Report) -> str:
    """Render as JSON Lines: subjects in input order, then findings, then the summary."""
    return "".join(map(subject_line, report.subjects)) + tail_text(report)


def lines(report: Report) -> Iterator[str]:
    """:func:`render`, a line at a time."""
    yield from map(subject_line, report.subjects)
    yield tail_text(report)


def parse_check(value: dict[str, Any]) -> Check:
    """The check a subject's or finding's ``checks`` entry was written from."""
    return Check(
        str(value["id"]),
        value["status"],
        str(value["reason"]),
        str(value.get("location", "")),
        dict(value.get("data", {})),
    )


def parse_subject(value: dict[str, Any]) -> Subject:
    """The subject a ``"type": "subject"`` line was written from (checks in sorted order)."""
    checks: Iterable[dict[str, Any]] = value.get("checks", [])
    return Subject(
        str(value["name"]),
        str(value["outcome"]),
        tuple(parse_check(c) for c in checks),
        dict(value.get("facts", {})),
        str(value.get("label", "")),
    )


class _Stream(AroundStream):
    """Each subject's line spooled (it ends in its own newline); the findings' lines after."""

    def whole_when_empty(self) -> bool:
        return False

    def around(self, bare: Report) -> tuple[str, str]:
        return "", tail_text(bare)


class JsonlFormat:
    """The jsonl format's side of the streaming interface (``protocol.Format``)."""

    name = "jsonl"
    page = False
    coloured = False

    def render(self, report: Report, view: View | None = None) -> str:
        return render(report)

    def fragment(self, subject: Subject, context: Context) -> tuple[Subject, Piece]:
        if context.layout == "receipts":  # the parent keeps only what the summary counts
            return receipt_row_subject(subject), subject_line(subject)
        return subject, subject_line(subject)

    def stream(self, context: Context) -> Stream:
        return _Stream(context, render)

    def document(self, value: Any, text: Callable[[], str]) -> str:
        return text()  # only json lists a listing's members


FORMAT = JsonlFormat()
