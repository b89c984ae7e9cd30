"""The table's "why": the decisive checks first, whole words, a mark where it is cut."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.reports.formats.table import WHY_WIDTH, decisive_reason, receipt_cells
from sealverify._internal.results.model import Subject, fail, not_evaluated

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"


def test_most_severe_family_comes_first_whatever_the_ids() -> None:
    checks = [
        fail("binding.args-hash", "args_hash differs"),
        fail("legacy.guard-target-omits-meta", "legacy projection"),
        fail("signature.object-b", "signature invalid"),
        fail("bypass.not-mediated", "seal was not in the path"),
    ]
    why = decisive_reason(checks)
    assert why.startswith("bypass.not-mediated: seal was not in the path; signature.object-b")
    assert why.index("binding.args-hash") < why.index("legacy.")


def test_checks_that_do_not_fit_are_counted_not_cut() -> None:
    checks = [fail(f"binding.b{i}", "word " * 20) for i in range(6)]
    why = decisive_reason(checks)
    assert len(why) <= WHY_WIDTH
    assert why.endswith(" more)")
    shown = why.count("binding.b")
    assert why.endswith(f"(+{6 - shown} more)")
    assert "word word" in why and not why.split(" (+")[0].endswith("wor")


def test_one_long_reason_is_cut_at_a_word_with_an_ellipsis() -> None:
    reason = " ".join(f"segment{i:03d}" for i in range(80))
    why = decisive_reason([fail("signature.config", reason), fail("binding.x", "short")])
    assert len(why) <= WHY_WIDTH
    head, more = why.rsplit(" (+", 1)
    assert more == "1 more)"
    assert head.endswith("…")
    last_word = head[:-1].split()[-1]
    assert last_word.startswith("segment") and len(last_word) == len("segment000")


def test_short_reasons_are_shown_whole_without_marks() -> None:
    why = decisive_reason([fail("authority.config-key", "no pin"), fail("kernel.identity", "x")])
    assert why == "authority.config-key: no pin; kernel.identity: x"
    assert decisive_reason([]) == ""


def test_receipt_row_falls_back_to_not_evaluated_checks() -> None:
    subject = Subject(
        "r.json",
        "UNPINNED",
        (
            not_evaluated("replay.decision", "hidden"),
            not_evaluated("authority.config-key", "no pin"),
        ),
        {"family": "v3", "verdict": "BLOCK"},
    )
    assert receipt_cells(subject)[-1] == "authority.config-key: no pin"


def test_demo_table_shows_the_signature_failure_first() -> None:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(  # wide: the reason is not cut
        cli,
        ["verify", str(DEMO / "receipts"), "--trust", str(DEMO / "trust.json")],
        catch_exceptions=False,
    )
    row = next(line for line in result.stdout.splitlines() if "fail-edited-arguments" in line)
    why = row.split("ALLOW", 1)[1].strip()
    assert why.startswith("signature.object-b: signature invalid")
    assert why.endswith("more)")
