"""tools, diff and partition emit decide their subjects' words by the one rule, ``decide``.

Each declares its vocabulary beside its report (docs/architecture.md, "One verdict rule");
the words a report carries are ``decide(checks, vocabulary)`` over the checks it shows.
"""

from __future__ import annotations

from sealverify import DiffOptions, ToolsSource, compare_report, diff_inputs, digest_report
from sealverify._internal.forensics import verdict
from sealverify._internal.forensics.diff_run import DiffInput
from sealverify._internal.partition import emit_report as partition_report
from sealverify._internal.partition.emit_report import partition_emit
from sealverify._internal.results.model import Status, fail, passed
from sealverify._internal.results.outcomes import Outcome, decide
from sealverify._internal.tools import compare
from sealverify._internal.tools import report as tools_report
from sealverify._internal.wire.framing import frame_of
from tests.conftest import ROOT

FIXTURES = ROOT / "fixtures"
# The checks a digest's word is decided over; a reader-environment flag fails the run beside it.
_DIGEST_IDS = {
    "tools.digest.computed",
    "tools.digest.not-representable",
    "tools.set.computed",
    "tools.set.not-computed",
}


def _tools(name: str) -> ToolsSource:
    return ToolsSource((FIXTURES / "tools" / name).read_bytes(), name)


def test_tools_digest_words_are_decided_over_each_digest_check() -> None:
    report = digest_report(_tools("tools.json"))
    assert report.subjects
    for subject in report.subjects:
        judged = [c for c in subject.checks if c.id in _DIGEST_IDS]
        assert len(judged) == 1, subject.checks
        assert subject.outcome == decide(judged, tools_report.VOCABULARY).outcome


def test_tools_compare_words_are_decided_by_where_a_tool_is_found() -> None:
    report = compare_report(_tools("tools.json"), _tools("tools-later.json"))
    words = set()
    for subject in report.subjects:
        side = "both" if "digest_a" in subject.facts else None
        if side is None:  # in one reading only: its one failed check names the side
            side = "only-b" if subject.checks[0].reason.endswith("(only in B)") else "only-a"
        assert subject.outcome == decide(subject.checks, compare.VOCABULARIES[side]).outcome
        words.add(subject.outcome)
    assert Outcome.UNCHANGED in words and len(words) > 1  # the fixture drifts


def test_a_diff_verdict_is_decided_and_a_failed_integrity_check_refuses() -> None:
    receipts = FIXTURES / "demo" / "receipts"
    a = DiffInput((receipts / "verified-allow.receipt.json").read_bytes(), "a.json")
    b = DiffInput((receipts / "fail-edited-arguments.receipt.json").read_bytes(), "b.json")
    report = diff_inputs(a, b, DiffOptions())
    (subject,) = report.subjects
    failed = any(c.status == Status.FAIL for c in subject.checks)
    code = report.summary["verdict"]
    assert failed == (code == Outcome.RECEIPT_INTEGRITY_FAILED)
    assert decide(subject.checks, verdict.vocabulary(Outcome.SAME_ACTION)).outcome == (
        code if failed else Outcome.SAME_ACTION
    )
    # The rule itself: a failed check beats whatever the comparison found.
    broken = (passed("diff.bytes", "equal"), fail("diff.integrity", "hash differs"))
    assert decide(broken, verdict.vocabulary(Outcome.IDENTICAL_BYTES)).outcome == (
        Outcome.RECEIPT_INTEGRITY_FAILED
    )


def test_a_partition_emit_refusal_is_decided() -> None:
    data = (FIXTURES / "frames" / "refused-meta-null.bin").read_bytes()
    emitted = partition_emit(frame_of(data, "stdio"))
    assert emitted.report is not None
    (subject,) = emitted.report.subjects
    assert subject.outcome == Outcome.REFUSE
    assert subject.outcome == decide(subject.checks, partition_report.VOCABULARY).outcome
    admitted = partition_emit(
        frame_of((FIXTURES / "partition" / "frame.bin").read_bytes(), "stdio")
    )
    assert admitted.report is None and admitted.exit_code == 0
