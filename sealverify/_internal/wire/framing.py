"""Transport framing and the byte digests seal binds: exact frame and raw line.

stdio: a frame is one line including its delimiter (LF, or CR LF). seal's raw line strips one
trailing LF and then one CR (seal-host ``Host/Audit.lean``; ``rust/src/main.rs``), and its
``request_sha256`` is SHA-256 of that raw line. ``framed_subject_sha256``/``_length`` (Object A,
the ApprovalRecord v2 subject) cover the exact frame with its delimiter
(seal-host ``rust/src/providers.rs``). HTTP: the body bytes are the frame.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Literal, Protocol

__all__ = [
    "BLOCK",
    "WHITESPACE",
    "FrameBytes",
    "Opener",
    "Reader",
    "Source",
    "Streamed",
    "Terminator",
    "frame_of",
    "iter_stdio",
    "iter_stdio_blocks",
    "newline_inside",
    "raw_line",
    "read_blocks",
    "read_lines",
    "sha256_hex",
    "split_stdio",
    "stdio_frame_count",
    "terminator_of",
]

Terminator = Literal["LF", "CRLF", "none", "http-body"]
WHITESPACE = b" \t\r\n"


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256, the digest spelling seal uses everywhere."""
    return hashlib.sha256(data).hexdigest()


def raw_line(frame: bytes) -> bytes:
    """Seal's raw line: the frame with one trailing ``\\n`` and then one ``\\r`` removed."""
    if frame.endswith(b"\n"):
        frame = frame[:-1]
    if frame.endswith(b"\r"):
        frame = frame[:-1]
    return frame


@dataclass(frozen=True, slots=True)
class Streamed:
    """What was measured of a frame too long to hold: its length, digests and byte classes."""

    length: int
    exact_sha256: str
    raw_line_sha256: str
    inner_newline: bool  # a CR (or, on stdio, an LF) inside the raw line
    blank: bool  # the raw line is only spaces, tabs, CRs and LFs


@dataclass(frozen=True, slots=True)
class FrameBytes:
    """One frame exactly as received, where it sat in its stream, and its byte digests.

    A frame read past a byte cap (:mod:`sealverify._internal.wire.streamed`) is ``streamed``: its
    bytes were hashed as they arrived and not kept, ``data`` is empty and ``line`` raises, so
    nothing can parse or compare bytes that were never held.
    """

    data: bytes
    offset: int
    terminator: Terminator
    transport: Literal["stdio", "http"]
    streamed: Streamed | None = None

    @property
    def length(self) -> int:
        return len(self.data) if self.streamed is None else self.streamed.length

    @property
    def exact_sha256(self) -> str:
        return sha256_hex(self.data) if self.streamed is None else self.streamed.exact_sha256

    @property
    def line(self) -> bytes:
        if self.streamed is not None:
            raise ValueError(f"the {self.length}-byte frame was hashed, not held: no line")
        return self.data if self.transport == "http" else raw_line(self.data)

    @property
    def raw_line_sha256(self) -> str:
        if self.streamed is not None:
            return self.streamed.raw_line_sha256
        return sha256_hex(self.line)

    @property
    def inner_newline(self) -> bool:
        """A CR inside the line (and, on stdio, an LF): readers that split there disagree."""
        if self.streamed is not None:
            return self.streamed.inner_newline
        return newline_inside(self.line, self.transport)

    @property
    def blank(self) -> bool:
        """The line holds nothing but spaces, tabs, CRs and LFs."""
        if self.streamed is not None:
            return self.streamed.blank
        return not self.line.strip(WHITESPACE)


def newline_inside(line: bytes, transport: str) -> bool:
    """A CR in ``line`` (and, on stdio, an LF): where newline-splitting readers disagree."""
    return b"\r" in line or (transport == "stdio" and b"\n" in line)


def terminator_of(frame: bytes) -> Terminator:
    """How a stdio frame ends: CR LF, LF, or with neither (unterminated)."""
    if frame.endswith(b"\r\n"):
        return "CRLF"
    if frame.endswith(b"\n"):
        return "LF"
    return "none"


def frame_of(
    data: bytes, transport: Literal["stdio", "http"] = "stdio", offset: int = 0
) -> FrameBytes:
    """Wrap one frame's exact bytes (for stdio, the line including its delimiter)."""
    terminator: Terminator = "http-body" if transport == "http" else terminator_of(data)
    return FrameBytes(data, offset, terminator, transport)


def iter_stdio(stream: bytes) -> Iterator[FrameBytes]:
    """The frames of a stdio byte stream, split at each LF, one at a time, keeping every byte.

    The last piece, if it has no LF, is an unterminated frame (never dropped). Only LF
    delimits: a CR elsewhere stays inside its frame, where the frame checks see it. Lazy, so
    a reader that needs one frame holds one frame, not one object per line of the stream.
    """
    start = 0
    while start < len(stream):
        end = stream.find(b"\n", start)
        stop = len(stream) if end < 0 else end + 1
        yield frame_of(stream[start:stop], "stdio", start)
        start = stop


def iter_stdio_blocks(blocks: Iterable[bytes]) -> Iterator[FrameBytes]:
    """:func:`iter_stdio` of the blocks' bytes joined, read a block at a time.

    The same frames at the same offsets, whatever the blocks' sizes; what is held is one
    block and the line being read, never the stream.
    """
    offset = 0
    parts: list[bytes] = []  # the line being read, in the pieces its blocks brought
    for block in blocks:
        start = 0
        while (end := block.find(b"\n", start)) >= 0:
            line = block[start : end + 1]
            if parts:
                line = b"".join([*parts, line])
                parts = []
            yield frame_of(line, "stdio", offset)
            offset, start = offset + len(line), end + 1
        if start < len(block):
            parts.append(block[start:])
    if parts:
        yield frame_of(b"".join(parts), "stdio", offset)


def split_stdio(stream: bytes) -> list[FrameBytes]:
    """Every frame of a stdio byte stream (:func:`iter_stdio`), as a list."""
    return list(iter_stdio(stream))


def stdio_frame_count(stream: bytes) -> int:
    """How many frames :func:`iter_stdio` finds in ``stream``, without making any."""
    return stream.count(b"\n") + (1 if stream and not stream.endswith(b"\n") else 0)


# --- an input read a block at a time ---------------------------------------------------------

BLOCK = 1 << 16  # bytes read at a time


class Reader(Protocol):
    """What an opener gives: ``read(size)`` (empty at the end), used as a context manager."""

    def read(self, size: int, /) -> bytes: ...

    def __enter__(self) -> Reader: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
        /,
    ) -> object: ...


Opener = Callable[[], Reader]
Source = bytes | Opener  # an input's bytes, or a call that opens them afresh for each pass


def read_blocks(source: Source) -> Generator[bytes, None, None]:
    """The input's bytes, one block (at most :data:`BLOCK` bytes) at a time."""
    if isinstance(source, bytes):
        yield from (source[at : at + BLOCK] for at in range(0, len(source), BLOCK))
        return
    with source() as stream:
        while block := stream.read(BLOCK):
            yield block


def read_lines(source: Source) -> Generator[FrameBytes, None, None]:
    """The stdio frames of the input, one line held at a time (``iter_stdio`` of its bytes).

    Closing the generator closes the input.
    """
    if isinstance(source, bytes):
        yield from iter_stdio(source)
        return
    blocks = read_blocks(source)
    try:
        yield from iter_stdio_blocks(blocks)
    finally:
        blocks.close()
