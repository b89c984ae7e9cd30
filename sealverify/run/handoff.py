"""What the session grouping read, handed to the task that verifies it (a run in one process).

The grouping pass (``receipts/sessions.py``) reads every separate receipt file before any task
runs. In a run in one process (``--jobs 1``) the bytes it read, and the strict reading it made
of them (:func:`read_document`), are kept for the task, within one memory budget: so each file
is read once and each receipt parsed once, and a task is handed only the reading of the very
bytes it verifies (:meth:`ReceiptDocument.of`). Beyond the budget nothing more is kept and the
task reads and parses again, so memory stays bounded. The lines of a JSONL log are not kept:
a log is verified slice by slice in flat memory, however long it is.
"""

from __future__ import annotations

from collections.abc import Iterable

from sealverify.errors import InputError
from sealverify.receipts.families import ReceiptDocument, read_document
from sealverify.receipts.sessions import Glance, glance, glance_document
from sealverify.run import storage
from sealverify.run.reading import read_file

__all__ = ["DOCUMENT_WEIGHT", "Handoff"]

# A strict reading holds about 2.7 times its document's bytes (measured with tracemalloc on
# minted receipts); it is charged three times them, on top of the bytes themselves.
DOCUMENT_WEIGHT = 3


class Handoff:
    """Receipt files read for session grouping, held to ``--max-input-bytes``, and what is kept.

    An unreadable or too large file is None here: its own task reads it again and reports
    it. Up to ``keep`` bytes (a file's bytes, and three times them for its reading) are kept
    until a task takes them (:meth:`hand_over`).
    """

    def __init__(self, limit: int, keep: int) -> None:
        self.limit = limit
        self.room = keep
        self.kept: dict[str, bytes] = {}
        self.readings: dict[str, ReceiptDocument] = {}

    def __call__(self, name: str) -> bytes | None:
        """A receipt file's bytes (kept while the budget has room), or None."""
        if (data := self.kept.get(name)) is not None:
            return data
        try:
            # A local name is read as it is (no path object: the task makes its own).
            if storage.is_url(name):
                data = storage.locate(name).read_bytes()  # a stored object is read as is
            else:
                data = read_file(name, None, self.limit)
        except (OSError, InputError):  # unreadable, or refused as too large
            return None
        if len(data) <= self.room:
            self.kept[name] = data
            self.room -= len(data)
        return data

    def look(self, name: str, data: bytes) -> Glance | None:
        """A file's session facts: from its strict reading, kept, when its bytes are kept.

        A document the strict parser refuses is glanced as :func:`glance` does (its reading
        is kept all the same: the task reports from it).
        """
        weight = DOCUMENT_WEIGHT * len(data)  # its bytes are charged already
        if name not in self.kept or not self.room or weight > self.room:  # no budget: none
            return glance(data)
        self.room -= weight
        read = self.readings[name] = read_document(data)
        return glance(data) if read.document is None else glance_document(read.document)

    def hand_over(
        self, names: Iterable[str]
    ) -> tuple[tuple[tuple[str, bytes], ...], tuple[tuple[str, ReceiptDocument], ...]]:
        """The kept bytes and readings of these files, no longer kept (nor charged) here."""
        if not self.kept:
            return (), ()
        wanted = [name for name in names if name in self.kept]
        data = tuple((name, self.kept.pop(name)) for name in wanted)
        pop = self.readings.pop
        readings = tuple((name, pop(name)) for name in wanted if name in self.readings)
        self.room += sum(len(d) for _, d in data)
        self.room += sum(DOCUMENT_WEIGHT * len(read.raw) for _, read in readings)
        return data, readings
