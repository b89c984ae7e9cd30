"""``explain`` knows every outcome word a command prints, and every entry says what to do."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from sealverify._internal import catalogue
from sealverify._internal.approvals import tokens as approval_tokens
from sealverify._internal.cli.main import cli
from sealverify._internal.forensics.verdict import VERDICTS
from sealverify._internal.mcp import frame_report
from sealverify._internal.results.model import Status
from sealverify._internal.results.outcomes import NOT_MEDIATED, RECEIPT_OUTCOMES
from tests.conftest import ROOT


def _printed_words() -> list[str]:
    """The outcome words the commands print, read from the code where it names them."""
    words = [*RECEIPT_OUTCOMES, NOT_MEDIATED]  # verify
    words += [v.passed for v in approval_tokens.VOCABULARIES.values()] + ["UNPINNED"]  # approval
    words += [frame_report.ADMISSIBLE, frame_report.REFUSE]  # frame, partition emit
    # diff: the verdict's key and the words it prints before the comma or colon
    words += [*VERDICTS, *(re.split(r"[,:]", text)[0] for text in VERDICTS.values())]
    words += ["INTACT", "BROKEN", "UNANCHORED"]  # chain (receipts/chain_report.py VOCABULARY)
    words += ["VERIFIED", "UNPINNED", "FAILED"]  # partition verify
    words += ["CLEAN", "VIOLATIONS"]  # lint
    words += ["PASS", "FAIL"]  # skill verify
    words += ["passthrough", "forward", "block", "reject", "error"]  # decide routes
    words += ["added", "removed", "changed", "unchanged", "drift", "capture-difference"]
    words += ["digested", "not-evaluated"]  # tools digest
    words += list(Status)  # every check's status
    return words


def test_the_word_list_reads_the_code() -> None:
    # Guards the list above: these names are what the commands print today.
    assert set(RECEIPT_OUTCOMES) == {"VERIFIED", "REDUCED", "UNPINNED", "FAIL"}
    assert "same-invocation" in VERDICTS and "receipt-integrity-failed" in VERDICTS
    assert set(Status) >= {"pass", "fail", "not-evaluated", "waived"}


@pytest.mark.parametrize("word", sorted(set(_printed_words())))
def test_explain_knows_every_printed_outcome_word(word: str) -> None:
    result = CliRunner().invoke(cli, ["explain", word])
    assert result.exit_code == 0, (word, result.output)
    assert "What it means:" in result.stdout and "What to do:" in result.stdout


def test_the_issue_s_words_in_any_spelling() -> None:
    for word in (
        "VERIFIED",
        "verified",
        "Not-Mediated",
        "not_mediated",
        "same invocation",
        "different invocation",
        "DECLINE",
        "UNANCHORED",
    ):
        assert catalogue.lookup_outcome(word) is not None, word
    assert catalogue.lookup_outcome("binding.request-sha256") is None
    unpinned = catalogue.lookup_outcome("unpinned")
    assert unpinned is not None
    commands = {c for sense in unpinned.senses for c in sense.commands}
    assert {"verify", "approval", "partition verify"} <= commands


def test_an_outcome_word_as_json() -> None:
    result = CliRunner().invoke(cli, ["explain", "INTACT", "--format", "json"])
    (entry,) = json.loads(result.stdout)
    assert entry["word"] == "INTACT" and entry["senses"][0]["commands"] == ["chain"]
    assert set(entry["senses"][0]) == {"commands", "page", "means", "todo"}


def test_every_outcome_sense_is_written_for_a_person_and_names_a_page() -> None:
    for word in catalogue.outcomes().values():
        for sense in word.senses:
            assert (ROOT / "docs" / sense.page).is_file(), (word.word, sense.page)
            for text in (sense.means, sense.todo):
                assert "`" not in text and "data." not in text and ".py" not in text, text


def test_every_id_says_what_it_means_and_what_to_do() -> None:
    for entry in catalogue.entries().values():
        means, todo = catalogue.what_to_do(entry)
        assert means and todo, entry.id
        # Field notes (a check's data members) live in docs/report-format.md, not here.
        assert not re.search(r"`data\.", entry.full + entry.short), entry.id
    result = CliRunner().invoke(cli, ["explain", "binding.request-sha256"])
    text = result.stdout
    assert "What it means:" in text and "What to do:" in text and "`" not in text


def test_field_notes_are_in_the_report_format_page() -> None:
    page = (ROOT / "docs" / "report-format.md").read_text(encoding="utf-8")
    for check_id in ("approval.member", "chain.break", "history.config-rollback"):
        assert f"| `{check_id}` |" in page.split("## Check `data`: field notes")[1]


def test_the_html_report_shows_no_markdown_backticks(tmp_path) -> None:
    page = tmp_path / "r.html"
    demo = ROOT / "fixtures" / "demo"
    result = CliRunner().invoke(
        cli,
        [
            "verify",
            str(demo / "receipts"),
            "--trust",
            str(demo / "trust.json"),
            "--format",
            "html",
            "--output",
            str(page),
        ],
    )
    assert result.exit_code == 1, result.output
    explained = re.findall(r'<div class="explain">(.*?)</div>', page.read_text(encoding="utf-8"))
    assert explained and not [text for text in explained if "`" in text]
