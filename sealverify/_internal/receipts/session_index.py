"""The sessions of one run and the operations each runs: what a session pass across inputs needs.

A verify run reads every receipt that names a session once more before its tasks are cut
(``receipts/sessions.py``); this index remembers, per session, the input it was first seen in,
and per operation the session that ran it, so that a session whose receipts sit in several
inputs is re-derived across all of them (``receipts/spanning.py``) and an operation named in two
sessions is refuted wherever each half sits.

Memory is per session, not per receipt: an operation is one 20-byte record (a 16-byte digest
and its session's number) in a buffer of at most :data:`BOUND` records; a full buffer is
sorted and written to an unnamed temporary file, and the sorted runs are merged once every
receipt is seen, keeping only the operations named in two sessions (an attack, or a
contradiction: few) and the digests of those named by two receipts (copies of one call, whose
result a session pass keeps for the copy: none in a log without copies).
"""

from __future__ import annotations

import hashlib
import heapq
import os
from collections.abc import Iterable, Iterator
from typing import IO

__all__ = [
    "BOUND",
    "FILES",
    "RECORD",
    "OperationLedger",
    "SessionIndex",
    "contradiction",
    "operation_digest",
]

FILES = -1  # the group of every separate receipt file of the run (ordered together already)
_SPANS = -2

_DIGEST = 16
RECORD = _DIGEST + 4  # an operation's digest, then its session's number (big-endian)
BOUND = 1 << 15  # records held in memory (640 KiB) before a sorted run is written out
_READ = 1 << 8  # records read at a time from each run while merging (5 KiB)


class OperationLedger:
    """Which session each operation runs in, in flat memory: sorted runs, merged once.

    :meth:`add` appends a record; :meth:`contested` merges the records (in memory, and the
    runs written to disk beyond :data:`BOUND`) into the operations named in more than one
    session. A temporary file that cannot be written keeps the records in memory instead:
    the answer stays whole, only the memory bound is lost.
    """

    def __init__(self, bound: int = BOUND) -> None:
        self.bound = bound
        self.buffer = bytearray()
        self.count = 0  # records added, in memory and on disk
        self._spill: IO[bytes] | None = None
        self._runs: list[tuple[int, int]] = []  # each run's (offset, records) in the file
        self._contested: dict[bytes, frozenset[int]] | None = {}
        self._repeated: frozenset[bytes] = frozenset()  # digests named by two receipts or more

    def __len__(self) -> int:
        return self.count

    def add(self, digest: bytes, number: int) -> None:
        """The operation with this digest runs in session ``number``."""
        self.buffer += digest
        self.buffer += number.to_bytes(4, "big")
        self.count += 1
        self._contested = None
        if len(self.buffer) >= self.bound * RECORD:
            self._write_run()

    def _write_run(self) -> None:
        records = sorted(_records(self.buffer))  # copies kept: they are counted when merged
        try:
            if self._spill is None:
                import tempfile  # a spill only: most runs never reach the bound

                # held open until close(): the runs are read back from it
                self._spill = tempfile.TemporaryFile(prefix="sealverify-operations-")  # noqa: SIM115
            spill = self._spill
            offset = spill.seek(0, os.SEEK_END)
            spill.write(b"".join(records))
            spill.flush()
        except OSError:
            self.bound = 1 << 62  # no room on disk: hold the records in memory instead
            return
        self._runs.append((offset, len(records)))
        self.buffer = bytearray()

    def contested(self) -> dict[bytes, frozenset[int]]:
        """Each operation digest named in more than one session, with the sessions' numbers."""
        if self._contested is None:
            self._merge()
        assert self._contested is not None
        return self._contested

    def repeated(self) -> frozenset[bytes]:
        """Each operation digest named by more than one receipt (copies of a call, or worse)."""
        if self._contested is None:
            self._merge()
        return self._repeated

    def _merge(self) -> None:
        found: dict[bytes, frozenset[int]] = {}
        repeated: set[bytes] = set()
        runs = [iter(sorted(_records(self.buffer)))]
        runs += [self._read_run(offset, n) for offset, n in self._runs]
        digest, numbers, count = b"", set[int](), 0
        for record in heapq.merge(*runs):
            if record[:_DIGEST] != digest:
                _found(found, repeated, digest, numbers, count)
                digest, numbers, count = record[:_DIGEST], set(), 0
            numbers.add(int.from_bytes(record[_DIGEST:], "big"))
            count += 1
        _found(found, repeated, digest, numbers, count)
        self._contested, self._repeated = found, frozenset(repeated)

    def _read_run(self, offset: int, count: int) -> Iterator[bytes]:
        """A written run's records, read a few at a time (its file is positioned by offset)."""
        assert self._spill is not None
        descriptor = self._spill.fileno()
        while count:
            take = min(count, _READ)
            block = os.pread(descriptor, take * RECORD, offset)
            if len(block) != take * RECORD:
                raise OSError("the temporary file of the session index was cut short")
            yield from _records(block)
            offset += len(block)
            count -= take

    def close(self) -> None:
        """Drop the records, once every receipt is seen; what :meth:`contested` found stays.

        The temporary file has no name: closing it frees its space.
        """
        self.contested()
        self.buffer = bytearray()
        if self._spill is not None:
            self._spill.close()
            self._spill = None
            self._runs.clear()


def _records(data: bytes | bytearray) -> list[bytes]:
    return [bytes(data[at : at + RECORD]) for at in range(0, len(data), RECORD)]


def _found(
    found: dict[bytes, frozenset[int]],
    repeated: set[bytes],
    digest: bytes,
    numbers: set[int],
    count: int,
) -> None:
    """One operation's records merged: contested in two sessions, repeated by two receipts."""
    if len(numbers) > 1:
        found[digest] = frozenset(numbers)
    if count > 1:
        repeated.add(digest)


class SessionIndex:
    """The sessions of a run: where each was first seen, and which operation runs in which.

    A session seen in a second input spans inputs (:meth:`spanning`). An operation is one
    call, run in one session (seal-host@099be66 ``rust/src/release.rs``: the host draws each
    ``operation_id`` at random and re-signs a receipt only within its call): an operation
    named in two sessions is a contradiction (:meth:`contradiction`), wherever each half sits.
    Held: per session its name, its number and an input number (about 150 bytes with a
    40-character name); per operation a 20-byte record, in memory up to :data:`BOUND` of
    them and on disk beyond (:class:`OperationLedger`).
    """

    def __init__(self, bound: int = BOUND) -> None:
        self.numbers: dict[str, int] = {}  # session -> its number, the index into names
        self.names: list[str] = []
        self.sources: list[int] = []  # by session number: the input first seen in, or spans
        self.operations = OperationLedger(bound)

    @property
    def first(self) -> dict[str, int]:
        """Each session with the input it was first seen in (or spans)."""
        return {name: self.sources[n] for name, n in self.numbers.items()}

    @property
    def contested(self) -> dict[bytes, frozenset[int]]:
        """Each operation named in two sessions or more (by digest), once every receipt is seen."""
        return self.operations.contested()

    def see(self, session: str, source: int, operation: str | None = None) -> None:
        """A receipt of ``session`` in input ``source`` (:data:`FILES` for any separate file)."""
        number = self.numbers.get(session)
        if number is None:
            number = self.numbers[session] = len(self.names)
            self.names.append(session)
            self.sources.append(source)
        elif self.sources[number] != source:
            self.sources[number] = _SPANS
        if operation is not None:
            self.operations.add(_digest(operation), number)

    def repeated(self, operation: str) -> bool:
        """Whether more than one receipt the index saw names ``operation``.

        Only such an operation can have a copy to recognise: a session pass keeps a call's
        result for its copies only then (``receipts/sessions.py`` ``SessionPasses``).
        """
        return _digest(operation) in self.operations.repeated()

    def spanning(self) -> frozenset[str]:
        """The sessions seen in more than one input."""
        return frozenset(s for s, n in self.numbers.items() if self.sources[n] == _SPANS)

    def contradiction(self, session: str, operation: str | None) -> str | None:
        """Why a receipt of ``session`` naming ``operation`` is refuted, or None.

        The reason names the other sessions the operation runs in.
        """
        contested = self.contested
        if operation is None or not contested:
            return None
        numbers = contested.get(_digest(operation))
        if numbers is None:
            return None
        return contradiction(operation, session, (self.names[n] for n in numbers))

    def close(self) -> None:
        """Free the operations' records once every receipt is seen (the contested stay)."""
        self.operations.close()


def contradiction(operation: str, session: str, sessions: Iterable[str]) -> str | None:
    """Why a receipt of ``session`` naming ``operation`` is refuted when ``sessions`` name it too.

    None when no other session names it (copies of one call, in one session).
    """
    others = sorted({name for name in sessions if name != session})
    if not others:
        return None
    difference = (
        f"operation: {operation} is in session {session} and in session "
        + ", ".join(others)
        + " (one operation is one call, in one session)"
    )
    return f"the receipts of the run contradict each other: {difference}"


def operation_digest(operation: str) -> bytes:
    """The 16-byte digest an operation is indexed by."""
    return _digest(operation)


def _digest(operation: str) -> bytes:
    return hashlib.sha256(operation.encode("utf-8", "surrogatepass")).digest()[:_DIGEST]
