"""The process pool a run with workers verifies in: fresh interpreters, never a fork of this one."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from multiprocessing import get_context
from multiprocessing.pool import Pool
from typing import Any

from sealverify._internal.run import storage

__all__ = ["worker_pool"]


def _start(
    options: dict[str, Any], initializer: Callable[..., None], initargs: tuple[Any, ...]
) -> None:
    # A fresh worker inherits no module state: it is handed the run's --storage-option values,
    # the one setting the run makes process-wide, before the run's own initializer.
    storage.configure(options)
    initializer(*initargs)


def worker_pool(
    processes: int, initializer: Callable[..., None], initargs: tuple[Any, ...]
) -> Pool:
    """``processes`` workers started by ``initializer(*initargs)``, each a fresh interpreter.

    The ``spawn`` start method on every platform: a ``fork`` of a process that runs threads (a
    progress bar's, a storage client's, a test runner's) copies locks other threads may hold,
    so the child can deadlock; CPython 3.12 warns of it and 3.14 no longer forks by default.
    A fresh interpreter reads the environment as it is now and imports what the task needs.
    Workers start with Ctrl-C ignored (an ignored signal stays ignored across ``exec``), so a
    Ctrl-C while they import is the parent's alone, as it is once they run.
    """
    options = storage.storage_options()
    context = get_context("spawn")
    if threading.current_thread() is not threading.main_thread():
        return context.Pool(processes, _start, (options, initializer, initargs))
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return context.Pool(processes, _start, (options, initializer, initargs))
    finally:
        signal.signal(signal.SIGINT, before)
