"""A run's session pass in flat memory: what it holds grows with open sessions, not receipts.

A child process re-derives one log of session receipts (1k sessions, every receipt its own call)
and reports its peak RSS, at two sizes: in one process, where each line is fed to the pass
as it is verified (``verify_sources``), and as the tasks handed to workers are cut, where the
pass's results go out slice by slice (``engine.tasks``). Neither may keep a result per
receipt: the peak is the same at both sizes, within a small bound.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

_CHILD = """
import resource, sys, tempfile
from pathlib import Path
from sealverify._internal.receipts.verify import VerifyOptions
from sealverify._internal.run import engine
from sealverify._internal.run.sources import verify_sources

mode, count = sys.argv[1], int(sys.argv[2])
with tempfile.TemporaryDirectory() as folder:
    log = Path(folder) / "sessions.jsonl"
    with log.open("w") as out:
        for receipt in range(count):
            session = f"session-{receipt % 1000:04d}"
            out.write(f'{{"effect_view":{{"session":"{session}"}},"operation_id":"op-{receipt}"}}\\n')
    if mode == "one process":
        seen = sum(1 for _ in verify_sources(str(log), VerifyOptions(), jobs=1))
    else:
        seen = sum(1 for _ in engine.tasks([(log, False)], VerifyOptions()))
    assert seen, mode
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_kib(mode: str, receipts: int) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, mode, str(receipts)],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB on Linux")
@pytest.mark.parametrize("mode", ["one process", "tasks for workers"])
def test_a_log_session_pass_holds_state_per_open_session(mode: str) -> None:
    # A result held per receipt in the pass (its re-derivation, and the call's result kept for
    # copies) is a few hundred bytes: 42 MB more at 100k receipts than at 25k, measured on
    # the code that held them; about 3.5 MB now (the index's sorted runs, written to disk).
    small, large = _peak_kib(mode, 25_000), _peak_kib(mode, 100_000)
    assert large - small < 8 * 1024, (small, large)
