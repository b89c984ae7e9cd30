"""A determinate progress display on stderr (tqdm), shown only when stderr is a terminal."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from sealverify._internal.reports.visible import visible

__all__ = ["Advance", "progress", "shown"]


class Advance(Protocol):
    """What :func:`progress` yields: ``advance(n)`` counts ``n`` units done."""

    def __call__(self, count: int) -> object: ...

    def uncount(self, count: int) -> None:
        """Take ``count`` from the total: entries counted ahead that are not units.

        A broken log line was counted as a line but is no receipt: the bar ends where the
        summary does.
        """


class _Nothing:
    def __call__(self, count: int) -> None:
        del count

    def uncount(self, count: int) -> None:
        del count


class _Bar:
    def __init__(self, bar: Any) -> None:
        self._bar = bar
        self._update = bar.update

    def __call__(self, count: int) -> object:
        return self._update(count)

    def uncount(self, count: int) -> None:
        if self._bar.total is not None:
            self._bar.total = max(self._bar.total - count, self._bar.n)
            self._bar.refresh()


def shown() -> bool:
    """Whether progress is displayed: only on a terminal, never in captured or piped output."""
    return sys.stderr.isatty()


@contextmanager
def progress(
    label: str, total: int | None, unit: str, *, unit_scale: bool = False
) -> Iterator[Advance]:
    """Yield ``advance(n)``; on a terminal it drives a bar with count, rate and ETA.

    With a known ``total`` the bar is determinate (percentage and ETA); without one it shows
    the count and the rate. Off a terminal, or for a total of one unit or none (a bar for one
    receipt is noise), nothing is written and tqdm is not even imported.
    """
    if not shown() or (total is not None and total <= 1):
        yield _Nothing()
        return
    from tqdm import tqdm  # imported only for a terminal: piped runs never pay for it

    try:
        columns = os.get_terminal_size(sys.stderr.fileno()).columns
    except OSError:
        columns = 0
    bar = tqdm(
        total=total,
        ncols=None if columns else 80,  # a terminal that reports no width still gets a bar
        desc=visible(label),  # a label is the command's own text; escaped all the same
        unit=unit,
        unit_scale=unit_scale,
        file=sys.stderr,
        dynamic_ncols=bool(columns),
        mininterval=0.2,
        leave=True,
    )
    try:
        yield _Bar(bar)
    finally:
        bar.close()
