"""Where a report goes: html never scrolled through a terminal, and a written file is named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli import common
from sealverify._internal.cli.main import cli
from tests.conftest import ROOT

DEMO = ROOT / "fixtures" / "demo"
RECEIPT = str(DEMO / "receipts" / "verified-allow.receipt.json")
TRUST = ["--trust", str(DEMO / "trust.json")]
CHAIN = str(ROOT / "fixtures" / "chain" / "host.stderr")
FRAME = str(ROOT / "fixtures" / "frames" / "call.bin")


@pytest.mark.parametrize(
    "args",
    [
        ["verify", RECEIPT, *TRUST, "--format", "html"],
        ["verify", "--format", "html", RECEIPT, *TRUST],
        ["chain", CHAIN, "--format", "html"],
        ["diff", RECEIPT, RECEIPT, "--format", "html"],
    ],
)
def test_html_to_a_terminal_without_output_is_refused_with_a_hint(
    monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.setattr(common, "_stdout_is_a_terminal", lambda: True)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "--format html" in result.output and "--output FILE" in result.output
    assert "<html" not in result.output


def test_html_to_a_terminal_with_output_is_written_and_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(common, "_stdout_is_a_terminal", lambda: True)
    for order, page in ((0, tmp_path / "a.html"), (1, tmp_path / "b.html")):
        head = ["--output", str(page), "--format", "html"]
        args = ["verify", RECEIPT, *TRUST, *(head if order else head[2:] + head[:2])]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 3, result.output
        assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
        assert result.stdout == ""
        assert f"report written to {page}\n" in result.stderr
        assert result.stderr.splitlines()[-1].startswith("sealverify verify: 1 receipt(s)")


def test_html_to_a_pipe_is_written_as_before() -> None:
    result = CliRunner().invoke(cli, ["verify", RECEIPT, *TRUST, "--format", "html"])
    assert result.exit_code == 3 and result.stdout.startswith("<!DOCTYPE html>")
    assert "report written" not in result.stderr


def test_a_report_written_to_a_file_is_named_on_stderr_by_every_command(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    for args in (
        ["verify", RECEIPT, *TRUST, "--format", "json"],
        ["chain", CHAIN, "--format", "json"],
        ["frame", FRAME, "--format", "json"],
    ):
        result = CliRunner().invoke(cli, [*args, "--output", str(out)])
        assert result.exit_code != 2, result.output
        assert result.stdout == "" and f"report written to {out}" in result.stderr


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
def test_html_on_a_real_terminal_exits_2(tmp_path: Path) -> None:
    # A pseudo-terminal as stdout: what a person's shell gives the command.
    leader, follower = os.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "sealverify", "verify", RECEIPT, *TRUST, "--format", "html"],
            stdout=follower,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            check=False,
            timeout=120,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 2
    assert b"--output FILE" in done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_output_to_a_named_pipe_writes_through_it_and_leaves_it_a_pipe(tmp_path: Path) -> None:
    """A device or pipe (``--output /dev/null``) is written, never replaced by a renamed file."""
    import stat

    pipe = tmp_path / "report.pipe"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # so the writer's open does not wait
    try:
        result = CliRunner().invoke(
            cli, ["verify", RECEIPT, *TRUST, "--format", "json", "--output", str(pipe)]
        )
        assert result.exit_code != 2, result.output
        received = b""
        while chunk := os.read(reader, 1 << 16):
            received += chunk
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)  # still the pipe, not a file renamed over it
    assert received.startswith(b"{") and b'"subjects"' in received
    assert not (tmp_path / "report.pipe.partial").exists()


def test_a_summary_on_a_terminal_wraps_at_its_width_ids_whole(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # approval's and inventory's summaries go through say(), as verify's notes do: wrapped at
    # the terminal's width, never inside an id (textwrap broke at a hyphen).
    import os
    import shutil
    import sys

    from sealverify._internal.cli.common import say

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a: os.terminal_size((40, 24)))
    say("sealverify approval: 1 x authority.pin-unmatched names the pin")
    lines = capsys.readouterr().err.splitlines()
    assert all(len(line) <= 40 for line in lines) and len(lines) > 1
    assert any("authority.pin-unmatched" in line for line in lines), lines


def test_output_has_the_short_spelling_users_of_pip_audit_type(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    demo = str(ROOT / "fixtures" / "demo" / "receipts" / "verified-allow.receipt.json")
    done = CliRunner().invoke(cli, ["verify", demo, "--format", "json", "-o", str(out)])
    assert done.exit_code != 2, done.stderr
    assert json.loads(out.read_text())["command"] == "verify"
