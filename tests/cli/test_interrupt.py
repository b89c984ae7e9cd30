"""Ctrl-C: one clean message and exit 130, with or without workers, and no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo" / "receipts" / "receipts.jsonl"


@pytest.mark.parametrize("jobs", ["3", "1"])
def test_ctrl_c_during_a_run_is_a_clean_exit_130(jobs: str, tmp_path: Path) -> None:
    first = DEMO.read_bytes().split(b"\n")[0]
    log = tmp_path / "big.jsonl"
    log.write_bytes((first + b"\n") * 60_000)  # long enough to be interrupted mid-run
    # Once a worker is verifying (or the only process is), the test sends SIGINT to the whole
    # process group, as a terminal's Ctrl-C does. Without the fix workers print tracebacks
    # and the parent waits for them forever (the timeout below then fails the test). Workers
    # are fresh interpreters, so the hook that says "ready" is a sitecustomize every process
    # of the run imports.
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "\n".join(
            [
                "import multiprocessing, sys, sealverify._internal.run.engine as r",
                "real, said = r._run_task, []",
                "def task(t, s):",
                f"    if not said and ({jobs!r} == '1' or multiprocessing.parent_process()):",
                "        said.append(1)",  # once per process: a worker (or the only one) verifies
                "        sys.stderr.write('ready\\n')",
                "        sys.stderr.flush()",
                "    return real(t, s)",
                "r._run_task = task",
            ]
        )
    )
    code = "\n".join(
        [
            "import sys",
            "from sealverify._internal.cli.main import main",
            f"sys.argv = ['sealverify', 'verify', {str(log)!r}, '--jobs', {jobs!r}]",
            "main()",
        ]
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hook), str(ROOT)])}
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        cwd=ROOT,
        env=env,
    )
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline() == b"ready\n", proc.communicate()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    text = err.decode().replace("ready\n", "")
    assert proc.returncode == 130, text
    assert "Traceback" not in text
    assert "KeyboardInterrupt" not in text
    assert text.strip().splitlines()[-1] == "sealverify: interrupted"
    assert out == b""  # nothing of a half-done report
