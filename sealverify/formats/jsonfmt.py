"""The JSON report format: sorted keys, two-space indent, UTF-8, byte-stable."""

from __future__ import annotations

import dataclasses
import json

from sealverify.report import Report, Subject

__all__ = ["SUBJECT_SEPARATOR", "render", "render_around_subjects", "subject_text"]

# How ``render`` lays out the subjects list (two-space indent, subjects at depth two): the
# spooled form below rebuilds the same bytes from subjects rendered one at a time.
_SUBJECTS_EMPTY = '\n  "subjects": [],\n'
_SUBJECTS_OPEN = '\n  "subjects": [\n    '
_SUBJECTS_CLOSE = "\n  ],\n"
SUBJECT_SEPARATOR = ",\n    "


def render(report: Report) -> str:
    """Serialize the report as documented in docs/report-format.md."""
    return json.dumps(report.to_dict(), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def subject_text(subject: Subject) -> str:
    """One subject as it appears inside :func:`render`'s subjects list (indented for it).

    JSON strings never hold a raw newline, so re-indenting line starts is exact.
    """
    text = json.dumps(subject.to_dict(), sort_keys=True, indent=2, ensure_ascii=False)
    return text.replace("\n", "\n    ")


def render_around_subjects(report: Report) -> tuple[str, str]:
    """The text of :func:`render` before and after the subjects of a report with subjects.

    ``head + SUBJECT_SEPARATOR.join(subject_text(s) for s in subjects) + tail`` is
    ``render(report)`` byte for byte; a long ``verify`` run spools the subjects meanwhile.
    Only the report's summary, findings and exit code are read, not its subjects.
    """
    text = render(dataclasses.replace(report, subjects=()))
    head, found, tail = text.partition(_SUBJECTS_EMPTY)
    assert found, "the report layout changed: update the spooled JSON form"
    return head + _SUBJECTS_OPEN, _SUBJECTS_CLOSE + tail
