"""The follow loop: steps that follow each other share a commit; a stop still commits."""

from __future__ import annotations

import io
from typing import Any

import pytest

from sealverify._internal.follow.events import Event
from sealverify._internal.follow.loop import LoopOptions, _Signals, _steps
from sealverify._internal.follow.waiting import Waiter


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
