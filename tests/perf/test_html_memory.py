"""The verify html report streams: peak memory does not grow with the number of receipts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sealverify_testkit.mint import mint_many
from sealverify_testkit.records import parse_record, render_compact

from sealverify._internal.reports.formats.html.verify_page import DETAIL_CAP

# Run in a fresh interpreter: everything is imported and a run over other receipts fills the
# verifier's bounded caches before tracemalloc starts, so the peak is what the measured run
# itself holds at once.
_MEASURE = """
import sys, tracemalloc
from sealverify._internal.cli.main import cli
log, warm, out = sys.argv[1:4]
def run(path):
    try:
        # One process: with workers a run holds up to 4 tasks per process in flight (a
        # constant window, run/engine.py), which at this size is every receipt.
        cli.main(
            ["verify", path, "--format", "html", "--output", out, "--jobs", "1"],
            standalone_mode=False,
        )
    except SystemExit:
        pass
run(warm)
tracemalloc.start()
run(log)
print(tracemalloc.get_traced_memory()[1])
"""


def _log(path: Path, n: int, seed: bytes = b"html-memory") -> Path:
    lines = (render_compact(parse_record(r)) for r in mint_many(n, seed=seed))
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def _peak(log: Path, warm: Path, out: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(log), str(warm), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return int(done.stdout.split()[-1])


def test_peak_memory_is_flat_across_n_and_4n_receipts(tmp_path: Path) -> None:
    # Two whole tasks of 64 receipts (a run holds one task's results at a time), and 4n
    # crosses the drill-down cap, so both the spooled and the counted paths run.
    n = 128
    assert 4 * n > DETAIL_CAP
    warm = _log(tmp_path / "warm.jsonl", n, b"warm")
    small = _peak(_log(tmp_path / "n.jsonl", n), warm, tmp_path / "n.html")
    text_small = (tmp_path / "n.html").read_text()
    large = _peak(_log(tmp_path / "4n.jsonl", 4 * n), warm, tmp_path / "4n.html")
    text_large = (tmp_path / "4n.html").read_text()
    # The output did grow (rows for every receipt, drill-downs up to the cap) ...
    assert text_large.count('<tr data-outcome="') == 4 * n
    assert text_large.count('<section class="receipt') == DETAIL_CAP
    assert len(text_large) > 1.5 * len(text_small)
    # ... while what was held at once did not (a page kept in memory adds its growth, well
    # over this bound: measured, about 8 MB here).
    assert large - small < len(text_small) / 2, json.dumps({"n": small, "4n": large})
