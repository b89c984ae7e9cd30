"""--jobs workers are fresh interpreters: this process is never forked, and the report holds."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.run import storage
from sealverify._internal.run.worker_pool import worker_pool

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
VERIFY = ["verify", str(DEMO / "receipts"), "--trust", str(DEMO / "trust.json"), "--format", "json"]


def test_workers_are_not_forked_from_a_process_running_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one = CliRunner().invoke(cli, [*VERIFY, "--jobs", "1"], catch_exceptions=False)

    def refuse_fork() -> int:
        raise AssertionError("fork() of a process running threads")

    stop = threading.Event()
    waiting = threading.Thread(target=stop.wait, daemon=True)  # as a progress bar's thread
    waiting.start()
    monkeypatch.setattr(os, "fork", refuse_fork)
    try:
        two = CliRunner().invoke(cli, [*VERIFY, "--jobs", "2"], catch_exceptions=False)
    finally:
        stop.set()
    assert one.exit_code == 1 and '"outcome": "VERIFIED"' not in one.stdout  # the demo's FAILs
    assert (two.exit_code, two.stdout, two.stderr) == (one.exit_code, one.stdout, one.stderr)


def _worker_options() -> dict[str, object]:
    return storage.storage_options()


def _nothing() -> None:
    return None


def test_a_worker_is_handed_the_run_s_storage_options() -> None:
    # A forked worker inherited them; a fresh one must be given them before any task.
    storage.configure({"anon": True, "endpoint_url": "http://127.0.0.1:1"})
    try:
        with worker_pool(1, _nothing, ()) as pool:
            seen = pool.apply(_worker_options)
    finally:
        storage.configure({})
    assert seen == {"anon": True, "endpoint_url": "http://127.0.0.1:1"}
