"""The SARIF 2.1.0 format: one result per failed or unevaluated check, byte-stable."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from sealverify import __version__
from sealverify.report import Check, Report

__all__ = ["render"]

_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"fail": "error", "not-evaluated": "warning"}
# Commands whose check ids are documented on their own page (one table, no per-id anchors).
_HELP_PAGE = {"verify": "docs/verify.md"}


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


def render(report: Report) -> str:
    """Render as SARIF 2.1.0; rules are the distinct check ids, sorted."""
    results: list[dict[str, Any]] = []
    rule_ids: set[str] = set()
    for check in report.findings:
        if check.status in _LEVEL:
            rule_ids.add(check.id)
            results.append(
                {
                    "ruleId": check.id,
                    "level": _LEVEL[check.status],
                    "message": {"text": check.reason},
                    "locations": [_location(check.location or "(run)", check)],
                }
            )
    for subject in report.subjects:
        for check in subject.sorted_checks():
            if check.status not in _LEVEL:
                continue
            rule_ids.add(check.id)
            results.append(
                {
                    "ruleId": check.id,
                    "level": _LEVEL[check.status],
                    "message": {"text": f"{subject.outcome}: {check.reason}"},
                    "locations": [_location(subject.name, check)],
                }
            )
    page = _HELP_PAGE.get(report.command)
    # helpUri must be an absolute URI in SARIF 2.1.0; the docs ship with the project, so the
    # rule points at its page in plain text instead of inventing a URL.
    rules = [
        {"id": rule, "help": {"text": f"sealverify {page or 'docs/checks.md'}: {rule}"}}
        for rule in sorted(rule_ids)
    ]
    document = {
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
                "results": results,
                "properties": {"command": report.command, "exitCode": report.exit_code},
            }
        ],
    }
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
