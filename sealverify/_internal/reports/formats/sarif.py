"""The SARIF 2.1.0 format: one result per failed or unevaluated check, byte-stable."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from operator import attrgetter
from typing import Any

from sealverify._internal.reports.filenames import uri_path
from sealverify._internal.reports.formats.grid import View
from sealverify._internal.reports.formats.jsonfmt import dumps
from sealverify._internal.reports.formats.protocol import (
    AroundStream,
    Context,
    Piece,
    Stream,
    counted,
)
from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, Report, Status, Subject, sorted_among
from sealverify._version import __version__

_PASS, _INFO = Status.PASS, Status.INFO

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
_RESULT_STATUSES = frozenset(("fail", "not-evaluated", "waived", "info"))  # maybe results
# Info checks SARIF still reports, as notes: a published key accepted by
# --allow-published-keys must stay named in every format (docs/trust.md), and so must a pin
# that matched no receipt, which makes every receipt read as forged (docs/verify.md).
_NOTED_INFO = frozenset({ids.AUTHORITY_PUBLISHED_KEY, ids.AUTHORITY_PIN_UNMATCHED})
_LINE_OF_TEXT = re.compile(r"line (\d+)")  # lint's location in a text file
# How ``render`` lays out the results list (sorted keys, two-space indent: ``runs[0]`` holds
# ``properties``, ``results``, ``tool`` in that order, so the rules come after the results and
# the results sit at depth four). The spooled form below rebuilds the same bytes.
_RESULTS_EMPTY = '\n      "results": [],\n'
_RESULTS_OPEN = '\n      "results": [\n        '
_RESULTS_CLOSE = "\n      ],\n"
_INDENT = "\n        "
RESULT_SEPARATOR = "," + _INDENT


def _file_and_line(subject_name: str, check: Check) -> tuple[str, int]:
    """The file a result is in and its line.

    ``FILE:LINE`` for a log line, lint's ``line N`` in a text file, else line 1, where the
    document that is the subject starts.
    """
    path, _, line = subject_name.rpartition(":")
    if path and line.isdigit():
        return path, int(line)
    text_line = _LINE_OF_TEXT.fullmatch(check.location)
    return subject_name, int(text_line.group(1)) if text_line else 1


def _location(subject_name: str, check: Check) -> dict[str, Any]:
    path, line = _file_and_line(subject_name, check)
    physical = {
        "artifactLocation": {"uri": uri_path(path)},
        "region": {"startLine": line},
    }
    location: dict[str, Any] = {"physicalLocation": physical}
    if check.location:
        location["logicalLocations"] = [{"fullyQualifiedName": check.location}]
    return location


def _level(check: Check) -> str | None:
    """The SARIF level of a check that becomes a result, or None for one that does not."""
    if check.status == _INFO:
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
    return _results(subject, _resulting(subject))


def _resulting(subject: Subject) -> list[Check]:
    """The checks of ``subject`` that become results, in sorted check order."""
    return [check for check in sorted_among(subject.checks, _RESULT_STATUSES) if _level(check)]


def _results(subject: Subject, checks: list[Check]) -> list[dict[str, Any]]:
    return [
        {
            "ruleId": check.id,
            "level": _level(check),
            "message": {"text": f"{subject.outcome}: {check.reason}"},
            "locations": [_location(subject.name, check)],
        }
        for check in checks
    ]


def _rule(rule_id: str) -> dict[str, Any]:
    """A rule from the catalogue: descriptions, default level, help, and its page's URI."""
    from sealverify._internal import (
        catalogue,  # loaded by SARIF runs only: no other format needs it
    )

    entry = catalogue.lookup(rule_id)
    explain = f"sealverify explain {rule_id}"
    source = f"docs/{entry.page if entry else 'checks.md'} in the sealverify source"
    if entry is None:  # an id the catalogue lacks (tests/catalogue/test_catalogue.py prevents it)
        return {"id": rule_id, "help": {"text": explain}}
    rule: dict[str, Any] = {
        "id": rule_id,
        "shortDescription": {"text": entry.short},
        "fullDescription": {"text": entry.full},
        "defaultConfiguration": {"level": entry.severity},
        "help": {
            "text": f"{entry.full}\n\nMore: `{explain}`, or {source}.",
            "markdown": f"{entry.full}\n\nMore: `{explain}`, or {source}.",
        },
        "properties": {"tags": ["sealverify", rule_id.split(".")[0]]},
    }
    uri = catalogue.help_uri(entry)
    if uri is not None:
        rule["helpUri"] = uri
    return rule


def _document(
    report: Report, rule_ids: Iterable[str], results: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    from sealverify._internal import catalogue

    driver: dict[str, Any] = {
        "name": "sealverify",
        "version": __version__,
        "rules": [_rule(rule) for rule in sorted(set(rule_ids))],
    }
    home = catalogue.information_uri()
    if home is not None:
        driver["informationUri"] = home
    return {
        "$schema": _SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
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
    return dumps(document) + "\n"


def subject_text(subject: Subject) -> str:
    """A subject's results as they appear inside :func:`render`'s results list; maybe empty.

    Each result is indented for its place and they are joined by :data:`RESULT_SEPARATOR`.
    JSON strings never hold a raw newline, so re-indenting line starts is exact.
    """
    checks = _resulting(subject)  # only their ids and locations are in the results
    plain = _STR.issuperset(map(type, chain.from_iterable(map(_ID_AND_LOCATION, checks))))
    return RESULT_SEPARATOR.join(
        dumps(result, plain=plain).replace("\n", _INDENT) for result in _results(subject, checks)
    )


# A result holds its check's id and location, a message made by an f-string, a level word, a
# URI made by ``quote`` and an int line: all exact ``str`` and ``int`` but the id and location.
# So a subject whose checks' ids and locations are exact ``str`` has only plain results
# (jsonfmt._plain), told without walking each (an int beyond orjson's range still falls back
# to the standard library inside ``dumps``).
_STR = frozenset((str,))
_ID_AND_LOCATION = attrgetter("id", "location")


def rule_subject(subject: Subject) -> Subject:
    """What a spooled SARIF run keeps of a subject once its :func:`subject_text` is spooled.

    Its name, outcome and label, and one bare check for each rule id it reports.
    """
    # The passing checks (most of a receipt's) are passed over by identity first: a status
    # that is one of the words is its Status member.
    unpassed = [c for c in subject.checks if c.status is not _PASS]
    ids = sorted({c.id: c.status for c in unpassed if c.status != _PASS and _level(c)}.items())
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
    text = dumps(_document(report, ids, [])) + "\n"
    before, marker, after = text.partition(_RESULTS_EMPTY)
    assert marker, "the SARIF layout changed: update the spooled form"
    head = before + _RESULTS_OPEN
    head += "".join(dumps(result).replace("\n", _INDENT) + RESULT_SEPARATOR for result in found)
    return head, _RESULTS_CLOSE + after


class _Stream(AroundStream):
    """Each subject's results spooled; the state is the rule ids they report."""

    separator = RESULT_SEPARATOR.encode()

    def __init__(self, context: Context) -> None:
        super().__init__(context, render)
        self.rules: set[str] = set()  # the rule ids of the spooled results

    def whole_when_empty(self) -> bool:
        return False

    def take(self, subject: Subject, piece: Piece) -> bytes | None:
        data = super().take(subject, piece)
        if data:  # rule_subject: one bare check per rule id
            self.rules.update(c.id for c in subject.checks)
        return data

    def around(self, bare: Report) -> tuple[str, str]:
        if not self.spooled:  # no subject has a result: the findings' are the whole list
            return render(bare), ""
        return render_around_results(bare, self.rules)


class SarifFormat:
    """The sarif format's side of the streaming interface (``protocol.Format``)."""

    name = "sarif"
    page = False
    coloured = False

    def render(self, report: Report, view: View | None = None) -> str:
        return render(report)

    def fragment(self, subject: Subject, context: Context) -> tuple[Subject, Piece]:
        rules = rule_subject(subject)
        if context.layout == "receipts":  # and what the summary counts
            rules = Subject(rules.name, rules.outcome, rules.checks, counted(subject), rules.label)
        return rules, subject_text(subject)

    def stream(self, context: Context) -> Stream:
        return _Stream(context)

    def document(self, value: Any, text: Callable[[], str]) -> str:
        return text()  # only json lists a listing's members


FORMAT = SarifFormat()
