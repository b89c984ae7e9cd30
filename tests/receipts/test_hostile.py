"""Hostile values anywhere in real-shaped evidence give findings, never a crash (U1)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sealverify_testkit.mintfixtures import demo_receipts

from sealverify._internal.cli.main import cli
from sealverify._internal.receipts.verify import verify_receipt
from tests.helpers.hostile import scalar_mutants


def test_verify_never_crashes_and_never_verifies_a_hostile_receipt() -> None:
    text = demo_receipts()["verified-allow.receipt.json"].decode()
    mutants = scalar_mutants(text)
    assert len(mutants) > 500
    for mutant in mutants:
        subject = verify_receipt(mutant.encode(), "mutant")
        assert subject.outcome in {"FAIL", "UNPINNED", "REDUCED"}  # never VERIFIED unpinned


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "@"],
        ["diff", "@", "@"],
        ["lint", "@"],  # lint: a receipt that is not strict JSON is unreadable (exit 2)
    ],
)
def test_commands_report_hostile_receipts_without_internal_errors(
    args: list[str], tmp_path
) -> None:
    text = demo_receipts()["verified-block.receipt.json"].decode()
    runner = CliRunner()
    for mutant in scalar_mutants(text, every=7):
        path = tmp_path / "m.json"
        path.write_text(mutant)
        result = runner.invoke(cli, [a.replace("@", str(path)) for a in args])
        assert result.exception is None or isinstance(result.exception, SystemExit), mutant[:80]
        allowed = (0, 1, 2) if args[0] == "lint" else (0, 1, 3, 4)
        assert result.exit_code in allowed, result.output[-300:]


def test_hostile_tool_listing_is_a_finding(tmp_path) -> None:
    listing = (
        '{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object",'
        '"properties":{"n":{"type":"integer","maximum":10}}}}]}'
    )
    runner = CliRunner()
    for mutant in scalar_mutants(listing):
        path = tmp_path / "tools.json"
        path.write_text(mutant)
        for profile in ("heldfast", "rugsnare"):
            result = runner.invoke(cli, ["tools", "digest", str(path), "--profile", profile])
            assert result.exception is None or isinstance(result.exception, SystemExit)
            assert result.exit_code in (0, 1, 2)


def test_deep_yaml_frontmatter_is_a_finding(tmp_path) -> None:
    skill = tmp_path / "demo" / "SKILL.md"
    skill.parent.mkdir()
    skill.write_text("---\nname: " + "[" * 3000 + "]" * 3000 + "\n---\n")
    listing = tmp_path / "entry.json"
    listing.write_text('{"uri":"skill://demo","frontmatter":{"name":"demo"},"resources":[]}')
    result = CliRunner().invoke(cli, ["skill", "verify", "--listing", str(listing), str(skill)])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code == 1
    assert "skill.frontmatter.unreadable" in result.output
