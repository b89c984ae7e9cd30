"""A determinate progress display on stderr (tqdm), shown only when stderr is a terminal."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sealverify.reports.visible import visible

__all__ = ["Advance", "progress", "shown"]

Advance = Callable[[int], object]


def shown() -> bool:
    """Whether progress is displayed: only on a terminal, never in captured or piped output."""
    return sys.stderr.isatty()


def _nothing(count: int) -> None:
    del count


@contextmanager
def progress(
    label: str, total: int | None, unit: str, *, unit_scale: bool = False
) -> Iterator[Advance]:
    """Yield ``advance(n)``; on a terminal it drives a bar with count, rate and ETA.

    With a known ``total`` the bar is determinate (percentage and ETA); without one it shows
    the count and the rate. Off a terminal nothing is written and tqdm is not even imported.
    """
    if not shown():
        yield _nothing
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
        yield bar.update
    finally:
        bar.close()
