"""The html page of every report without a page of its own: summary, findings, subjects."""

from __future__ import annotations

import json

from sealverify._internal.reports.formats.html.env import render as template
from sealverify._internal.reports.formats.html.page import close, open_page
from sealverify._internal.results.model import Report

__all__ = ["render"]


def render(report: Report) -> str:
    """Summary, run findings, and each subject with its facts and checks."""
    summary = [
        (key, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
        for key, value in sorted(report.summary.items())
    ]
    subjects = [
        (
            subject,
            [
                (k, v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))
                for k, v in sorted(subject.facts.items())
            ],
        )
        for subject in report.subjects
    ]
    return (
        open_page(
            f"sealverify {report.command} report",
            f"{len(report.subjects)} subject(s); exit {report.exit_code}",
            [("summary", "Summary"), ("subjects", "Subjects")],
        )
        + template("generic.html", report=report, summary=summary, subjects=subjects)
        + close()
    )
