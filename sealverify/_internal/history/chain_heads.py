"""Where each chain head occurs, in flat memory: fixed records in sorted runs, merged once.

Naming a break (a reordering links to a later record, an insertion to an earlier one) asks, for
a head, the last record that has it and the last one before a position. The index answering
that once held a list and a location string per record, about 300 bytes each, so a broken log
near the input cap took hundreds of megabytes. Here a record is 48 bytes (the head's 32, its
position, its log and its line number) in a buffer of at most :data:`BOUND`; a full buffer is
sorted and written to an unnamed temporary file, the runs are merged once into sorted blocks
of :data:`BLOCK` records, and a lookup reads one block found by the first record of each.
"""

from __future__ import annotations

import hashlib
import heapq
import os
import struct
import tempfile
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from typing import IO

__all__ = ["BLOCK", "BOUND", "Heads"]

_RECORD = struct.Struct(">32sIIQ")  # the head, the record's position, its log, its line
_SIZE = _RECORD.size
_LAST = b"\xff" * (_SIZE - 32)  # after every record of one head
BOUND = 1 << 12  # records held before a sorted run is written out (about 350 KiB)
BLOCK = 1 << 8  # records of the merged index read per lookup (12 KiB)


def _digest(head: str) -> bytes:
    """The head's 32 bytes (a well-formed head is 64 hex digits); any other text hashed."""
    if len(head) == 64:
        try:
            raw = bytes.fromhex(head)
        except ValueError:
            pass
        else:
            if raw.hex() == head:  # lowercase: another spelling is another head
                return raw
    return hashlib.sha256(head.encode("utf-8", "surrogatepass")).digest()


class Heads:
    """Where each head occurs, built once from every record (maps rebuilt per break were n*n).

    A temporary file that cannot be written keeps the records in memory instead: the answers
    stay whole, only the memory bound is lost.
    """

    def __init__(self, records: Iterable[tuple[str, str, int]], bound: int = BOUND) -> None:
        """``records``: each record's ``(head, log name, line number)``, in log order."""
        self._logs: dict[str, int] = {}
        self._held: list[bytes] = []  # every record, sorted, while they fit in one run
        self._file: IO[bytes] | None = None
        self._runs: list[tuple[int, int]] = []  # each run's (offset, records) in the file
        self._firsts: list[bytes] = []  # the first record of each merged block
        self._merged = 0  # the merged index's offset in the file
        buffer: list[bytes] = []
        spill = True  # False once a run could not be written: the rest is kept in memory
        for position, (head, log, number) in enumerate(records):
            source = self._logs.setdefault(log, len(self._logs))
            buffer.append(_RECORD.pack(_digest(head), position, source, number))
            if spill and len(buffer) >= bound:
                spill = self._write_run(buffer)
                buffer = buffer if not spill else []
        if self._runs and spill and self._write_run(buffer):
            self._merge()
        else:
            runs = (self._run(offset, count) for offset, count in self._runs)
            self._held = sorted([*buffer, *(r for run in runs for r in run)])
            self._close()
        self._names = list(self._logs)

    def _write_run(self, buffer: list[bytes]) -> bool:
        """Write ``buffer`` sorted as one run; False (records kept) when no file can be written."""
        try:
            if self._file is None:
                # held open until the index is dropped: every lookup reads it
                self._file = tempfile.TemporaryFile(prefix="sealverify-heads-")  # noqa: SIM115
            offset = self._file.seek(0, os.SEEK_END)
            self._file.write(b"".join(sorted(buffer)))
        except OSError:
            return False
        self._runs.append((offset, len(buffer)))
        return True

    def _run(self, offset: int, count: int) -> Iterator[bytes]:
        assert self._file is not None
        for start in range(0, count, BLOCK):
            taken = min(BLOCK, count - start)
            data = os.pread(self._file.fileno(), taken * _SIZE, offset + start * _SIZE)
            yield from (data[k : k + _SIZE] for k in range(0, len(data), _SIZE))

    def _merge(self) -> None:
        """Merge the runs, once, into sorted blocks after them; keep each block's first record."""
        assert self._file is not None
        self._file.flush()
        self._merged = self._file.seek(0, os.SEEK_END)
        block: list[bytes] = []
        for record in heapq.merge(*(self._run(offset, count) for offset, count in self._runs)):
            if not block:
                self._firsts.append(record)
            block.append(record)
            if len(block) == BLOCK:
                self._file.write(b"".join(block))
                block = []
        self._file.write(b"".join(block))
        self._file.flush()

    def _block(self, index: int) -> list[bytes]:
        assert self._file is not None
        at = self._merged + index * BLOCK * _SIZE
        data = os.pread(self._file.fileno(), BLOCK * _SIZE, at)
        return [data[k : k + _SIZE] for k in range(0, len(data), _SIZE)]

    def _at_most(self, key: bytes) -> bytes | None:
        """The greatest record not after ``key``."""
        if self._file is None:
            k = bisect_right(self._held, key)
            return self._held[k - 1] if k else None
        b = bisect_right(self._firsts, key)
        if not b:
            return None
        block = self._block(b - 1)
        return block[bisect_right(block, key) - 1]  # its first record is not after key

    def _before(self, key: bytes) -> bytes | None:
        """The greatest record before ``key``."""
        if self._file is None:
            k = bisect_left(self._held, key)
            return self._held[k - 1] if k else None
        b = bisect_left(self._firsts, key)
        if not b:
            return None
        block = self._block(b - 1)
        return block[bisect_left(block, key) - 1]  # its first record is before key

    def _found(self, digest: bytes, record: bytes | None) -> tuple[int, str]:
        if record is None or record[:32] != digest:
            return -1, ""
        _, position, source, number = _RECORD.unpack(record)
        return position, f"{self._names[source]}:{number}"

    def last(self, head: str) -> tuple[int, str]:
        """Position and location of the last record whose head is ``head`` ((-1, "") when none)."""
        digest = _digest(head)
        return self._found(digest, self._at_most(digest + _LAST))

    def last_before(self, head: str, i: int) -> tuple[int, str]:
        """Position and location of the last record before ``i`` whose head is ``head``."""
        digest = _digest(head)
        return self._found(digest, self._before(digest + struct.pack(">I", i)))

    def _close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self._runs = []

    def __del__(self) -> None:
        self._close()
