"""A followed file: its fingerprint, the lines appended since the checkpoint, and rotations.

A file is known by its fingerprint: device, inode and the sha256 of its first bytes (up to
:data:`HEAD_BYTES`), as log shippers know theirs. Each look compares the file under the
followed name with the checkpoint:

* same inode, same first bytes, at least as long: the lines appended since the offset;
* another inode under the name (rename-and-create rotation): the previous file is found
  beside it by its device and inode and drained from the offset first, then the new file is
  read from its start; when it is not there, ``follow.rotated-lost``;
* same inode, first bytes changed or shorter than the offset: a copy beside it that holds
  the checkpointed first bytes and reaches the offset is a copy-truncate rotation (the copy
  is drained from the offset, then the file is read from its start); with no such copy the
  file was rewritten (``follow.rewritten``, read again from its start) or cut
  (``follow.truncated``, read on from its new end).

Only complete lines are returned; a line still being written stays for the next look, except
in a rotated file, which no one writes to any more.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO, NamedTuple

from sealverify._internal.results.model import Check, fail
from sealverify.errors import InputError

__all__ = [
    "HEAD_BYTES",
    "Fingerprint",
    "Line",
    "LineTooLarge",
    "Look",
    "Position",
    "look",
    "read_head",
]

HEAD_BYTES = 1024  # the first bytes a fingerprint hashes (fewer while the file is shorter)


class LineTooLarge(InputError):
    """A line longer than the input cap (``--max-input-bytes``), as a batch run refuses it."""


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """Which file: device, inode, and the sha256 of its first ``head_len`` bytes."""

    dev: int
    ino: int
    head_len: int
    head_sha256: str


@dataclass(frozen=True, slots=True)
class Position:
    """A followed name's checkpoint: the file it was reading, how far, how many lines."""

    path: str
    fingerprint: Fingerprint | None = None  # None until a file exists under the name
    offset: int = 0
    line: int = 0  # lines read from this file so far (the next is line + 1)
    mtime: float = 0.0  # of the file when last read (lag in seconds)
    size: int = 0  # of the file when last looked at (lag in bytes)
    generation: int = 0  # files that held the name since the follow began, this one's count
    last_sha256: str = ""  # of the last line read, with its line feed: a copy must hold it too

    def fresh(self, fingerprint: Fingerprint | None) -> Position:
        """The position at the start of the next file under the name."""
        return Position(self.path, fingerprint, generation=self.generation + 1)


class Line(NamedTuple):
    """One complete line: the name it was read under, its number, its byte offset, its bytes."""

    source: str
    number: int
    offset: int
    data: bytes  # without its line feed
    generation: int = 0  # which file under the name (Position.generation)
    fingerprint: Fingerprint | None = None  # of the file it was read from (``locators.py``)


@dataclass(slots=True)
class Look:
    """What one look found: lines in order, findings, and the position after them."""

    position: Position
    lines: list[Line] = field(default_factory=list)
    findings: list[Check] = field(default_factory=list)
    more: bool = False  # the read stopped at its limit: more lines may be there already


def read_head(path: str, length: int) -> bytes:
    """The first ``length`` bytes of the file (fewer if it is shorter)."""
    with open(path, "rb") as handle:
        return handle.read(length)


def _fingerprint(path: str, st: os.stat_result) -> Fingerprint:
    head = read_head(path, HEAD_BYTES)
    return Fingerprint(st.st_dev, st.st_ino, len(head), hashlib.sha256(head).hexdigest())


def _stat(path: str) -> os.stat_result | None:
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def look(position: Position, limit: int, cap: int = 256 << 20) -> Look:
    """Read what was appended under ``position.path`` since the checkpoint (see the module).

    At most about ``limit`` bytes of new lines are read; a rotated file is drained whole. A
    line longer than ``cap`` bytes is refused (:class:`LineTooLarge`), as a batch run refuses
    an input larger than ``--max-input-bytes``.
    """
    found = Look(position)
    fp = position.fingerprint
    if fp is not None and _read_on_same(found, fp, limit, cap):
        return found
    st = _stat(position.path)
    if fp is None:
        if st is None:
            return found
        fresh = _fingerprint(position.path, st)
        found.position = Position(position.path, fresh, generation=position.generation)
    elif st is None or (st.st_dev, st.st_ino) != (fp.dev, fp.ino):
        _rotated(found, st)
    else:
        _same_inode(found, st)
    if found.position.fingerprint is not None and _stat(position.path) is not None:
        _read_on(found, limit, cap)
    return found


def _rotated(found: Look, st: os.stat_result | None) -> None:
    """The name holds another file (or none): drain the previous one where it was moved."""
    position = found.position
    fp = position.fingerprint
    assert fp is not None
    moved = _sibling(position.path, lambda s, _: (s.st_dev, s.st_ino) == (fp.dev, fp.ino))
    if moved is not None:
        _drain(found, moved)
    else:
        found.findings.append(
            fail(
                "follow.rotated-lost",
                f"{position.path} now holds another file and the one read up to byte "
                f"{position.offset} is not beside it: lines appended to it after that offset "
                "were not read",
                f"{position.path}:{position.line}",
            )
        )
    fresh = _fingerprint(position.path, st) if st is not None else None
    found.position = position.fresh(fresh)


def _same_inode(found: Look, st: os.stat_result) -> None:
    position = found.position
    fp = position.fingerprint
    assert fp is not None
    head = read_head(position.path, fp.head_len)
    same_head = hashlib.sha256(head).hexdigest() == fp.head_sha256 and len(head) == fp.head_len
    if same_head and st.st_size >= position.offset:
        return
    copy = _sibling(position.path, lambda s, p: _is_copy(p, s, position))
    if copy is not None:  # copy-truncate: the copy holds what was read and what followed
        _drain(found, copy)
        found.position = position.fresh(_fingerprint(position.path, st))
    elif not same_head:
        found.findings.append(
            fail(
                "follow.rewritten",
                f"the first {fp.head_len} bytes of {position.path} changed under the same "
                "name, with no rotated copy beside it: the file was rewritten; it is read "
                "again from its start",
                f"{position.path}:1",
            )
        )
        found.position = position.fresh(_fingerprint(position.path, st))
    else:
        found.findings.append(
            fail(
                "follow.truncated",
                f"{position.path} shrank from {position.offset} to {st.st_size} bytes under "
                "the same name, with no rotated copy beside it: the end of the file was cut",
                f"{position.path}:{position.line}",
            )
        )
        lines = _count_lines(position.path, st.st_size)
        found.position = replace(
            position, offset=st.st_size, line=lines, size=st.st_size, last_sha256=""
        )


def _is_copy(path: Path, st: os.stat_result, position: Position) -> bool:
    """Whether ``path`` holds what was read: the first bytes, and the last line at the offset.

    The first bytes alone could match another rotated file (receipts begin alike); the last
    line read, ending at the offset, is that receipt's own.
    """
    fp = position.fingerprint
    if fp is None or st.st_size < position.offset or not _holds(path, fp):
        return False
    if not position.last_sha256:
        return position.offset == 0
    try:
        with open(path, "rb") as handle:
            start = max(0, position.offset - (1 << 20))
            handle.seek(start)
            before = handle.read(position.offset - start)
    except OSError:
        return False
    cut = before.rfind(b"\n", 0, len(before) - 1) + 1
    return hashlib.sha256(before[cut:]).hexdigest() == position.last_sha256


def _holds(path: Path, fp: Fingerprint) -> bool:
    try:
        head = read_head(str(path), fp.head_len)
    except OSError:
        return False
    return len(head) == fp.head_len and hashlib.sha256(head).hexdigest() == fp.head_sha256


def _sibling(path: str, test: Callable[[os.stat_result, Path], bool]) -> Path | None:
    """The file beside ``path`` whose name starts with its name and passes ``test``."""
    followed = Path(path)
    try:
        names = sorted(os.listdir(followed.parent or "."))
    except OSError:
        return None
    for name in names:
        if name == followed.name or not name.startswith(followed.name):
            continue
        candidate = followed.parent / name
        st = _stat(str(candidate))
        if st is not None and test(st, candidate):
            return candidate
    return None


def _count_lines(path: str, size: int) -> int:
    count = 0
    with open(path, "rb") as handle:
        while size > 0 and (block := handle.read(min(size, 1 << 20))):
            count += block.count(b"\n")
            size -= len(block)
    return count


def _drain(found: Look, moved: Path) -> None:
    """Every line of a rotated file after the checkpoint; its last line ends the file."""
    position = found.position
    with open(moved, "rb") as handle:
        handle.seek(position.offset)
        rest = handle.read()
    _split(found, rest, final=True)


def _read_on_same(found: Look, fp: Fingerprint, limit: int, cap: int) -> bool:
    """The common look, from one open: the same file under the name, as long, same first bytes.

    Then the lines appended since the offset are read on (none when neither its size nor its
    time moved); False when anything else holds, for :func:`look` to decide.
    """
    position = found.position
    try:
        handle = open(position.path, "rb")  # noqa: SIM115 (closed by the with below)
    except OSError:
        return False
    with handle:
        st = os.fstat(handle.fileno())
        same = (st.st_dev, st.st_ino) == (fp.dev, fp.ino) and stat.S_ISREG(st.st_mode)
        if not same or st.st_size < position.offset:
            return False
        head = os.pread(handle.fileno(), fp.head_len, 0)
        if len(head) != fp.head_len or hashlib.sha256(head).hexdigest() != fp.head_sha256:
            return False
        if st.st_size == position.offset == position.size and st.st_mtime == position.mtime:
            return True  # nothing appended since the last look
        _read_from(found, handle, st, limit, cap)
    return True


def _read_on(found: Look, limit: int, cap: int) -> None:
    """The complete lines appended after the offset, about ``limit`` bytes of them at most."""
    position = found.position
    fp = position.fingerprint
    assert fp is not None
    with open(position.path, "rb") as handle:
        st = os.fstat(handle.fileno())
        if (st.st_dev, st.st_ino) != (fp.dev, fp.ino):
            return  # replaced between the stat and the open: the next look drains it
        _read_from(found, handle, st, limit, cap)


def _rest_of_line(data: bytes, handle: BinaryIO, limit: int, cap: int, position: Position) -> bytes:
    """``data``, a full read with no line feed, and what follows it to its line's end.

    One line longer than the limit: read on ``limit`` bytes at a time while each read is
    full and has no line feed, each read searched once and the reads joined once.
    """
    parts = [data]
    held = len(data)
    more = data
    while len(more) == limit and b"\n" not in more:
        if held > cap:
            raise LineTooLarge(
                f"{position.path}: line {position.line + 1} is longer than {cap} bytes "
                "(--max-input-bytes)"
            )
        more = handle.read(limit)
        parts.append(more)
        held += len(more)
    return b"".join(parts)


def _read_from(found: Look, handle: BinaryIO, st: os.stat_result, limit: int, cap: int) -> None:
    """:func:`_read_on` from the file open as ``handle``, whose status is ``st``."""
    position = found.position
    fp = position.fingerprint
    assert fp is not None
    handle.seek(position.offset)
    # What is there at most: a read of ``limit`` would allocate all of it (1 MiB) every look.
    data = handle.read(max(0, min(limit, st.st_size - position.offset)))
    if data and b"\n" not in data and len(data) == limit:
        data = _rest_of_line(data, handle, limit, cap, position)
    found.position = replace(found.position, mtime=st.st_mtime, size=st.st_size)
    found.more = len(data) >= limit
    _split(found, data, final=False)
    if fp.head_len < HEAD_BYTES and found.position.offset > fp.head_len:
        grown = _fingerprint(position.path, st)
        if (grown.dev, grown.ino) == (fp.dev, fp.ino) and _holds(Path(position.path), fp):
            found.position = replace(found.position, fingerprint=grown)


def _split(found: Look, data: bytes, final: bool) -> None:
    position = found.position
    offset, number, at, generation = position.offset, position.line, 0, position.generation
    fp = position.fingerprint
    last = -1
    while True:
        end = data.find(b"\n", at)
        if end < 0:
            if final and at < len(data):  # a rotated file's unterminated last line
                number += 1
                found.lines.append(
                    Line(position.path, number, offset + at, data[at:], generation, fp)
                )
                at = len(data)
            break
        number += 1
        found.lines.append(Line(position.path, number, offset + at, data[at:end], generation, fp))
        last, at = at, end + 1
    kept = hashlib.sha256(data[last:at]).hexdigest() if last >= 0 else position.last_sha256
    found.position = replace(position, offset=offset + at, line=number, last_sha256=kept)
