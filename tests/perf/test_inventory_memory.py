"""``inventory`` reads a JSONL log a window at a time: one line held, not the log.

It read each log whole and split it into a list of every line before counting any: memory
grew with the log. The test runs the command on a log eight times longer and bounds how much
more memory that takes (memory, not time: nothing here depends on the machine's speed); a
second test holds the streamed counting to the whole-bytes counting, line for line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sealverify._internal.receipts.inventory import InventoryBuilder
from tests.helpers.child_peak import child_peak_kib

ROOT = Path(__file__).resolve().parents[2]
MIB = 1 << 20
DEMO = ROOT / "fixtures" / "demo" / "receipts"


def _log(size: int) -> bytes:
    """Lines that are no receipt (each counted as unreadable), about ``size`` bytes."""
    line = b'{"note":"' + b"n" * 90 + b'"}\n'
    return line * (size // len(line))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM of /proc/self/status")
def test_inventory_memory_does_not_grow_with_the_log(tmp_path: Path) -> None:
    peaks = []
    for size in (2 * MIB, 16 * MIB):
        log = tmp_path / f"{size}.jsonl"
        log.write_bytes(_log(size))
        out = tmp_path / f"{size}.json"
        peaks.append(
            child_peak_kib(["inventory", str(log), "--format", "json", "-o", str(out)], ROOT)
        )
        assert out.read_bytes().count(b'"unreadable"') >= 1
    small, large = peaks  # whole: 38 then 74 MiB; a window at a time: flat
    assert large - small < 8 * 1024, f"{small} then {large} KiB for a log eight times longer"


def _samples() -> list[bytes]:
    receipts = sorted(DEMO.glob("*.receipt.json"))
    if not receipts:
        pytest.skip("the demo fixtures are not in this checkout")
    lines = [r.read_bytes().replace(b"\n", b"") for r in receipts]
    return [
        b"\n".join(lines) + b"\n",  # every demo receipt, one a line
        b"\n".join(lines),  # no final line feed
        b"\r\n".join(lines) + b"\r\n",  # CRLF
        lines[0] + b"\n\n  \n" + lines[-1] + b"\nnot json\n",  # blank lines and a bad line
        b"",
        b"\n",
        b"\xef\xbb\xbf" + lines[0] + b"\n\xff\xfe\n",  # a BOM, invalid UTF-8
    ]


def test_the_streamed_count_is_the_whole_bytes_count(tmp_path: Path) -> None:
    for index, data in enumerate(_samples()):
        whole = InventoryBuilder()
        whole.add_log(data, "r.jsonl")
        path = tmp_path / f"{index}.jsonl"
        path.write_bytes(data)
        streamed = InventoryBuilder()
        streamed.add_log(lambda p=path: p.open("rb"), "r.jsonl")
        assert streamed.inventory().to_dict() == whole.inventory().to_dict(), index
