"""The JUnit XML format: one test case per subject; failed checks become its failure."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from sealverify.report import Report

__all__ = ["render"]


def render(report: Report) -> str:
    """Render as a JUnit XML test suite, deterministic (no timestamps or durations)."""
    cases: list[str] = []
    failures = 0
    for subject in report.subjects:
        failing = [c for c in subject.sorted_checks() if c.status == "fail"]
        unevaluated = [c for c in subject.sorted_checks() if c.status == "not-evaluated"]
        body = ""
        if failing:
            failures += 1
            text = "\n".join(f"{c.id}: {c.reason}" for c in failing)
            body = (
                f"<failure message={quoteattr(subject.outcome)} type={quoteattr(failing[0].id)}>"
                f"{escape(text)}</failure>"
            )
        elif subject.outcome not in ("VERIFIED", "ADMISSIBLE", "PASS", "CLEAN"):
            failures += 1
            text = "\n".join(f"{c.id}: {c.reason}" for c in unevaluated) or subject.outcome
            body = f"<failure message={quoteattr(subject.outcome)}>{escape(text)}</failure>"
        cases.append(
            f"    <testcase classname={quoteattr('sealverify.' + report.command)} "
            f"name={quoteattr(subject.name)}>{body}</testcase>"
        )
    for finding in report.findings:
        if finding.status == "fail":
            failures += 1
            cases.append(
                f"    <testcase classname={quoteattr('sealverify.' + report.command)} "
                f"name={quoteattr(finding.location or finding.id)}>"
                f"<failure message={quoteattr(finding.id)}>{escape(finding.reason)}</failure>"
                "</testcase>"
            )
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<testsuites>\n  <testsuite name={quoteattr('sealverify ' + report.command)} "
        f'tests="{len(cases)}" failures="{failures}" errors="0">\n'
    )
    scalars = sorted(
        (key, str(value))
        for key, value in report.summary.items()
        if isinstance(value, (str, int)) and not isinstance(value, bool)
    )
    if scalars:
        # The run summary (for verify: counts and "decision_replay: not evaluated").
        head += (
            "    <properties>\n"
            + "".join(
                f"      <property name={quoteattr(k)} value={quoteattr(v)}/>\n" for k, v in scalars
            )
            + "    </properties>\n"
        )
    return head + "\n".join(cases) + ("\n" if cases else "") + "  </testsuite>\n</testsuites>\n"
