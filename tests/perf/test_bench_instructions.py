"""The instruction-count comparison: its arithmetic, and callgrind's count where valgrind is."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks import instructions
from benchmarks.baseline import Verifier


def test_a_split_separates_start_up_from_the_work_per_receipt() -> None:
    # 100 M of start-up and 3 M a receipt, seen at 10 and 50 receipts
    split = instructions.Split(130_000_000, 250_000_000, (10, 50))
    assert split.per_receipt == 3_000_000
    assert split.startup == 100_000_000
    assert split.at(1000) == 3_100_000_000


def test_the_report_gives_the_ratio_at_n_and_per_receipt() -> None:
    base = instructions.Split(130_000_000, 250_000_000, (10, 50))  # 100 M + 3 M a receipt
    cur = instructions.Split(260_000_000, 500_000_000, (10, 50))  # 200 M + 6 M a receipt
    row = instructions.Row("json", "JSONL", True, base, cur)
    who = Verifier("v", sys.executable, frozenset())
    lines = instructions.report([row], who, who, 2000)
    table_row = next(line for line in lines if line.startswith("| json"))
    assert "| 3.00 | 6.00 | 100 | 200 | 0.50x | 0.50x |" in table_row
    assert any("re-derivation on: ratio at 2,000 receipts 0.50x-0.50x" in line for line in lines)
    summary = next(line for line in lines if line.startswith("re-derivation on"))
    # 3.1 G / 6.2 G at 2,000 receipts: exactly 0.5, said to three places with its case
    assert summary.endswith("lowest 0.500x (json, JSONL)")


@pytest.mark.skipif(instructions.available() is None, reason="valgrind is not installed")
def test_callgrind_counts_the_same_work_the_same_and_more_work_more() -> None:
    small = [sys.executable, "-S", "-c", "sum(range(1000))"]
    more = [sys.executable, "-S", "-c", "sum(range(3000000))"]
    first, second = instructions.count(small), instructions.count(small)
    assert abs(first - second) <= first // 1000  # repeatable: within 0.1%
    assert instructions.count(more) > first + 10_000_000
    with pytest.raises(SystemExit, match="exit 3 under callgrind"):
        instructions.count([sys.executable, "-S", "-c", "raise SystemExit(3)"])


def test_each_verifier_imports_its_own_sealverify(monkeypatch: pytest.MonkeyPatch) -> None:
    """A PYTHONPATH in the bench's environment must not put this tree in front of the
    revision installed in the baseline's environment (both would count the same code)."""
    from pathlib import Path

    from benchmarks.baseline import child_env

    monkeypatch.setenv("PYTHONPATH", "/somewhere/else")
    tree = str(Path(__file__).resolve().parents[2])
    assert child_env(sys.executable)["PYTHONPATH"] == tree
    baseline = child_env("/tmp/baseline/venv/bin/python", PYTHONHASHSEED="0")
    assert "PYTHONPATH" not in baseline and baseline["PYTHONHASHSEED"] == "0"
    script = "import sealverify, sys; sys.stdout.write(sealverify.__file__)"
    shown = subprocess.run(
        [sys.executable, "-c", script],
        env=child_env(sys.executable),
        cwd="/",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert Path(shown).resolve().is_relative_to(Path(tree))
