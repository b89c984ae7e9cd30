"""The rule every harness enforces: no crash, no slow small input, bounded memory."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "MALLOC_LIMIT_MB",
    "MAX_PEAK_BYTES",
    "MAX_SECONDS",
    "SLOW_INPUT_BYTES",
    "UNIT_TIMEOUT_SECONDS",
    "Finding",
    "checked",
]

# An input under SLOW_INPUT_BYTES must be handled within MAX_SECONDS (the verify family's bound
# of about a millisecond per receipt leaves three orders of magnitude of headroom).
SLOW_INPUT_BYTES = 64 * 1024
MAX_SECONDS = 1.0
# Peak Python allocation for one input (tracemalloc, deterministic mode) and resident memory
# of a whole atheris run (libFuzzer's -rss_limit_mb and RLIMIT_AS, see fuzz/run.py).
MAX_PEAK_BYTES = 256 * 1024 * 1024
RSS_LIMIT_MB = 1024  # runs peaked at 240 MB; growth past this is a finding
MALLOC_LIMIT_MB = 512  # one allocation larger than this is a finding (libFuzzer -malloc_limit_mb)
# libFuzzer's -timeout: a unit still running after this is a finding. The time rule (1 s,
# re-run once) is checked when a unit returns; this catches one that never would (a walk
# that follows links for ever, a scan that backtracks without end).
UNIT_TIMEOUT_SECONDS = 10


@dataclass(frozen=True, slots=True)
class Finding(Exception):
    """One input that broke the rule: ``kind`` is crash, slow or memory."""

    kind: str
    detail: str
    data: bytes

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail} (input of {len(self.data)} bytes)"


def checked(
    target: Callable[[bytes], None],
    data: bytes,
    *,
    measure_memory: bool = False,
    max_seconds: float | None = MAX_SECONDS,
) -> None:
    """Run ``target`` on ``data`` and raise :class:`Finding` when the rule is broken.

    A target returns normally for every documented outcome (a finding, a refusal, exit 2 for
    input that cannot be read); any exception escaping it is a crash. A slow input is run a
    second time and reported only when that run is slow too (the first run of a command pays
    its imports, and the machine may be busy). ``max_seconds=None`` leaves time unchecked.
    """
    elapsed = _run(target, data, measure_memory)
    if max_seconds is not None and elapsed > max_seconds and len(data) < SLOW_INPUT_BYTES:
        elapsed = min(elapsed, _run(target, data, False))
        if elapsed > max_seconds:
            raise Finding("slow", f"{elapsed:.2f} s for an input under 64 kB", data)


def _run(target: Callable[[bytes], None], data: bytes, measure_memory: bool) -> float:
    if measure_memory:
        tracemalloc.start()
    start = time.perf_counter()
    try:
        target(data)
    except Exception as exc:
        raise Finding("crash", f"{type(exc).__name__}: {exc}"[:500], data) from exc
    finally:
        elapsed = time.perf_counter() - start
        peak = 0
        if measure_memory:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    if peak > MAX_PEAK_BYTES:
        raise Finding("memory", f"peak allocation {peak // (1024 * 1024)} MB", data)
    return elapsed
