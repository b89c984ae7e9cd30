"""``verify`` without ``--jobs``: one process per core for a run of several tasks, the same report.

The default used to be one process; ``auto`` picks one per core when the run makes more than
one task (a task is up to ``engine._CHUNK`` receipts) and stays in this process for a
run of one task, where starting workers would cost more than it saves.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sealverify_testkit.mint import HostContext

from sealverify._internal.cli.main import cli
from sealverify._internal.run import engine, sources
from tests.helpers.verify_perf import mixed_log

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"


def _run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["verify", *args], catch_exceptions=False)


def test_auto_keeps_a_one_task_run_here_and_spreads_a_longer_one() -> None:
    one = iter(["t1"])
    jobs, rest = sources.auto_jobs(one, 8)  # type: ignore[arg-type]
    assert jobs == 1 and list(rest) == ["t1"]
    many = iter(["t1", "t2", "t3"])
    jobs, rest = sources.auto_jobs(many, 8)  # type: ignore[arg-type]
    assert jobs == 8 and list(rest) == ["t1", "t2", "t3"]  # nothing lost, order kept
    jobs, rest = sources.auto_jobs(iter(["t1", "t2"]), 1)  # type: ignore[arg-type]
    assert jobs == 1 and list(rest) == ["t1", "t2"]
    assert sources.auto_jobs(iter([]), 4)[0] == 1  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", ["json", "table", "sarif", "junit", "jsonl"])
def test_the_default_uses_workers_and_gives_the_one_process_report(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = mixed_log(tmp_path)
    args = [str(DEMO / "receipts"), str(log), "--trust", str(DEMO / "trust.json")]
    args += ["--kernel-sha256", HostContext().wasm_sha256, "--format", fmt]
    one = _run(*args, "--jobs", "1")
    chosen: list[int] = []
    real = engine.results

    def spy(tasks, settings, jobs):  # type: ignore[no-untyped-def]
        chosen.append(jobs)
        return real(tasks, settings, jobs)

    monkeypatch.setattr(engine, "results", spy)
    monkeypatch.setattr(sources.os, "cpu_count", lambda: 3)
    default = _run(*args)
    assert chosen == [3]  # more than one task (150 log lines and the demo files): workers
    assert default.exit_code == one.exit_code == 1
    assert default.stdout == one.stdout and default.stderr == one.stderr


def test_a_small_run_stays_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen: list[int] = []
    real = engine.results

    def spy(tasks, settings, jobs):  # type: ignore[no-untyped-def]
        chosen.append(jobs)
        return real(tasks, settings, jobs)

    monkeypatch.setattr(engine, "results", spy)
    monkeypatch.setattr(sources.os, "cpu_count", lambda: 8)
    receipts = [str(DEMO / "receipts" / f"verified-{n}.receipt.json") for n in ("allow", "block")]
    result = _run(*receipts, "--trust", str(DEMO / "trust.json"))
    assert result.exit_code == 3 and chosen == [1]  # two receipts: one task
    explicit = _run(*receipts, "--trust", str(DEMO / "trust.json"), "-j", "2")
    assert explicit.stdout == result.stdout and chosen == [1, 2]
