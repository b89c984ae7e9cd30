"""The follow loop: step, write the events, commit, wait; signals, ``--on-fail`` and the exit.

Each turn reads and verifies what landed (:meth:`Follower.step`), writes the events to the
output (one JSON line each, flushed), runs ``--on-fail`` once per failed event with the
event on its standard input, and commits the batch with its checkpoint. Steps that follow
each other within :data:`COMMIT_SECONDS` share one commit (a commit, one transaction, costs
more than verifying a receipt): the events are written at once, the store is written at most
that long after; a kill in between loses no receipt (they are read again from the last
commit), it only writes their events again. SIGTERM and SIGINT
end the loop after the turn in progress has committed (exit 0); SIGHUP makes the next turn
look at every input afresh and watch their folders anew (a folder replaced since keeps no
file events). With ``exit_on_fail``, the first batch holding a failure is
committed and the loop ends with exit 1.
"""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import IO

from sealverify._internal.follow.engine import FollowConfig, Follower
from sealverify._internal.follow.events import Event
from sealverify._internal.follow.waiting import Waiter, open_waiter

__all__ = ["COMMIT_SECONDS", "GATHER_SECONDS", "LoopOptions", "run"]

# The longest a step's staged work waits for the commit it shares with the steps after it.
COMMIT_SECONDS = 0.25
# The least time from one step's start to the next's: what lands meanwhile is read in one
# step, as log shippers batch, rather than a step a line while a writer appends line by line
# (each step looks at every input, writes and flushes its events, and pays the loop's own).
GATHER_SECONDS = 0.05


@dataclass(frozen=True, slots=True)
class LoopOptions:
    """How the loop reacts and reports: ``--on-fail``, ``--exit-on-fail``, metrics, waiting."""

    on_fail: str | None = None
    exit_on_fail: bool = False
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    poll: bool = False
    interval: float = 1.0
    once: bool = False  # one turn, then exit (a catch-up run, and tests)
    commit_seconds: float = COMMIT_SECONDS  # 0: a commit after every step
    gather_seconds: float = GATHER_SECONDS  # 0: a step as soon as an input changes


class _Signals:
    """SIGTERM / SIGINT ask the loop to stop; SIGHUP to look at every input afresh."""

    def __init__(self, waiter: Waiter) -> None:
        self.stop = False
        self.reopen = False
        self.waiter = waiter
        self._before: dict[int, object] = {}
        for number, handler in (
            (signal.SIGTERM, self._on_stop),
            (signal.SIGINT, self._on_stop),
            (getattr(signal, "SIGHUP", None), self._on_reopen),
        ):
            if number is not None:
                self._before[number] = signal.signal(number, handler)

    def _on_stop(self, number: int, frame: FrameType | None) -> None:
        self.stop = True
        self.waiter.interrupt()

    def _on_reopen(self, number: int, frame: FrameType | None) -> None:
        self.reopen = True
        self.waiter.interrupt()

    def restore(self) -> None:
        for number, handler in self._before.items():
            signal.signal(number, handler)  # type: ignore[arg-type]


def _run_on_fail(command: str, event: Event, err: Callable[[str], None]) -> None:
    """Run ``command`` with the event on its standard input; its failure is reported, not fatal."""
    try:
        done = subprocess.run(shlex.split(command), input=event.line, check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
        err(f"sealverify verify --follow: --on-fail {command!r} could not run: {exc}")
        return
    if done.returncode != 0:
        err(f"sealverify verify --follow: --on-fail {command!r} exited {done.returncode}")


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run(
    config: FollowConfig,
    options: LoopOptions,
    out: IO[bytes],
    err: Callable[[str], None] = _say,
) -> int:
    """Follow until stopped: exit 0 once stopped (or ``once``), 1 at a failure (``exit_on_fail``).

    Errors that stop the run (an unusable store) propagate.
    """
    metrics = None
    if options.metrics_port is not None:
        from sealverify._internal.follow.metrics import Metrics

        metrics = Metrics()
        metrics.serve(options.metrics_port, options.metrics_host)
    follower = Follower(config)
    inputs = [*config.logs, *config.folders, *config.chains]  # local: file events or polling
    waiter = open_waiter(inputs, *_wait(options))
    signals = _Signals(waiter)
    err(
        f"sealverify verify --follow: following {len(inputs) + len(config.remote)} input(s) "
        f"({waiter.kind}), "
        f"checkpoints in {follower.store.where} as {follower.name}"
    )
    for note in follower.notes:
        err(note)
    try:
        return _turns(follower, options, out, err, signals, metrics)
    finally:
        signals.restore()
        signals.waiter.close()
        follower.close()


def _turns(
    follower: Follower,
    options: LoopOptions,
    out: IO[bytes],
    err: Callable[[str], None],
    signals: _Signals,
    metrics: object,
) -> int:

    while True:
        if signals.reopen:  # look at every input afresh, and watch their folders anew
            signals.reopen = False
            follower.reopen()
            config = follower.config
            fresh = open_waiter([*config.logs, *config.folders, *config.chains], *_wait(options))
            signals.waiter.close()
            signals.waiter = fresh
        if _steps(follower, options, out, err, signals, metrics):
            return 1
        if signals.stop or options.once:
            return 0
        signals.waiter.wait()


def _steps(
    follower: Follower,
    options: LoopOptions,
    out: IO[bytes],
    err: Callable[[str], None],
    signals: _Signals,
    metrics: object,
) -> bool:
    """Step until a step finds nothing new and the staged work is committed; True to exit 1.

    A step's work is committed once it is :attr:`LoopOptions.commit_seconds` old, or when
    the loop stops or exits; until then the loop waits for more (at most that long). A step
    starts :attr:`LoopOptions.gather_seconds` after the one before at the soonest (the
    first at once), so a writer's lines gather into steps of many.
    """
    from sealverify._internal.follow.metrics import Metrics

    staged_at = time.monotonic()
    began: float | None = None
    while True:
        if began is not None and not (signals.stop or options.once):
            rest = began + options.gather_seconds - time.monotonic()
            if rest > 0:
                signals.waiter.gather(rest)
        began = time.monotonic()
        before = follower.changes
        events = follower.step()
        for event in events:
            out.write(event.line)
        out.flush()
        failed = [e for e in events if e.failed]
        if options.on_fail:
            for event in failed:
                _run_on_fail(options.on_fail, event, err)
        found = follower.changes != before
        if found:  # the loop steps again without a file event: none is watched meanwhile
            signals.waiter.busy()
        if found and not before:
            staged_at = time.monotonic()
        age = time.monotonic() - staged_at
        stopping = signals.stop or options.once or (failed and options.exit_on_fail)
        if follower.changes and (stopping or age >= options.commit_seconds):
            follower.commit()
        if isinstance(metrics, Metrics):
            metrics.count(events)
            metrics.observe(follower.positions, follower.last_commit)
        if failed and options.exit_on_fail:
            return True
        if signals.stop or (not found and not follower.changes):
            return False
        if not found:  # staged work, younger than a commit's wait: wait for more, or the time
            signals.waiter.wait(options.commit_seconds - age)


def _wait(options: LoopOptions) -> tuple[float, bool]:
    return options.interval, options.poll
