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

from sealverify._internal.kernel.receipt_inputs import Frames
from sealverify._internal.receipts.families import ReceiptDocument, read_document
from sealverify._internal.receipts.sessions import Glance, glance, glance_document
from sealverify._internal.receipts.view import ReceiptView, read_view
from sealverify._internal.run import storage
from sealverify._internal.run.reading import read_file
from sealverify._internal.wire.strictjson import JsonValue
from sealverify.errors import InputError

__all__ = ["DOCUMENT_WEIGHT", "Handed", "Handoff"]

# A strict reading holds about 2.7 times its document's bytes (measured with tracemalloc on
# minted receipts); it is charged three times them, on top of the bytes themselves.
DOCUMENT_WEIGHT = 3

# What a task is handed, by file name: the bytes, their strict readings, the views made.
Handed = tuple[
    tuple[tuple[str, bytes], ...],
    tuple[tuple[str, ReceiptDocument], ...],
    tuple[tuple[str, ReceiptView], ...],
]


class Handoff:
    """Receipt files read for session grouping, held to ``--max-input-bytes``, and what is kept.

    An unreadable or too large file is None here: its own task reads it again and reports
    it. Up to ``keep`` bytes (a file's bytes, and three times them for its reading) are kept
    until a task takes them (:meth:`hand_over`). With ``every`` (a run in one process, which
    verifies every file here) every file read is kept while there is room; without it (the
    tasks run in workers or on a cluster, which read their own files) none is, and the room
    serves only what the session pass hands on beside its results (:meth:`grant`): the
    frames it decoded, so a session's receipts are decoded once wherever they are verified.
    """

    def __init__(self, limit: int, keep: int, every: bool = True) -> None:
        self.limit = limit
        self.room = keep
        self.every = every
        self.kept: dict[str, bytes] = {}
        self.readings: dict[str, ReceiptDocument] = {}
        self.views: dict[str, ReceiptView] = {}  # made for the session pass, kept for the task

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
        if self.every and len(data) <= self.room:
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

    def view(self, name: str, data: bytes) -> tuple[dict[str, JsonValue], Frames] | None:
        """The kept reading of these very bytes for the session pass, its view made once.

        The view (``receipts/view.py``: Object A and the release frame decoded, the request
        line parsed) is the one the file's task verifies with, so the session pass and the
        checks read the receipt once. None when no reading of ``data`` is kept.
        """
        read = self.readings.get(name)
        if read is None or read.document is None or not read.of(data):
            return None
        made = read_view(read.document, read.family)
        if len(data) <= self.room:  # a view is charged its document's bytes (what it decodes)
            self.room -= len(data)
            self.views[name] = made
        return read.document, made.frames

    def grant(self, weight: int) -> bool:
        """Whether the budget has room for ``weight`` more (then charged until :meth:`refund`).

        For what the session pass hands on beside its results (``receipts/sessions.py``
        ``SessionRederivation``): the frames it decoded, held until their task takes them.
        """
        if weight > self.room:
            return False
        self.room -= weight
        return True

    def refund(self, weight: int) -> None:
        """``weight`` granted by :meth:`grant` is no longer held."""
        self.room += weight

    def hand_over(self, names: Iterable[str]) -> Handed:
        """The kept bytes, readings and views of these files, no longer kept (nor charged)."""
        if not self.kept:
            return (), (), ()
        wanted = [name for name in names if name in self.kept]
        data = tuple((name, self.kept.pop(name)) for name in wanted)
        pop = self.readings.pop
        readings = tuple((name, pop(name)) for name in wanted if name in self.readings)
        views = tuple((name, self.views.pop(name)) for name in wanted if name in self.views)
        sizes = dict((name, len(d)) for name, d in data)
        self.room += sum(sizes.values()) + sum(sizes[name] for name, _ in views)
        self.room += sum(DOCUMENT_WEIGHT * len(read.raw) for _, read in readings)
        return data, readings, views
