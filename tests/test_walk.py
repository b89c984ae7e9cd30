"""Walked trees never leave the tree: links out of it, loops and dangling links exit 2, named."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent
RECEIPT = ROOT / "fixtures" / "demo" / "receipts" / "verified-block.receipt.json"


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    inner, outer = tmp_path / "tree", tmp_path / "elsewhere"
    inner.mkdir()
    outer.mkdir()
    (inner / "r.json").write_bytes(RECEIPT.read_bytes())
    (outer / "secret.json").write_bytes(RECEIPT.read_bytes())
    (outer / "notes.md").write_text("the key is inert\n")
    return inner, outer


@pytest.mark.parametrize("command", ["verify", "lint"])
def test_a_directory_link_out_of_the_tree_is_refused_by_name(command, tree) -> None:
    inner, outer = tree
    (inner / "out").symlink_to(outer, target_is_directory=True)
    result = _run(command, str(inner))
    assert result.exit_code == 2, result.output
    assert "out" in result.stderr and "outside the tree" in result.stderr
    assert "secret.json" not in result.stdout


@pytest.mark.parametrize("command", ["verify", "lint"])
def test_a_file_link_out_of_the_tree_is_refused_by_name(command, tree) -> None:
    inner, outer = tree
    (inner / "copy.json").symlink_to(outer / "secret.json")
    result = _run(command, str(inner))
    assert result.exit_code == 2
    assert "copy.json" in result.stderr and "outside the tree" in result.stderr


@pytest.mark.parametrize("command", ["verify", "lint"])
def test_a_link_loop_is_exit_2_never_an_internal_error(command, tree) -> None:
    inner, _ = tree
    (inner / "loop").symlink_to(inner, target_is_directory=True)
    result = _run(command, str(inner))
    assert result.exit_code == 2
    assert "loop" in result.stderr and "internal error" not in result.stderr


def test_lint_dangling_link_is_exit_2(tree) -> None:
    inner, outer = tree
    (inner / "gone.md").symlink_to(outer / "missing.md")
    result = _run("lint", str(inner))
    assert result.exit_code == 2
    assert "gone.md" in result.stderr


def test_a_link_inside_the_tree_is_followed(tree) -> None:
    inner, _ = tree
    (inner / "sub").mkdir()
    (inner / "sub" / "again.json").symlink_to(inner / "r.json")
    result = _run("verify", str(inner), "--format", "json")
    assert result.exit_code != 2, result.output
    assert "again.json" in result.stdout


def test_chain_receipts_directory_link_out_is_refused(tree, tmp_path: Path) -> None:
    _, outer = tree
    receipts = tmp_path / "receipts"
    receipts.mkdir()
    name = "receipt-00000000000000000001-" + "a" * 64 + ".json"
    (receipts / name).symlink_to(outer / "secret.json")
    log = tmp_path / "log.txt"
    log.write_text("")
    result = _run("chain", str(log), "--receipts", str(receipts))
    assert result.exit_code == 2
    assert name in result.stderr and "outside the tree" in result.stderr
