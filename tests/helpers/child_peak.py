"""The peak resident memory of one ``sealverify`` run in a child process (Linux only)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

__all__ = ["child_peak_kib"]

# VmHWM is the child's own peak: ru_maxrss would carry the parent's.
_CHILD_PEAK = """
import sys
from sealverify._internal.cli.main import main
sys.argv = ["sealverify", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
peak = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
print(peak[0].split()[1], file=sys.stderr)
"""


def child_peak_kib(args: list[str], cwd: Path) -> int:
    """The peak resident memory (KiB) of one ``sealverify`` run of ``args`` in a child."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD_PEAK, *args], capture_output=True, text=True, cwd=cwd
    )
    return int(done.stderr.strip().splitlines()[-1])
