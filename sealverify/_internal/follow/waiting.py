"""Waiting for the inputs to change: file events through ``watchdog``, or polling.

With the ``follow`` extra installed, a ``watchdog`` observer (inotify on Linux) watches the
folders that hold the followed inputs, and a wait ends as soon as anything in them changes;
the wait still ends after ``interval`` seconds, so a change the observer missed (a network
file system, a full event queue) is seen at the next poll. Without watchdog, or with
``--poll``, the wait is the poll interval alone.

The folders are watched only while the follower may wait: a step that found something says
so (:meth:`Waiter.busy`) and the watches are removed, since the loop steps again without
waiting for an event; a writer appending steadily would otherwise cost watchdog's threads
more CPU per line than reading it (an inotify event a write). The next wait sets them up
again and returns at once, so the caller looks once more before a real wait: a change made
between its last look and the new watch is read by that look, and any later one is an event.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["Waiter", "changes", "open_waiter"]


class Waiter:
    """Polling: each wait lasts ``interval`` seconds unless :meth:`wake` ends it sooner."""

    kind = "poll"

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._changed = threading.Event()
        self._urgent = threading.Event()  # a signal: a gathering wait ends at once

    def wait(self, seconds: float | None = None) -> None:
        """Until something may have changed (or ``interval``, or ``seconds``, passed); reset."""
        self._changed.wait(self.interval if seconds is None else min(seconds, self.interval))
        self._changed.clear()

    def gather(self, seconds: float) -> None:
        """Let what lands in the next ``seconds`` gather, unless :meth:`interrupt` ends it.

        File events do not end it: a writer appending a line at a time would otherwise make
        one step a line.
        """
        self._urgent.wait(seconds)
        self._urgent.clear()

    def wake(self) -> None:
        self._changed.set()

    def busy(self) -> None:
        """The last step found something: the loop steps again without a file event."""

    def interrupt(self) -> None:
        """End any wait, a gathering one too (a signal, or closing)."""
        self._urgent.set()
        self._changed.set()

    def close(self) -> None:
        self.interrupt()


class _EventWaiter(Waiter):
    kind = "watchdog"

    def __init__(self, interval: float, folders: Iterable[Path]) -> None:
        super().__init__(interval)
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        waiter = self

        class _Wake(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                if changes(event):
                    waiter.wake()

        self._observer: Any = Observer()
        self._handler = _Wake()
        self._folders = sorted(set(folders))
        self._watches: list[Any] | None = None  # None: paused (:meth:`busy`)
        self._arm(strict=True)  # a folder that cannot be watched now: poll instead
        self._observer.daemon = True
        self._observer.start()

    def _arm(self, strict: bool = False) -> None:
        """Watch the folders; one that cannot be watched again (gone since) is polled."""
        self._watches = []
        for folder in self._folders:
            try:
                watch = self._observer.schedule(self._handler, str(folder), recursive=True)
            except OSError:
                if strict:
                    raise
                continue
            self._watches.append(watch)

    def busy(self) -> None:
        """Remove the watches until the next wait (see the module's docstring)."""
        if self._watches is not None:
            self._observer.unschedule_all()  # the observer holds these watches only
        self._watches = None

    def wait(self, seconds: float | None = None) -> None:
        """As :meth:`Waiter.wait`; when paused, watch again and return at once (look again)."""
        if self._watches is None:
            self._arm()
            return
        super().wait(seconds)

    def close(self) -> None:
        super().close()
        self._observer.stop()
        self._observer.join(timeout=5)


def changes(event: object) -> bool:
    """Whether a watchdog event may mean an input changed: not a file opened or read."""
    from watchdog import events

    quiet = tuple(
        getattr(events, name)
        for name in ("FileOpenedEvent", "FileClosedNoWriteEvent")
        if hasattr(events, name)  # watchdog >= 2.3 and >= 4: older ones raise neither
    )
    return not isinstance(event, quiet)


def open_waiter(paths: Iterable[str], interval: float, poll: bool) -> Waiter:
    """A watchdog waiter over the inputs' folders, or a polling one (``poll``, no watchdog)."""
    if poll:
        return Waiter(interval)
    try:
        import watchdog.observers  # noqa: F401
    except ImportError:
        return Waiter(interval)
    folders = []
    for path in paths:
        p = Path(path)
        folders.append(p if p.is_dir() else p.parent if str(p.parent) else Path("."))
    existing = [f for f in folders if f.is_dir()]
    if not existing:
        return Waiter(interval)
    try:
        return _EventWaiter(interval, existing)
    except OSError:  # no inotify watches left, and the like: poll instead
        return Waiter(interval)
