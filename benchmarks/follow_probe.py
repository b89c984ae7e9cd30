"""``python -m benchmarks.follow_probe ARGS``: sealverify's command line, its memory sampled.

The follower benchmark's ``--flat`` mode runs the follower through this module so that what
grows can be told apart: the resident size mixes the Python heap, SQLite's page caches and
what the allocator keeps. A daemon thread appends one line a second to the file named by
``SEALVERIFY_PROBE_OUT``: the monotonic time, the Python heap's allocated blocks
(``sys.getallocatedblocks``) and the bytes SQLite holds (``sqlite3_memory_used`` of the
SQLite library the ``sqlite3`` module loaded). Then the command line runs as ``sealverify``
would, in this process.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["Sample", "latest", "main", "sqlite_memory_used"]

INTERVAL = 1.0


class Sample:
    """One line of the probe: when, Python heap blocks, SQLite bytes."""

    __slots__ = ("blocks", "sqlite_bytes", "when")

    def __init__(self, when: float, blocks: int, sqlite_bytes: int) -> None:
        self.when, self.blocks, self.sqlite_bytes = when, blocks, sqlite_bytes

    def line(self) -> str:
        """The sample as the probe file writes it."""
        return f"{self.when:.3f} {self.blocks} {self.sqlite_bytes}\n"

    @classmethod
    def parse(cls, line: str) -> Sample | None:
        """A sample from one line of the probe file; None for a line cut short."""
        parts = line.split()
        if len(parts) != 3:
            return None
        try:
            return cls(float(parts[0]), int(parts[1]), int(parts[2]))
        except ValueError:
            return None


def sqlite_memory_used() -> Callable[[], int]:
    """``sqlite3_memory_used`` of the SQLite the ``sqlite3`` module uses (-1 where unreachable)."""
    import _sqlite3

    try:
        # dlsym on the extension's handle searches the libraries it was linked with too, so
        # this is the one SQLite the follower's connections allocate from.
        function = ctypes.CDLL(_sqlite3.__file__).sqlite3_memory_used
    except (OSError, AttributeError):
        return lambda: -1
    function.restype = ctypes.c_int64
    function.argtypes = []
    return lambda: int(function())


def latest(path: Path) -> Sample | None:
    """The newest complete sample in the probe file (None before the first)."""
    try:
        lines = path.read_text(encoding="ascii").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in reversed(lines):
        sample = Sample.parse(line)
        if sample is not None:
            return sample
    return None


def _sampler(out: Path, used: Callable[[], int]) -> None:
    with out.open("a", encoding="ascii") as handle:
        while True:
            handle.write(Sample(time.monotonic(), sys.getallocatedblocks(), used()).line())
            handle.flush()
            time.sleep(INTERVAL)


def main() -> None:
    """Start the sampler, then run sealverify's command line with this process's arguments."""
    out = os.environ.get("SEALVERIFY_PROBE_OUT")
    if out:
        thread = threading.Thread(
            target=_sampler, args=(Path(out), sqlite_memory_used()), daemon=True
        )
        thread.start()
    from sealverify._internal.cli.main import main as cli

    sys.argv[0] = "sealverify"
    cli()


if __name__ == "__main__":
    main()
