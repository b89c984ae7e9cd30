"""``tools digest`` and ``tools compare`` hold one frame of a capture, not the capture.

They read each stdio capture whole (``--requests`` too), split it over its bytes and held
every reply: memory grew with the stream (captures of 16 MiB took 57 to 207 MiB more than
captures of 2 MiB). Each test runs the command on captures eight times longer and bounds how
much more memory that takes: counting memory, not time, so nothing here depends on the
machine's speed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.helpers.child_peak import child_peak_kib

ROOT = Path(__file__).resolve().parents[2]
MIB = 1 << 20

LISTING = b'{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{}}]}}\n'
LIST_REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}\n'


def _child_peak_kib(args: list[str]) -> int:
    return child_peak_kib(args, ROOT)


def _replies(size: int) -> bytes:
    """Replies to other requests (each one a message read), then the listing."""
    line = b'{"jsonrpc":"2.0","id":"p","result":{"note":"' + b"n" * 60 + b'"}}\n'
    return line * (size // len(line)) + LISTING


def _notes(size: int) -> bytes:
    """The client's notifications, then its tools/list request."""
    line = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":"' + b"n" * 40
    line += b'"}}\n'
    return line * (size // len(line)) + LIST_REQUEST


def _long_lines(size: int) -> bytes:
    """Lines of 100 kB each, then the listing: one long line held at a time."""
    line = b'{"jsonrpc":"2.0","method":"n","params":{"d":"' + b"x" * 100_000 + b'"}}\n'
    return line * (size // len(line)) + LISTING


def _log_line_first(size: int) -> bytes:
    """A line that is not JSON, then replies: the input is not held to learn it is no value."""
    return b"server started\n" + _replies(size)


def _peak(tmp: Path, mib: int, command: str, make: object) -> int:
    s2c = tmp / f"s2c-{mib}.bin"
    c2s = tmp / f"c2s-{mib}.bin"
    s2c.write_bytes(make(mib * MIB))  # type: ignore[operator]
    c2s.write_bytes(_notes(mib * MIB))
    out = str(tmp / f"o-{mib}.json")
    if command == "digest":
        args = ["digest", str(s2c), "--requests", str(c2s)]
    else:
        args = ["compare", str(s2c), str(s2c), "--requests-a", str(c2s), "--requests-b", str(c2s)]
    return _child_peak_kib(["tools", *args, "--format", "json", "-o", out])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM of /proc/self/status")
@pytest.mark.parametrize("command", ["digest", "compare"])
@pytest.mark.parametrize("make", [_replies, _long_lines, _log_line_first])
def test_tools_memory_does_not_grow_with_its_captures(
    tmp_path: Path, command: str, make: object
) -> None:
    small, large = (_peak(tmp_path, mib, command, make) for mib in (2, 16))
    # Read whole: at least the 14 MiB more of each capture, held.
    assert large - small < 6 * 1024, f"{small} then {large} KiB for captures eight times longer"
