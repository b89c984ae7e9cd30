"""An input that cannot be read or is refused is one line and exit 2 for every command.

``UsageError`` (click's banner: ``Usage: ... Try --help ... Error: ...``) is for a misused
flag only. A file that cannot be read is a ``SourceError`` (``cannot read <path>: <why>``,
from ``SourceError``'s own sentence, never written by hand in a command); a state store that
cannot be used is a ``StoreError``; an input refused as given an ``InputError``. Each is
printed by ``cli/main.py`` as ``sealverify: <why>``, exit 2.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli import main as cli_main
from tests.conftest import ROOT, run_main

CHAIN = ROOT / "fixtures" / "chain" / "host.stderr"
RECEIPTS = ROOT / "fixtures" / "demo" / "receipts"
FRAME = ROOT / "fixtures" / "frames" / "call.bin"
CONFIG = ROOT / "fixtures" / "decide" / "signed-config.json"


def _one_line(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    code, err = run_main(args, monkeypatch, capsys)
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("sealverify: "), err
    assert "Usage:" not in err and "--help" not in err
    result = CliRunner().invoke(cli_main.cli, args)
    assert result.exit_code == 2 and "Usage:" not in result.output, result.output
    return err


@pytest.fixture
def not_a_database(tmp_path: Path) -> Path:
    state = tmp_path / "state.db"
    state.write_text("a page of text, not a SQLite database\n")
    return state


def test_chain_state_that_cannot_be_used_is_one_line(
    not_a_database: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _one_line(["chain", str(CHAIN), "--state", str(not_a_database)], monkeypatch, capsys)
    assert err.startswith("sealverify: --state: ") and "state.db" in err


def test_follow_state_that_cannot_be_used_is_one_line(
    not_a_database: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["verify", str(RECEIPTS), "--follow", "--state", str(not_a_database)]
    err = _one_line(args, monkeypatch, capsys)
    assert err.startswith("sealverify: --state: ") and "state.db" in err


def test_follow_of_a_path_that_is_not_there_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state.db"
    absent = tmp_path / "nowhere" / "receipts.jsonl"
    err = _one_line(["verify", str(absent), "--follow", "--state", str(state)], monkeypatch, capsys)
    assert err == f"sealverify: cannot read {absent}: no such file or directory\n"


@pytest.mark.parametrize(
    "command",
    [
        ["chain", "{x}"],
        ["frame", "{x}"],
        ["approval", "{x}", "--frame", str(FRAME), "--approval-pubkey", "ab" * 32],
        ["decide", "{x}", "--config", str(CONFIG)],
    ],
    ids=lambda c: c[0],
)
def test_an_unreadable_input_is_one_line_for_every_command(
    command: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / "input.txt"  # a folder where a file is read: unreadable, even as root
    target.mkdir()
    args = [a.replace("{x}", str(target)) for a in command]
    err = _one_line(args, monkeypatch, capsys)
    assert err.startswith(f"sealverify: cannot read {target}: "), err


def test_lint_of_a_missing_path_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    absent = tmp_path / "absent.md"
    err = _one_line(["lint", str(absent)], monkeypatch, capsys)
    assert err == f"sealverify: cannot read {absent}: no such file or directory\n"


def test_a_lint_input_past_the_cap_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The InputError the read raises is the run's, not turned into a usage error.
    note = tmp_path / "note.md"
    note.write_text("words " * 1000)
    err = _one_line(["lint", str(note), "--max-input-bytes", "1K"], monkeypatch, capsys)
    assert "--max-input-bytes" in err


def test_no_command_writes_the_cannot_read_sentence_by_hand() -> None:
    # SourceError says "cannot read <path>: <why>" (sealverify/errors.py); a command that
    # spelled it again would drift from it, and from the library's error kinds.
    written = []
    for path in sorted((ROOT / "sealverify" / "_internal" / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr) and ast.unparse(node).startswith("f'cannot read {"):
                written.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert written == []


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (["inventory", "{dir}"], "no receipts matched: "),
        (["lint", "{dir}/*.nothing.md"], "no file matches this pattern"),
        (["lint", "{dir}"], "no files to lint"),
        (["frame", "{empty}"], "no bytes to read as a frame"),
        (
            ["approval", "{empty}", "--frame", str(FRAME), "--approval-pubkey", "ab" * 32],
            "no token lines",
        ),
    ],
    ids=lambda c: c[0] if isinstance(c, list) else "",
)
def test_an_input_refused_as_given_is_one_line(
    command: list[str],
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "nothing"
    folder.mkdir()
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    args = [a.replace("{dir}", str(folder)).replace("{empty}", str(empty)) for a in command]
    err = _one_line(args, monkeypatch, capsys)
    assert said in err
