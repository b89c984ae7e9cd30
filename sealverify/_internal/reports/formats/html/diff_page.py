"""The html report of ``diff``: both sides, bytes marked, identities, `_meta` keys, verdict."""

from __future__ import annotations

import json
from typing import Any

from sealverify._internal.reports.formats.html.env import render as template
from sealverify._internal.reports.formats.html.page import close, open_page
from sealverify._internal.results.model import Report
from sealverify._internal.results.outcomes import Outcome

__all__ = ["render"]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render(report: Report) -> str:
    """One comparison: the verdict first, then the two sides, bytes, identities and `_meta`."""
    subject = report.subjects[0]
    facts = subject.facts
    sides = [
        (label.upper(), [(k, _text(v)) for k, v in sorted(facts.get(label, {}).items())])
        for label in ("a", "b")
    ]
    a = subject.display.get("a", {}).get("text")
    b = subject.display.get("b", {}).get("text")
    identities = [
        {"name": name, **row} for name, row in sorted(facts.get("identities", {}).items())
    ]
    verdict = facts.get("verdict")
    tone = (
        "same"
        if report.exit_code == 0
        else ("warn" if verdict == Outcome.SAME_ACTION else "differ")
    )
    body = template(
        "diff.html",
        report=report,
        subject=subject,
        facts=facts,
        sides=sides,
        frames=(a, b) if a is not None and b is not None else None,
        one_frame=[(label, text) for label, text in (("A", a), ("B", b)) if text is not None],
        identities=identities,
        meta_keys=facts.get("meta_keys", []),
        changes=facts.get("meaning", {}).get("changes", []),
        bytes_facts=facts.get("bytes", {}),
        retry=facts.get("retry", {}),
        receipt_fields=facts.get("receipt_fields", []),
        tone=tone,
        differing=[row["name"] for row in identities if row.get("equal") is False],
        equal=[row["name"] for row in identities if row.get("equal") is True],
    )
    return (
        open_page(
            "sealverify diff report",
            subject.name,
            [
                ("verdict", "Verdict"),
                ("sides", "Sides"),
                ("bytes", "Bytes"),
                ("identities", "Identities"),
                ("meta-keys", "_meta keys"),
                ("checks", "All checks"),
            ],
        )
        + body
        + close()
    )
