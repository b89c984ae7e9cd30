"""The follower benchmark's memory probe reads the real SQLite and the real heap."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from benchmarks.follow_probe import Sample, latest, sqlite_memory_used

ROOT = Path(__file__).resolve().parents[2]


def test_sqlite_memory_is_the_sqlite_module_s_own() -> None:
    used = sqlite_memory_used()
    db = sqlite3.connect(":memory:")
    try:
        before = used()
        db.execute("CREATE TABLE t (x BLOB)")
        db.executemany("INSERT INTO t VALUES (?)", [(b"x" * 1000,)] * 2000)
        after = used()
    finally:
        db.close()
    assert before >= 0
    # two megabytes of rows in an in-memory database are held by that SQLite
    assert after - before > 1_000_000
    assert used() < after  # and given back when the connection closes


def test_a_line_cut_short_is_no_sample(tmp_path: Path) -> None:
    probe = tmp_path / "probe.txt"
    probe.write_text(Sample(1.5, 200, 300).line() + "2.5 201", encoding="ascii")
    sample = latest(probe)
    assert sample is not None
    assert (sample.when, sample.blocks, sample.sqlite_bytes) == (1.5, 200, 300)
    assert latest(tmp_path / "absent.txt") is None


def test_the_probe_runs_the_command_line_and_samples(tmp_path: Path) -> None:
    probe = tmp_path / "probe.txt"
    env = {**os.environ, "SEALVERIFY_PROBE_OUT": str(probe), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.follow_probe", "verify", "--help"],
        capture_output=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert b"Usage: sealverify verify" in done.stdout
    sample = latest(probe)
    assert sample is not None
    assert sample.blocks > 10_000  # an interpreter that has imported anything holds that many
    assert sample.sqlite_bytes >= 0
