"""The per-record view the html report draws, in flat memory: the first rows held, the rest spilled.

The html page lists its first rows and groups every record into the cells of a timeline; it
reads the records once, in order. A view per record held for the whole log was about 1 KB a
record, so :class:`RecordViews` holds the first :data:`HELD` and writes the rest, one
``marshal`` tuple each, to an unnamed temporary file it reads back in order.
"""

from __future__ import annotations

import marshal
import tempfile
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["FIELDS", "HELD", "RecordViews"]

# What a record's view holds, in this order in a spilled tuple.
FIELDS = (
    "entry",
    "session",
    "location",
    "payload",
    "prev_head",
    "head",
    "prior_session",
    "commits",
    "links",
    "anchors",
)
HELD = 2_000  # views held in memory (the rows an html page lists); the rest are spilled


class RecordViews:
    """Each record's view (a dict of :data:`FIELDS`), in log order; :meth:`append`, then read.

    Each pass reads the spill file from its start. A temporary file that cannot be written
    keeps the views from there on in memory instead: only the memory bound is lost.
    """

    def __init__(self, held: int = HELD) -> None:
        self.held = held
        self._rows: list[dict[str, Any]] = []  # the first ``held``
        self._spill: IO[bytes] | None = None
        self._spilled = 0  # the views after them, in the spill file
        self._tail: list[dict[str, Any]] | None = None  # the rest, once the file failed

    def __len__(self) -> int:
        return len(self._rows) + self._spilled + len(self._tail or ())

    def append(self, view: dict[str, Any]) -> None:
        if len(self._rows) < self.held:
            self._rows.append(view)
        elif self._tail is not None or not self._write(view):
            self._tail = self._tail or []
            self._tail.append(view)

    def _write(self, view: dict[str, Any]) -> bool:
        try:
            if self._spill is None:
                # held open until the views are dropped: the page reads them back
                self._spill = tempfile.TemporaryFile(prefix="sealverify-chain-")  # noqa: SIM115
            marshal.dump(tuple(view[name] for name in FIELDS), self._spill)
        except OSError:
            return False  # a value cut short is never read: only ``_spilled`` are
        self._spilled += 1
        return True

    def __iter__(self) -> Iterator[dict[str, Any]]:
        yield from self._rows
        spill = self._spill
        if spill is not None and self._spilled:
            spill.flush()
            spill.seek(0)
            for _ in range(self._spilled):
                view = dict(zip(FIELDS, marshal.load(spill), strict=True))
                view["anchors"] = list(view["anchors"])
                yield view
            spill.seek(0, 2)
        yield from self._tail or ()
