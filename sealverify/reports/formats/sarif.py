"""The SARIF 2.1.0 format: one result per failed or unevaluated check, byte-stable."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import quote

from sealverify._version import __version__
from sealverify.reports.model import Check, Report, Subject

__all__ = [
    "RESULT_SEPARATOR",
    "finding_results",
    "render",
    "render_around_results",
    "results_for_subject",
    "rule_subject",
    "subject_text",
]

_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"fail": "error", "not-evaluated": "warning", "waived": "note"}
# Info checks SARIF still reports, as notes: a published key accepted by
# --allow-published-keys must stay named in every format (docs/trust.md).
_NOTED_INFO = frozenset({"authority.published-key"})
# Commands whose check ids are documented on their own page (one table, no per-id anchors).
_HELP_PAGE = {"verify": "docs/verify.md"}
# How ``render`` lays out the results list (sorted keys, two-space indent: ``runs[0]`` holds
# ``properties``, ``results``, ``tool`` in that order, so the rules come after the results and
# the results sit at depth four). The spooled form below rebuilds the same bytes.
_RESULTS_EMPTY = '\n      "results": [],\n'
_RESULTS_OPEN = '\n      "results": [\n        '
_RESULTS_CLOSE = "\n      ],\n"
_INDENT = "\n        "
RESULT_SEPARATOR = "," + _INDENT


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)


def _location(subject_name: str, check: Check) -> dict[str, Any]:
    uri, _, line = subject_name.rpartition(":")
    physical: dict[str, Any]
    if uri and line.isdigit():
        physical = {
            "artifactLocation": {"uri": quote(uri, safe="/:@#")},
            "region": {"startLine": int(line)},
        }
    else:
        physical = {"artifactLocation": {"uri": quote(subject_name, safe="/:@#")}}
    location: dict[str, Any] = {"physicalLocation": physical}
    if check.location:
        location["logicalLocations"] = [{"fullyQualifiedName": check.location}]
    return location


def _level(check: Check) -> str | None:
    """The SARIF level of a check that becomes a result, or None for one that does not."""
    if check.status == "info":
        return "note" if check.id in _NOTED_INFO else None
    return _LEVEL.get(check.status)


def finding_results(findings: Iterable[Check]) -> list[dict[str, Any]]:
    """The results of a report's findings (its failed or unevaluated ones), in order."""
    return [
        {
            "ruleId": check.id,
            "level": _level(check),
            "message": {"text": check.reason},
            "locations": [_location(check.location or "(run)", check)],
        }
        for check in findings
        if _level(check)
    ]


def results_for_subject(subject: Subject) -> list[dict[str, Any]]:
    """The results of one subject: its failed or unevaluated checks, in sorted check order."""
    return [
        {
            "ruleId": check.id,
            "level": _level(check),
            "message": {"text": f"{subject.outcome}: {check.reason}"},
            "locations": [_location(subject.name, check)],
        }
        for check in subject.sorted_checks()
        if _level(check)
    ]


def _document(
    report: Report, rule_ids: Iterable[str], results: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    command = report.command
    page = _HELP_PAGE.get(command)
    # helpUri must be an absolute URI in SARIF 2.1.0; the docs ship with the project, so the
    # rule points at its page in plain text instead of inventing a URL.
    rules = [
        {"id": rule, "help": {"text": f"sealverify {page or 'docs/checks.md'}: {rule}"}}
        for rule in sorted(set(rule_ids))
    ]
    return {
        "$schema": _SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "sealverify",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "results": list(results),
                "properties": _properties(report),
            }
        ],
    }


def _properties(report: Report) -> dict[str, Any]:
    properties: dict[str, Any] = {"command": report.command, "exitCode": report.exit_code}
    if "allow_published_keys" in report.summary:  # the run summary says the option was on
        properties["allowPublishedKeys"] = report.summary["allow_published_keys"]
    return properties


def render(report: Report) -> str:
    """Render as SARIF 2.1.0: findings' results, then subjects'; rules are the distinct ids."""
    results = finding_results(report.findings)
    for subject in report.subjects:
        results.extend(results_for_subject(subject))
    document = _document(report, (r["ruleId"] for r in results), results)
    return _dumps(document) + "\n"


def subject_text(subject: Subject) -> str:
    """A subject's results as they appear inside :func:`render`'s results list; maybe empty.

    Each result is indented for its place and they are joined by :data:`RESULT_SEPARATOR`.
    JSON strings never hold a raw newline, so re-indenting line starts is exact.
    """
    return RESULT_SEPARATOR.join(
        _dumps(result).replace("\n", _INDENT) for result in results_for_subject(subject)
    )


def rule_subject(subject: Subject) -> Subject:
    """What a spooled SARIF run keeps of a subject once its :func:`subject_text` is spooled.

    Its name, outcome and label, and one bare check for each rule id it reports.
    """
    ids = sorted({c.id: c.status for c in subject.checks if _level(c)}.items())
    checks = tuple(Check(rule, status, "") for rule, status in ids)
    return Subject(subject.name, subject.outcome, checks, label=subject.label)


def render_around_results(report: Report, subject_rule_ids: Iterable[str]) -> tuple[str, str]:
    """The text of :func:`render` before and after the subjects' results.

    For a report whose subjects report at least one result, ``head + RESULT_SEPARATOR.join(
    t for t in map(subject_text, subjects) if t) + tail`` is ``render(report)`` byte for byte,
    given ``subject_rule_ids`` (the ids of their results, e.g. from :func:`rule_subject`).
    The findings' results open the list, in the head. The report's subjects are not read.
    """
    found = finding_results(report.findings)
    ids = {r["ruleId"] for r in found} | set(subject_rule_ids)
    text = _dumps(_document(report, ids, [])) + "\n"
    before, marker, after = text.partition(_RESULTS_EMPTY)
    assert marker, "the SARIF layout changed: update the spooled form"
    head = before + _RESULTS_OPEN
    head += "".join(_dumps(result).replace("\n", _INDENT) + RESULT_SEPARATOR for result in found)
    return head, _RESULTS_CLOSE + after
