"""The JUnit XML format: one test case per subject; failed checks become its failure.

Always well-formed XML 1.0: every text from evidence passes through
:func:`sealverify._internal.reports.visible.visible` before it is escaped for XML, so the characters
XML 1.0 forbids (C0 controls but tab and line ends, lone surrogates, U+FFFE, U+FFFF; section
2.2, production Char) never reach the document. A character reference would not help: ``&#1;``
is not well-formed either. The report is read by people in a CI's test view, so the bidi and
invisible characters are shown escaped as in the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sealverify._internal.reports.formats.grid import View
from sealverify._internal.reports.formats.protocol import (
    AroundStream,
    Context,
    Piece,
    Stream,
    counted,
)
from sealverify._internal.reports.visible import visible
from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, Report, Status, Subject, sorted_among
from sealverify._internal.results.outcomes import Outcome

_FAIL, _NOT_EVALUATED = Status.FAIL, Status.NOT_EVALUATED

__all__ = ["FOOTER", "case_failed", "finding_cases", "render", "render_head", "subject_case"]

# Outcomes that are a full pass in their command (chain INTACT, an approval VALID or a v1
# DECLINE read as such; exit 0 in the README table); every other outcome is a failure.
_PASSING = frozenset(
    (
        Outcome.VERIFIED,
        Outcome.ADMISSIBLE,
        Outcome.PASS,
        Outcome.CLEAN,
        Outcome.INTACT,
        Outcome.VALID,
        Outcome.DECLINE,
    )
)
FOOTER = "  </testsuite>\n</testsuites>\n"
_SHOWN = frozenset(("fail", "not-evaluated"))  # the statuses of the checks a case names


# The XML escapes are written here: xml.sax.saxutils imports urllib.request (and with it
# http.client, ssl and email: about 20 ms of every JUnit run's start-up) for two replacements.
# tests/reports/test_junit_wellformed.py holds them equal to saxutils.escape and saxutils.quoteattr.


def escape(text: str) -> str:
    """XML character data: ``&``, ``<`` and ``>`` escaped (as xml.sax.saxutils.escape).

    ``text`` is already visible (:func:`visible`): it holds no character XML 1.0 forbids.
    """
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def quoteattr(text: str) -> str:
    """A quoted XML attribute value of ``text`` made visible (as xml.sax.saxutils.quoteattr).

    ``&``, ``<``, ``>`` and the line and tab controls become references; the value is
    quoted with ``"`` unless it holds one and no ``'`` (then ``'``), and a ``"`` inside a
    value that holds both is ``&quot;``.
    """
    value = escape(visible(text))  # "&" first, so no reference made here is escaped again
    value = value.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return '"' + value.replace('"', "&quot;") + '"'


def _lines(checks: Iterable[Check]) -> str:
    """One visible line per check, ``id: reason``, for a failure's text."""
    return "\n".join(visible(f"{c.id}: {c.reason}") for c in checks)


def subject_case(command: str, subject: Subject) -> str:
    """One subject's ``<testcase>`` line (without its line end), as :func:`render` writes it."""
    checks = sorted_among(subject.checks, _SHOWN)
    failing = [c for c in checks if c.status == _FAIL]
    unevaluated = [c for c in checks if c.status == _NOT_EVALUATED]
    body = ""
    if failing:
        text = _lines(failing)
        body = (
            f"<failure message={quoteattr(subject.outcome)} type={quoteattr(failing[0].id)}>"
            f"{escape(text)}</failure>"
        )
    elif subject.outcome not in _PASSING:
        text = _lines(unevaluated) or visible(subject.outcome)
        body = f"<failure message={quoteattr(subject.outcome)}>{escape(text)}</failure>"
    return (
        f"    <testcase classname={quoteattr('sealverify.' + command)} "
        f"name={quoteattr(subject.name)}>{body}</testcase>"
    )


def finding_cases(command: str, findings: Iterable[Check]) -> list[str]:
    """A ``<testcase>`` line for each failed finding and each run note.

    A failed finding is a failure; a run note (a pin that matched no receipt) is a passing
    case whose ``<system-out>`` says it, so a CI's test view names it beside the failures it
    explains.
    """
    cases = []
    for finding in findings:
        text = escape(visible(finding.reason))
        if finding.status == _FAIL:
            body = f"<failure message={quoteattr(finding.id)}>{text}</failure>"
        elif finding.id == ids.AUTHORITY_PIN_UNMATCHED:
            body = f"<system-out>{escape(finding.id)}: {text}</system-out>"
        else:
            continue
        cases.append(
            f"    <testcase classname={quoteattr('sealverify.' + command)} "
            f"name={quoteattr(finding.location or finding.id)}>{body}</testcase>"
        )
    return cases


def case_failed(case: str) -> bool:
    """Whether a test case line holds a failure.

    Names, messages and texts are escaped (``<`` is ``&lt;``), so the element is the only
    ``<failure`` a case line can hold.
    """
    return "<failure " in case


def render_head(report: Report, tests: int, failures: int) -> str:
    """The XML declaration, the suite's opening tag with its counts, and the run summary."""
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<testsuites>\n  <testsuite name={quoteattr('sealverify ' + report.command)} "
        f'tests="{tests}" failures="{failures}" errors="0">\n'
    )
    flat: list[tuple[str, object]] = []
    for key, value in report.summary.items():
        if isinstance(value, dict):  # one level: verify's decision_rederivation counts
            flat.extend((f"{key}.{sub}", item) for sub, item in value.items())
        else:
            flat.append((key, value))
    scalars = sorted(
        (key, ("true" if value else "false") if isinstance(value, bool) else str(value))
        for key, value in flat
        if isinstance(value, (str, int))
    )
    if scalars:
        # The run summary (for verify: counts, decision_rederivation.pass/fail/..., and
        # whether published keys were allowed, spelled as JSON spells booleans).
        head += (
            "    <properties>\n"
            + "".join(
                f"      <property name={quoteattr(k)} value={quoteattr(v)}/>\n" for k, v in scalars
            )
            + "    </properties>\n"
        )
    return head


def render(report: Report) -> str:
    """Render as a JUnit XML test suite, deterministic (no timestamps or durations).

    ``render_head(report, tests, failures)``, then each subject's and each failed finding's
    case on its own line, then :data:`FOOTER`; a long ``verify`` run spools the cases.
    """
    cases = [subject_case(report.command, s) for s in report.subjects]
    cases += finding_cases(report.command, report.findings)
    failures = sum(map(case_failed, cases))
    head = render_head(report, len(cases), failures)
    return head + "\n".join(cases) + ("\n" if cases else "") + FOOTER


class _Stream(AroundStream):
    """Each subject's test case spooled; the state counts the failed ones."""

    separator = b"\n"

    def __init__(self, context: Context) -> None:
        super().__init__(context, render)
        self.failures = 0  # spooled cases that failed

    def whole_when_empty(self) -> bool:
        return False

    def take(self, subject: Subject, piece: Piece) -> bytes | None:
        data = super().take(subject, piece)
        if data:
            self.failures += case_failed(str(piece))
        return data

    def around(self, bare: Report) -> tuple[str, str]:
        cases = finding_cases(bare.command, bare.findings)  # after the subjects'
        failed = sum(map(case_failed, cases))  # a run note is a case, not a failure
        head = render_head(bare, self.spooled + len(cases), self.failures + failed)
        tail = ("\n" if self.spooled else "") + "".join(c + "\n" for c in cases) + FOOTER
        return head, tail


class JunitFormat:
    """The junit format's side of the streaming interface (``protocol.Format``)."""

    name = "junit"
    page = False
    coloured = False

    def render(self, report: Report, view: View | None = None) -> str:
        return render(report)

    def fragment(self, subject: Subject, context: Context) -> tuple[Subject, Piece]:
        case = subject_case(context.command, subject)
        if context.layout == "receipts":  # the parent keeps only what the summary counts
            bare = Subject(
                subject.name, subject.outcome, facts=counted(subject), label=subject.label
            )
            return bare, case
        return subject, case

    def stream(self, context: Context) -> Stream:
        return _Stream(context)

    def document(self, value: Any, text: Callable[[], str]) -> str:
        return text()  # only json lists a listing's members


FORMAT = JunitFormat()
