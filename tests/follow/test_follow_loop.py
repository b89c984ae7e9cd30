"""The follow loop: steps that follow each other share a commit; a stop still commits."""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any

import pytest

from sealverify._internal.follow.events import Event
from sealverify._internal.follow.loop import LoopOptions, _Signals, _steps
from sealverify._internal.follow.waiting import Waiter, open_waiter
from tests.helpers.follow_support import append, until


class _Follower:
    """Three steps that each find a receipt, then nothing: counts the commits."""

    def __init__(self) -> None:
        self.changes = 0
        self.left = 3
        self.commits = 0
        self.positions: dict[str, Any] = {}
        self.last_commit: float | None = None

    def step(self) -> list[Event]:
        if not self.left:
            return []
        self.left -= 1
        self.changes += 1
        return [Event(b"{}\n", False, "VERIFIED", None)]

    def commit(self) -> bool:
        if not self.changes:
            return False
        self.commits += 1
        self.changes = 0
        return True


class _StopOnWait(Waiter):
    """A wait that is a SIGTERM: the loop must commit what it staged and stop."""

    def __init__(self, signals: list[_Signals]) -> None:
        super().__init__(1.0)
        self.signals = signals
        self.waits: list[float | None] = []

    def wait(self, seconds: float | None = None) -> None:
        self.waits.append(seconds)
        self.signals[0].stop = True


@pytest.mark.parametrize(("seconds", "commits"), [(3600.0, 1), (0.0, 3)])
def test_steps_share_a_commit_until_it_is_due_and_a_stop_commits(
    seconds: float, commits: int
) -> None:
    follower = _Follower()
    holder: list[_Signals] = []
    waiter = _StopOnWait(holder)
    signals = _Signals(waiter)
    holder.append(signals)
    try:
        out = io.BytesIO()
        options = LoopOptions(commit_seconds=seconds)
        assert _steps(follower, options, out, print, signals, None) is False  # type: ignore[arg-type]
    finally:
        signals.restore()
    assert out.getvalue() == b"{}\n" * 3  # every event written at once, whatever the commits
    assert (follower.commits, follower.changes) == (commits, 0)
    assert len(waiter.waits) == (1 if seconds else 0)


class _Gathering(Waiter):
    """Records the gathering waits between steps; returns at once."""

    def __init__(self) -> None:
        super().__init__(1.0)
        self.gathered: list[float] = []
        self.waits: list[float | None] = []
        self.busy_steps = 0

    def gather(self, seconds: float) -> None:
        self.gathered.append(seconds)

    def busy(self) -> None:
        self.busy_steps += 1

    def wait(self, seconds: float | None = None) -> None:
        self.waits.append(seconds)


@pytest.mark.parametrize(
    ("gather", "once", "gathered"), [(3600.0, False, 3), (0.0, False, 0), (3600.0, True, 0)]
)
def test_steps_let_lines_gather_between_steps(gather: float, once: bool, gathered: int) -> None:
    """A step starts ``gather_seconds`` after the one before at the soonest; the first at once.

    Three steps find a receipt each, the fourth nothing: with a gathering time, each step
    after the first waits for what lands meanwhile (a writer's lines, read in one step).
    """
    follower = _Follower()
    waiter = _Gathering()
    signals = _Signals(waiter)
    try:
        options = LoopOptions(commit_seconds=0.0, gather_seconds=gather, once=once)
        assert _steps(follower, options, io.BytesIO(), print, signals, None) is False  # type: ignore[arg-type]
    finally:
        signals.restore()
    assert len(waiter.gathered) == gathered
    assert all(0 < seconds <= gather for seconds in waiter.gathered)
    assert follower.commits == 3
    assert waiter.busy_steps == 3  # each step that found a receipt; not the one finding none


def test_a_signal_ends_a_gathering_wait() -> None:
    """SIGTERM's handler interrupts the waiter: a gathering wait must not outlast it."""
    waiter = Waiter(1.0)
    waiter.interrupt()
    waiter.gather(30.0)  # returns at once: the interrupt came first (else, after 30 s)


def test_a_busy_follower_watches_no_folder_until_it_waits(tmp_path: Path) -> None:
    """While steps find lines, no file event is needed: the watches are removed (no thread
    of watchdog's then handles the writer's appends, one inotify event a write). The next
    wait watches again and returns at once, so the loop looks again before waiting: a line
    appended while nothing watched is read by that look, and a later one ends the wait.
    """
    pytest.importorskip("watchdog")
    log = tmp_path / "r.jsonl"
    waiter = open_waiter([str(log)], interval=600.0, poll=False)
    assert waiter.kind == "watchdog"
    observer = waiter._observer  # type: ignore[attr-defined]
    try:
        assert observer.emitters
        waiter.busy()
        assert not observer.emitters  # nothing watched while the loop steps on
        append(log, b"{}\n")
        done = threading.Event()
        threading.Thread(target=lambda: (waiter.wait(), done.set()), daemon=True).start()
        until(done.is_set, "the wait after a busy step to return at once")
        assert observer.emitters  # watched again: the next wait ends on a file event
        done.clear()
        threading.Thread(target=lambda: (waiter.wait(), done.set()), daemon=True).start()
        until(lambda: (append(log, b"\n"), done.wait(0.05))[1], "a file event to end the wait")
    finally:
        waiter.close()
