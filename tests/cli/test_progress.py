"""Progress on a terminal (a pseudo-terminal here): count, total, rate; nothing when piped."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
SEALVERIFY = [sys.executable, "-m", "sealverify._internal.cli.main"]


def _on_a_terminal(args: list[str]) -> tuple[int, str]:
    """Run with stderr on a pseudo-terminal of 120 columns; return (exit code, terminal text)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    proc = subprocess.Popen([*SEALVERIFY, *args], stdout=subprocess.DEVNULL, stderr=slave, cwd=ROOT)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    return proc.wait(timeout=120), seen.decode("utf-8", "replace")


def _piped(args: list[str]) -> tuple[int, str]:
    done = subprocess.run([*SEALVERIFY, *args], capture_output=True, cwd=ROOT, timeout=120)
    return done.returncode, done.stderr.decode()


def _chain_log(tmp_path: Path) -> Path:
    from sealverify_testkit.auditlog import chain_log

    log = tmp_path / "host.stderr"
    log.write_bytes(chain_log([b"payload %d" % i for i in range(5)]))
    return log


CASES = {
    "verify": (
        ["verify", "fixtures/demo/receipts", "--trust", "fixtures/demo/trust.json"],
        "13/13",  # thirteen receipts, as the summary counts them (the broken line is no receipt)
    ),
    "frame": (["frame", "fixtures/frames/call.bin"], "reading frames"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_progress_shows_on_a_terminal(name: str) -> None:
    args, expected = CASES[name]
    code, text = _on_a_terminal(args)
    piped_code, _ = _piped(args)
    assert code == piped_code
    label = {"verify": "verifying", "frame": "reading frames"}[name]
    assert label in text
    assert expected in text
    assert "100%" in text  # determinate: the total is known
    assert "/s" in text  # a rate


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_progress_when_stderr_is_not_a_terminal(name: str) -> None:
    args, _ = CASES[name]
    _, stderr = _piped(args)
    assert "%|" not in stderr
    assert "\r" not in stderr
    assert "verifying:" not in stderr and "reading frames" not in stderr
    assert stderr.count("\n") == 1  # the summary line only


def test_chain_progress_on_a_terminal_and_not_when_piped(tmp_path: Path) -> None:
    log = _chain_log(tmp_path)
    code, text = _on_a_terminal(["chain", str(log)])
    assert "reading logs" in text and "100%" in text
    piped_code, stderr = _piped(["chain", str(log)])
    assert code == piped_code
    assert "reading logs" not in stderr and "\r" not in stderr


def test_no_bar_for_one_receipt_and_the_count_is_the_summary_s() -> None:
    one = ["verify", "fixtures/demo/receipts/verified-block.receipt.json"]
    code, text = _on_a_terminal(one)
    assert code == 3 and "verifying" not in text and "%|" not in text
    assert "sealverify verify: 1 receipt(s)" in text
    # a log of four receipts and a broken line: the bar ends at four, as the summary says
    _, text = _on_a_terminal(["verify", "fixtures/demo/receipts/receipts.jsonl"])
    assert "4/4" in text and "5/5" not in text and "sealverify verify: 4 receipt(s)" in text
