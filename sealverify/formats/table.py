"""The human table format: one row per subject, or a detailed block per subject."""

from __future__ import annotations

import functools
from typing import Any

from tabulate import tabulate

from sealverify.report import Report, Subject

__all__ = ["receipt_row_subject", "render"]


def _flat(prefix: str, value: Any, out: list[tuple[str, str]]) -> None:
    if isinstance(value, dict) and value:
        for key in sorted(value):
            _flat(f"{prefix}.{key}" if prefix else key, value[key], out)
    elif isinstance(value, list):
        out.append((prefix, ", ".join(str(v) for v in value) if value else "(none)"))
    else:
        out.append((prefix, "(none)" if value is None else str(value)))


def _detail(subject: Subject) -> str:
    facts: list[tuple[str, str]] = []
    _flat("", subject.facts, facts)
    lines = [
        f"== {subject.name}: {subject.outcome}" + (f" ({subject.label})" if subject.label else "")
    ]
    if facts:
        lines.append(tabulate(facts, tablefmt="plain", disable_numparse=True))
    rows = [(c.status.upper(), c.id, c.reason, c.location) for c in subject.sorted_checks()]
    if rows:
        lines.append("")
        lines.append(
            tabulate(
                rows,
                headers=["status", "check", "reason", "at"],
                tablefmt="simple",
                disable_numparse=True,
            )
        )
    return "\n".join(lines)


def _row(subject: Subject) -> tuple[str, str, str]:
    failing = [c for c in subject.sorted_checks() if c.status in ("fail", "not-evaluated")]
    shown = "; ".join(f"{c.id}: {c.reason}" for c in failing if c.status == "fail")[:300]
    outcome = subject.outcome + (f" ({subject.label})" if subject.label else "")
    return subject.name, outcome, shown


def receipt_row_subject(subject: Subject) -> Subject:
    """The part of a receipt subject the receipts table shows; renders the identical row.

    Kept: name, outcome, label, family, verdict and the failing or not-evaluated checks other
    than ``replay.decision`` (which every receipt carries and no row shows). A long ``verify``
    run then holds a few hundred bytes per receipt for this format (docs/performance.md).
    """
    family, verdict = subject.facts.get("family"), subject.facts.get("verdict")
    shared = all(isinstance(v, str | None) for v in (family, verdict))
    facts: dict[str, Any] = (
        _row_facts("family" in subject.facts, family, "verdict" in subject.facts, verdict)
        if shared
        else {k: subject.facts[k] for k in ("family", "verdict") if k in subject.facts}
    )
    return Subject(
        subject.name,
        subject.outcome,
        tuple(
            c
            for c in subject.checks
            if c.status in ("fail", "not-evaluated") and c.id != "replay.decision"
        ),
        facts,
        subject.label,
    )


@functools.lru_cache(maxsize=256)
def _row_facts(has_family: bool, family: Any, has_verdict: bool, verdict: Any) -> dict[str, Any]:
    # Receipts share a handful of (family, verdict) pairs: one read-only dict per pair.
    facts: dict[str, Any] = {}
    if has_family:
        facts["family"] = family
    if has_verdict:
        facts["verdict"] = verdict
    return facts


def _receipt_row(subject: Subject) -> tuple[str, str, str, str, str]:
    """One receipt: outcome, family, verdict, and why it is not VERIFIED (or what was left out)."""
    checks = subject.sorted_checks()
    failing = [c for c in checks if c.status == "fail"]
    if failing:
        why = "; ".join(f"{c.id}: {c.reason}" for c in failing)
    else:
        why = "; ".join(
            f"{c.id}: {c.reason}"
            for c in checks
            if c.status == "not-evaluated" and c.id != "replay.decision"
        )
    outcome = subject.outcome + (f" ({subject.label})" if subject.label else "")
    family = str(subject.facts.get("family") or "-")
    verdict = str(subject.facts.get("verdict") or "-")
    return subject.name, outcome, family, verdict, why[:300]


def render(report: Report) -> str:
    """Render for a person; the summary line goes to stderr separately (see the CLI)."""
    parts: list[str] = []
    if report.findings:
        parts.append(
            tabulate(
                [(c.status.upper(), c.id, c.reason, c.location) for c in report.findings],
                headers=["status", "finding", "reason", "at"],
                tablefmt="simple",
                disable_numparse=True,
            )
        )
    if report.layout == "detail":
        parts.extend(_detail(s) for s in report.subjects)
    elif report.layout == "receipts" and report.subjects:
        parts.append(
            tabulate(
                [_receipt_row(s) for s in report.subjects],
                headers=["receipt", "outcome", "family", "verdict", "why"],
                tablefmt="simple",
                disable_numparse=True,
            )
        )
        counts = ", ".join(
            f"{report.summary.get(name, 0)} {name}"
            for name in ("VERIFIED", "REDUCED", "UNPINNED", "FAIL")
        )
        parts.append(
            f"{len(report.subjects)} receipt(s): {counts}; "
            "decision replay: not evaluated (needs the pinned kernel)"
        )
    elif report.subjects:
        parts.append(
            tabulate(
                [_row(s) for s in report.subjects],
                headers=["subject", "outcome", "failing checks"],
                tablefmt="simple",
                disable_numparse=True,
            )
        )
    return "\n\n".join(parts) + "\n"
