"""``diff`` holds one frame (or the one receipt document) of each side, not the side.

It read each side whole and copied it twice to try it as one receipt document: about 10
bytes of memory per input byte (3 MB of frames took 62 MB, 12 MB took 153 MB). Each test
runs the command on an input four times longer and bounds how much more memory that takes:
counting memory, not time, so nothing here depends on the machine's speed.
"""

from __future__ import annotations

import json
import sys
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from tests.helpers.child_peak import child_peak_kib

ROOT = Path(__file__).resolve().parents[2]
CALL = ROOT / "fixtures" / "frames" / "call.bin"
RECEIPT = ROOT / "fixtures" / "demo" / "receipts" / "verified-allow.receipt.json"
MIB = 1 << 20


def _child_peak_kib(args: list[str]) -> int:
    return child_peak_kib(args, ROOT)


def _frames(size: int) -> bytes:
    """Notifications, then the tools/call diff compares: every frame is read first."""
    note = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + b"n" * 40
    note += b'"}}\n'
    return note * (size // len(note)) + CALL.read_bytes()


def _receipt_lines(size: int) -> bytes:
    """A JSON-lines receipt file: the first line decides, every line is counted."""
    line = json.dumps(json.loads(RECEIPT.read_bytes())).encode() + b"\n"
    return line * (size // len(line))


def _long_lines(size: int) -> bytes:
    """Lines of 100 kB each, then the tools/call: one long line held at a time."""
    line = b'{"a":"' + b"x" * 100_000 + b'"}\n'
    return line * (size // len(line)) + CALL.read_bytes()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM of /proc/self/status")
@pytest.mark.parametrize("make", [_frames, _receipt_lines, _long_lines])
def test_diff_memory_does_not_grow_with_its_input(tmp_path: Path, make: object) -> None:
    peaks = []
    for mib in (1, 4):
        side = tmp_path / f"a-{mib}.bin"
        side.write_bytes(make(mib * MIB))  # type: ignore[operator]
        out = tmp_path / f"o-{mib}.json"
        peaks.append(_child_peak_kib(["diff", str(side), str(CALL), "--format", "json",
                                      "-o", str(out)]))  # fmt: skip
        assert json.loads(out.read_text())["command"] == "diff"
    small, large = peaks  # read whole: about 30 MiB more for 3 MiB more input
    assert large - small < 6 * 1024, f"{small} then {large} KiB for an input four times longer"


@pytest.mark.parametrize("stdin", [False, True])
def test_diff_holds_a_frame_of_each_side_not_the_side(tmp_path: Path, stdin: bool) -> None:
    """Both sides long, one of them standard input (spooled, then read as a file is)."""
    peaks = []
    line = b'{"a":"' + b"x" * 10_000 + b'"}\n'
    for lines in (100, 400):
        data = line * lines + CALL.read_bytes()
        side = tmp_path / "a.bin"
        side.write_bytes(data)
        args = ["diff", "-" if stdin else str(side), str(side), "--format", "json",
                "--output", str(tmp_path / "o")]  # fmt: skip
        runner = CliRunner()
        runner.invoke(cli, ["diff", "--help"])  # imports outside the measurement
        tracemalloc.start()
        try:
            result = runner.invoke(cli, args, input=data if stdin else None)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert result.exit_code == 0, result.output  # the same frame: nothing differs
        peaks.append(peak)
    small, large = peaks
    assert large < small + MIB, f"{small} then {large} bytes for sides four times longer"
