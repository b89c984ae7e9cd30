"""Walked trees never leave the tree: links out of it, loops and dangling links exit 2, named."""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.cli.skill_cmd import read_tree
from sealverify._internal.run.walk import MAX_DEPTH, glob_matches, walk_tree
from sealverify.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
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


def _deep_tree(top: Path, levels: int) -> None:
    """``top/d/d/.../d/r.json``, made one level at a time by descriptor (no long paths)."""
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.close(os.open("r.json", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
    finally:
        os.close(fd)


def _remove_deep(top: Path) -> None:
    """Remove a tree made by ``_deep_tree`` one level at a time (shutil.rmtree recurses, and
    pytest's clean-up of old temporary folders would hit the recursion limit on it)."""
    while (top / "d").is_dir():
        inner = top / "d" / "d"
        if inner.is_dir():
            os.rename(inner, top / "next")
        for leaf in (top / "d").iterdir():
            leaf.unlink()
        os.rmdir(top / "d")
        if (top / "next").is_dir():
            os.rename(top / "next", top / "d")
    shutil.rmtree(top)


@pytest.fixture
def deep_tree() -> Iterator[Callable[[Path, int], None]]:
    """``make(top, levels)``: a ``_deep_tree`` removed again after the test."""
    made: list[Path] = []

    def make(top: Path, levels: int) -> None:
        made.append(top)
        _deep_tree(top, levels)

    yield make
    for top in made:
        _remove_deep(top)


@pytest.mark.parametrize("args", [("verify", "{d}"), ("verify", "{d}/**/*.json"), ("lint", "{d}")])
def test_a_tree_deeper_than_the_limit_is_refused_by_name(
    args, tmp_path: Path, deep_tree: Callable[[Path, int], None]
) -> None:
    deep = tmp_path / "deep"
    deep_tree(deep, 1000)  # was a RecursionError ("internal error") in the recursive walk
    result = _run(*(a.format(d=deep) for a in args))
    assert result.exit_code == 2, result.output
    assert f"deeper than {MAX_DEPTH} directory levels" in result.stderr
    assert "internal error" not in result.stderr


def test_a_tree_at_the_limit_is_walked(tmp_path: Path) -> None:
    deep = tmp_path / "deep"
    _deep_tree(deep, MAX_DEPTH - 1)
    found = list(walk_tree(deep, lambda p: True))
    assert [p.name for p in found] == ["r.json"]
    assert len(found[0].relative_to(deep).parts) == MAX_DEPTH


def test_a_glob_over_two_links_to_itself_is_refused_not_followed(tree) -> None:
    inner, _ = tree
    # glob.glob(recursive=True) follows both: 2^n paths for n levels, never finishing.
    (inner / "x").symlink_to(".", target_is_directory=True)
    (inner / "y").symlink_to(".", target_is_directory=True)
    result = _run("verify", f"{inner}/**/*.json")
    assert result.exit_code == 2, result.output
    assert "symbolic link loop" in result.stderr


def test_a_second_link_into_one_directory_is_refused(tree) -> None:
    inner, _ = tree
    # Two links per level to the next level down: no loop, but 2^levels paths if followed.
    level = inner
    for i in range(3):
        nxt = inner / f"level{i}"
        nxt.mkdir()
        (level / "a").symlink_to(nxt, target_is_directory=True)
        (level / "b").symlink_to(nxt, target_is_directory=True)
        level = nxt
    result = _run("verify", str(inner))
    assert result.exit_code == 2, result.output
    assert "a second way into the directory" in result.stderr


def test_a_glob_matches_as_glob_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("d/a.json", "d/sub/b.json", "d/sub/.hid/c.json", "d/e/x.txt", "d/.h.json"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    monkeypatch.chdir(tmp_path)
    for pattern in ("d/**/*.json", "d/*/*.json", "*/s*/*.json", "d/.*.json", "d/**/.hid/*"):
        expected = sorted(Path(p) for p in glob.glob(pattern, recursive=True))
        assert list(glob_matches(pattern)) == expected, pattern
    assert list(glob_matches(str(tmp_path / "d" / "*.json"))) == [tmp_path / "d" / "a.json"]


def test_skill_tree_walk_is_bounded(tmp_path: Path, deep_tree: Callable[[Path, int], None]) -> None:
    deep = tmp_path / "skill"
    deep_tree(deep, 1000)
    with pytest.raises(InputError, match="deeper than"):
        read_tree(deep)
    loop = tmp_path / "loop"
    (loop / "sub").mkdir(parents=True)
    (loop / "sub" / "up").symlink_to(loop, target_is_directory=True)
    (loop / "SKILL.md").write_text("x")
    tree = read_tree(loop)
    assert tree.files == {"SKILL.md": b"x"}
    assert tree.problems == (("sub/up", "a symlinked directory is not followed"),)


def test_a_file_url_glob_over_a_link_loop_is_refused(tree) -> None:
    pytest.importorskip("fsspec")
    inner, _ = tree
    (inner / "x").symlink_to(".", target_is_directory=True)
    (inner / "y").symlink_to(".", target_is_directory=True)
    result = _run("verify", f"file://{inner}/**/*.json")
    assert result.exit_code == 2, result.output
    assert "symbolic link loop" in result.stderr


def test_a_glob_checks_only_the_links_it_reaches(tree) -> None:
    inner, outer = tree
    (inner / "elsewhere").symlink_to(outer, target_is_directory=True)  # never matched
    result = _run("verify", f"{inner}/*.json", "--format", "json")
    assert result.exit_code != 2, result.output
    (inner / "copy.json").symlink_to(outer / "secret.json")  # matched: out of the tree
    result = _run("verify", f"{inner}/*.json")
    assert result.exit_code == 2
    assert "copy.json" in result.stderr and "outside the tree" in result.stderr
    result = _run("verify", f"{inner}/*/*.json")  # enters the link: out of the tree
    assert result.exit_code == 2 and "outside the tree" in result.stderr
