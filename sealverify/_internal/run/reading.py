"""Reading one input whole, held to a byte cap: an endless input is refused, never read on."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from sealverify._internal.run.refused import InputRefused, SourceUnreadable

__all__ = [
    "DEFAULT_MAX_INPUT_BYTES",
    "CappedFile",
    "FilePrefix",
    "SpooledInput",
    "max_input_bytes",
    "open_capped",
    "read_capped",
    "read_file",
    "reopenable_input",
    "set_max_input_bytes",
    "spool_capped",
    "stdio_frame",
    "stdio_frame_of",
    "too_large",
]

# The most bytes one input may hold (a file, standard input, one receipt, a log's slice): an
# endless input (/dev/zero, a pipe that never closes) is refused by name, exit 2, rather than
# read until memory runs out. --max-input-bytes on every command changes it.
DEFAULT_MAX_INPUT_BYTES = 256 << 20  # 256 MiB
_max_input = [DEFAULT_MAX_INPUT_BYTES]
_BLOCK = 1 << 20
_SPOOL = 1 << 16  # bytes copied at a time by spool_capped: all it holds


def max_input_bytes() -> int:
    """The process's cap on one input's bytes (``--max-input-bytes``), when none is given."""
    return _max_input[0]


def set_max_input_bytes(limit: int) -> None:
    """Set the cap :func:`max_input_bytes` gives (the command line's ``--max-input-bytes``)."""
    _max_input[0] = limit


def too_large(name: str, limit: int | None = None) -> InputRefused:
    """The refusal of an input past ``limit`` (default ``--max-input-bytes``), naming it.

    One line, exit 2 (:class:`~sealverify._internal.run.refused.InputRefused`).
    """
    limit = max_input_bytes() if limit is None else limit
    return InputRefused(
        f"{name}: more than {limit} bytes (--max-input-bytes); refused rather than read on"
    )


def read_capped(stream: BinaryIO, name: str, limit: int | None = None) -> bytes:
    """All of ``stream``, or a refusal once it passes ``limit`` (``--max-input-bytes``)."""
    try:
        fd: int | None = stream.fileno()
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is both
        fd = None  # not a file descriptor: counted as it is read
    return _read_capped(stream.read, fd, name, limit)


def read_file(path: str | Path, name: str | None = None, limit: int | None = None) -> bytes:
    """A file's bytes under ``--max-input-bytes``; OSError as from ``Path.read_bytes``.

    Read through the bare descriptor (a receipt is read whole, so a file object's set-up was
    most of the cost), by the one capped loop :func:`read_capped` uses too.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        return _read_capped(lambda size: os.read(fd, size), fd, name or str(path), limit)
    finally:
        os.close(fd)


def _read_capped(
    read: Callable[[int], bytes], fd: int | None, name: str, limit: int | None
) -> bytes:
    """Everything ``read`` gives, held to ``limit``; ``fd``, when known, is asked its size.

    A regular file larger than the cap is refused by its size, and its first read asks for
    just its size (plus one, to see the end); anything else is counted as it is read. The
    reads go on to the end either way, so a file that grows is held to the cap too.
    """
    limit = max_input_bytes() if limit is None else limit
    want = _BLOCK
    if fd is not None:
        try:
            info = os.fstat(fd)
        except OSError:
            pass  # counted as it is read
        else:
            if stat.S_ISREG(info.st_mode):
                if info.st_size > limit:
                    raise too_large(name, limit)
                want = info.st_size + 1
    blocks: list[bytes] = []
    total = 0
    while block := read(min(want, _BLOCK, limit + 1 - total)):
        total += len(block)
        if total > limit:
            raise too_large(name, limit)
        blocks.append(block)
        want = _BLOCK
    return blocks[0] if len(blocks) == 1 else b"".join(blocks)


class CappedFile:
    """A file read a block at a time under ``--max-input-bytes``, each block counted.

    What :func:`open_capped` opens: a log walked as it is read, never held whole. Past the
    cap it raises :func:`too_large`; an unreadable file, ``cannot read <path>: <why>``.
    """

    def __init__(self, path: Path, name: str, on_read: Callable[[int], object] | None) -> None:
        self.name, self._on_read = name, on_read
        self._limit, self._total = max_input_bytes(), 0
        try:
            self._file: BinaryIO = path.open("rb")
        except OSError as exc:
            raise SourceUnreadable.of(path, exc) from None
        self.path = path

    def read(self, size: int, /) -> bytes:
        try:
            block = self._file.read(size)
        except OSError as exc:
            raise SourceUnreadable.of(self.path, exc) from None
        self._total += len(block)
        if self._total > self._limit:  # a log that grows while it is read: refused, named
            raise too_large(self.name, self._limit)
        if self._on_read is not None:
            self._on_read(len(block))
        return block

    def __enter__(self) -> CappedFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()


def open_capped(
    path: Path, name: str, on_read: Callable[[int], object] | None = None
) -> Callable[[], CappedFile]:
    """A call that opens ``path`` as a :class:`CappedFile`; ``on_read`` counts its first read.

    A log is read again only to classify a break; a progress bar counts its bytes once.
    """
    opened = [0]

    def opener() -> CappedFile:
        opened[0] += 1
        return CappedFile(path, name, on_read if opened[0] == 1 else None)

    return opener


class SpooledInput:
    """A reader of a spooled copy at its own offset: two walks of one copy never share one."""

    def __init__(self, fd: int) -> None:
        self._fd, self._at = fd, 0

    def read(self, size: int, /) -> bytes:
        block = os.pread(self._fd, size, self._at)
        self._at += len(block)
        return block

    def __enter__(self) -> SpooledInput:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def spool_capped(
    stream: BinaryIO, name: str, on_read: Callable[[int], object] | None = None
) -> bytes | Callable[[], SpooledInput]:
    """An input read once (standard input, a pipe), copied a block at a time, never held.

    The copy is an unnamed temporary file under ``--max-input-bytes``; the call returned opens
    a reader of it, each at its own offset (a log is read again to name a break). Without a
    temporary file the input is read whole, as :func:`read_capped` does. ``on_read`` counts
    each block as it is copied.
    """
    import tempfile  # standard input and pipes only: a run over files never loads it

    try:
        spool = tempfile.TemporaryFile(prefix="sealverify-input-")  # noqa: SIM115
    except OSError:
        return read_capped(stream, name)
    limit, total = max_input_bytes(), 0
    try:
        while block := stream.read(min(_SPOOL, limit + 1 - total)):
            total += len(block)
            if total > limit:
                raise too_large(name, limit)
            spool.write(block)
            if on_read is not None:
                on_read(len(block))
        spool.flush()
    except OSError as exc:
        spool.close()
        raise SourceUnreadable.of(name, exc) from None
    except BaseException:
        spool.close()
        raise

    def opener() -> SpooledInput:
        return SpooledInput(spool.fileno())  # the copy lives as long as this call

    return opener


def stdio_frame(stream: BinaryIO, name: str, index: int) -> tuple[bytes | None, int]:
    """Frame ``index`` of a stdio stream, and how many frames it holds, read a block at a time.

    The frame is its line, LF kept (None when there is none). Only the frame and one block
    are held, never the stream. The stream is read to its end under ``--max-input-bytes``, as
    :func:`read_capped` reads it, so a stream past the cap is refused whichever frame is asked.
    """
    try:
        fd: int | None = stream.fileno()
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is both
        fd = None
    limit, total = max_input_bytes(), 0
    if fd is not None:
        with contextlib.suppress(OSError):
            info = os.fstat(fd)
            if stat.S_ISREG(info.st_mode) and info.st_size > limit:
                raise too_large(name, limit)
    lines = 0  # LFs read
    found: bytes | None = None
    parts: list[bytes] = []  # frame ``index``, in the pieces its blocks brought
    last_lf = True  # whether the stream read so far ends with LF (or is empty)
    while block := stream.read(min(_SPOOL, limit + 1 - total)):
        total += len(block)
        if total > limit:
            raise too_large(name, limit)
        last_lf = block.endswith(b"\n")
        if found is not None or lines > index:
            lines += block.count(b"\n")
            continue
        start = 0
        while (end := block.find(b"\n", start)) >= 0:
            if lines == index:
                found = b"".join([*parts, block[start : end + 1]])
            lines, start = lines + 1, end + 1
            if found is not None:
                break
        if found is None and lines == index:
            parts.append(block[start:])
        elif found is not None:
            lines += block.count(b"\n", start)
    frames = lines + (0 if last_lf else 1)
    if found is None:
        found = b"".join(parts) or None  # frame ``index``, unterminated, at the stream's end
    return found, frames


def stdio_frame_of(source: str, index: int) -> tuple[bytes | None, int]:
    """:func:`stdio_frame` of a named file, or of standard input for ``-``.

    An unreadable file is ``cannot read <path>: <why>`` (exit 2), as a whole read names it.
    """
    try:
        if source == "-":
            return stdio_frame(sys.stdin.buffer, "standard input", index)
        with open(source, "rb") as stream:
            return stdio_frame(stream, source, index)
    except OSError as exc:
        raise SourceUnreadable.of(source, exc) from None


class FilePrefix:
    """A regular file's first ``size`` bytes: what it held when first seen, each reading alike.

    A file read more than once (a capture still being written, say) gives every reading the
    same bytes; an unreadable file is ``cannot read <name>: <why>``.
    """

    def __init__(self, path: str, size: int) -> None:
        self.name, self._left = path, size
        try:
            self._file: BinaryIO = open(path, "rb")  # noqa: SIM115 (closed by __exit__)
        except OSError as exc:
            raise SourceUnreadable.of(path, exc) from None

    def read(self, size: int, /) -> bytes:
        try:
            block = self._file.read(min(size, self._left))
        except OSError as exc:
            raise SourceUnreadable.of(self.name, exc) from None
        self._left -= len(block)
        return block

    def __enter__(self) -> FilePrefix:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()


def reopenable_input(source: str, hold: int = 0) -> bytes | Callable[[], FilePrefix | SpooledInput]:
    """A named file, or standard input for ``-``, to read more than once, never held whole.

    A regular file of at most ``hold`` bytes is read once and held (no more than a reader's
    block: opening it for each reading would cost more than holding it). A longer one
    gives a call that opens it afresh, each reading its first bytes up to the size it had
    now (:class:`FilePrefix`; a file already past ``--max-input-bytes`` is refused now, by its
    size); standard input, a pipe or a character device, which can be read only once, is
    copied a block at a time to an unnamed temporary file (:func:`spool_capped`). Anything
    else is read whole, so an unreadable path is refused as :func:`read_file` refuses it.
    """
    if source == "-":
        return spool_capped(sys.stdin.buffer, "standard input")
    try:
        mode, size = (info := os.stat(source)).st_mode, info.st_size
    except OSError:
        mode, size = 0, 0
    if stat.S_ISREG(mode) and size > hold:
        if size > max_input_bytes():
            raise too_large(source)
        return lambda: FilePrefix(source, size)
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        try:
            with open(source, "rb") as stream:
                return spool_capped(stream, source)
        except OSError as exc:
            raise SourceUnreadable.of(source, exc) from None
    try:
        return read_file(Path(source), source)
    except OSError as exc:
        raise SourceUnreadable.of(source, exc) from None
