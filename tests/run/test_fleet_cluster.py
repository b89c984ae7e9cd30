"""``verify --cluster``: a real Dask scheduler and worker processes give the one-process report.

Byte for byte in every format, over the demo fixtures and a minted corpus (a directory and a
JSONL log cut into many partitions); with ``--state`` history applied at the merge; after a
worker is killed mid-run; and the faults (no scheduler, no extra, Ctrl-C) exit 2 or cancel.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sealverify_testkit.mint import HostContext, mint_many, parse_record, render_compact

from sealverify._internal.cli.main import cli
from tests.helpers.fleet_services import DaskCluster, dask_cluster, env
from tests.helpers.verify_perf import DEMO, TRUST, mixed_log

__all__ = ["dask_cluster"]  # the fixture, imported for its tests

pytest.importorskip("distributed", reason="the dask extra is not installed")

KERNEL = ["--kernel-sha256", HostContext().wasm_sha256]


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["verify", *args], catch_exceptions=False)


def _corpus(tmp_path: Path, receipts: int) -> tuple[Path, Path]:
    """A minted directory of receipt files and a minted log, ``receipts`` receipts each."""
    folder = tmp_path / "minted"
    folder.mkdir()
    raws = list(mint_many(receipts, seed=b"fleet-cluster"))
    for number, raw in enumerate(raws):
        (folder / f"r{number:05d}.json").write_bytes(raw)
    log = tmp_path / "minted.jsonl"
    log.write_bytes(b"".join(render_compact(parse_record(raw)) + b"\n" for raw in raws))
    return folder, log


def _cli(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from sealverify._internal.cli.main import main; main()",
            "verify",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
    )


@pytest.mark.parametrize("fmt", ["table", "json", "jsonl", "sarif", "junit"])
def test_the_cluster_report_is_the_one_process_report(
    fmt: str, tmp_path: Path, dask_cluster: DaskCluster
) -> None:
    folder, log = _corpus(tmp_path, 150)
    mixed = mixed_log(tmp_path)
    args = [str(DEMO / "receipts"), str(folder), str(log), str(mixed), "--trust", str(TRUST)]
    args += [*KERNEL, "--format", fmt]
    one = run(*args)
    many = run(*args, "--cluster", dask_cluster.address, "--partition-size", "64")
    assert one.exit_code == many.exit_code == 1  # the demo holds FAIL receipts
    assert many.stdout == one.stdout
    assert many.stderr.splitlines()[-1] == one.stderr.splitlines()[-1]  # the summary line


def test_history_is_applied_at_the_merge(tmp_path: Path, dask_cluster: DaskCluster) -> None:
    args = [str(DEMO / "receipts"), "--trust", str(TRUST), "--format", "json"]
    one = run(*args, "--state", str(tmp_path / "one.sqlite"))
    many = run(*args, "--state", str(tmp_path / "many.sqlite"), "--cluster", dask_cluster.address)
    assert many.stdout == one.stdout and one.exit_code == many.exit_code
    again = run(*args, "--state", str(tmp_path / "many.sqlite"), "--cluster", dask_cluster.address)
    assert again.stdout == run(*args, "--state", str(tmp_path / "one.sqlite")).stdout


def test_a_local_cluster_gives_the_same_report(tmp_path: Path) -> None:
    mixed = mixed_log(tmp_path)
    args = [str(DEMO / "receipts"), str(mixed), "--trust", str(TRUST), "--format", "sarif"]
    one = run(*args)
    local = run(*args, "--cluster", "local:2", "--partition-size", "32")
    assert local.stdout == one.stdout and local.exit_code == one.exit_code


def _tasks_on(cluster: DaskCluster) -> list[str]:
    from distributed import Client

    def keys(dask_scheduler) -> list[str]:  # type: ignore[no-untyped-def]
        return [str(k) for k in dask_scheduler.tasks if str(k).startswith("sealverify-")]

    with Client(cluster.address, timeout=30) as client:
        return list(client.run_on_scheduler(keys))


def _wait_for_tasks(cluster: DaskCluster, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(600):  # bounded: at most about a minute
        if _tasks_on(cluster):
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    pytest.fail("the run never reached the cluster")


def test_a_worker_killed_mid_run_changes_nothing(tmp_path: Path, dask_cluster: DaskCluster) -> None:
    _, log = _corpus(tmp_path, 1500)
    args = [str(log), "--trust", str(TRUST), *KERNEL, "--format", "json"]
    one = run(*args)
    proc = _cli(*args, "--cluster", dask_cluster.address, "--partition-size", "64")
    _wait_for_tasks(dask_cluster, proc)
    os.kill(dask_cluster.worker_pids()[0], signal.SIGKILL)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == one.exit_code, err
    assert out.decode() == one.stdout
    from distributed import Client

    with Client(dask_cluster.address, timeout=30) as client:  # the nanny brings one back
        client.wait_for_workers(2, timeout=120)


def test_ctrl_c_cancels_the_runs_tasks(tmp_path: Path, dask_cluster: DaskCluster) -> None:
    _, log = _corpus(tmp_path, 1500)
    out = tmp_path / "report.json"
    proc = _cli(
        str(log), "--trust", str(TRUST), *KERNEL, "--format", "json", "--output", str(out),
        "--cluster", dask_cluster.address, "--partition-size", "64",
    )  # fmt: skip
    _wait_for_tasks(dask_cluster, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err  # the README's "interrupted"
    assert b"sealverify: interrupted" in err and b"Traceback" not in err and b"ERROR" not in err
    assert not out.exists()
    for _ in range(300):  # bounded: the scheduler forgets the cancelled tasks
        if not _tasks_on(dask_cluster):
            break
        time.sleep(0.1)
    assert _tasks_on(dask_cluster) == []


def test_leaving_early_silences_every_logger_distributed_configured() -> None:
    """distributed configures ``tornado.application`` at ERROR of its own: raising the root of
    the family alone left its "Stream is closed" traceback on a Ctrl-C'd run's stderr."""
    import logging

    from sealverify._internal.run import cluster

    distributed = pytest.importorskip("distributed")
    assert distributed.__name__ == "distributed"
    names = [
        n for n in logging.root.manager.loggerDict if n.split(".")[0] in ("tornado", "distributed")
    ]
    saved = {n: logging.getLogger(n).level for n in names}
    try:
        assert logging.getLogger("tornado.application").level == logging.ERROR  # its own level
        cluster._quiet_teardown()
        loud = [n for n in names if logging.getLogger(n).getEffectiveLevel() < logging.CRITICAL]
        assert loud == []
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


def test_an_unreachable_scheduler_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    from tests.helpers.fleet_services import free_port

    out, state = tmp_path / "r.json", tmp_path / "state.sqlite"
    address = f"tcp://127.0.0.1:{free_port()}"
    child = env()
    child["DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT"] = "2s"
    proc = subprocess.run(
        [
            *[
                sys.executable,
                "-c",
                "from sealverify._internal.cli.main import main; main()",
                "verify",
            ],
            *[str(DEMO / "receipts"), "--trust", str(TRUST), "--output", str(out)],
            *["--state", str(state), "--cluster", address],
        ],
        capture_output=True,
        env=child,
        timeout=120,
    )
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.decode().splitlines() if line.startswith("sealverify:")]
    assert lines == [lines[0]] and "cannot reach the Dask scheduler" in lines[0], proc.stderr
    assert address in lines[0]
    assert not out.exists() and not state.exists()


def test_a_missing_dask_extra_is_a_one_line_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    result = CliRunner().invoke(cli, ["verify", str(DEMO / "receipts"), "--cluster", "local:1"])
    assert result.exit_code == 2
    assert "pip install 'sealverify[dask]'" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("value", ["local:0", "http://x", "somewhere", "local:two"])
def test_the_cluster_address_is_checked(value: str) -> None:
    result = CliRunner().invoke(cli, ["verify", str(DEMO / "receipts"), "--cluster", value])
    assert result.exit_code == 2 and "--cluster" in result.output


def test_cluster_and_jobs_are_exclusive() -> None:
    args = [str(DEMO / "receipts"), "--cluster", "local:1", "--jobs", "2"]
    assert CliRunner().invoke(cli, ["verify", *args]).exit_code == 2
