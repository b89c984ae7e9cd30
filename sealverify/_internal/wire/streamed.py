"""Frames read from a stream in bounded memory: a frame over the byte cap is hashed, not held.

A reader that splits a stream at LF must hold a line to hand it on, so one hostile line of
gigabytes would cost gigabytes before any cap could refuse it. Here a line is held only up to
``cap + 1`` bytes; past that its bytes are hashed as they arrive (exact frame and raw line, as
:mod:`sealverify._internal.wire.framing` defines them) and dropped, and the frame is returned
``streamed``: its length, digests, terminator and byte classes are exact, its bytes are gone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import BinaryIO, Literal

from sealverify._internal.wire.framing import (
    WHITESPACE,
    FrameBytes,
    Streamed,
    Terminator,
    frame_of,
    newline_inside,
    raw_line,
    terminator_of,
)

__all__ = ["CHUNK", "read_http_frame", "read_stdio_frames"]

CHUNK = 1 << 20  # bytes read at a time past the cap


def _ignore(_: int) -> None:
    return None


def read_stdio_frames(
    stream: BinaryIO,
    cap: int | None,
    advance: Callable[[int], object] = _ignore,
    chunk: int = CHUNK,
) -> Iterator[FrameBytes]:
    """Each LF-terminated line of ``stream`` (the last maybe unterminated), one at a time.

    A line longer than ``cap`` bytes comes back streamed (hashed, not held); ``cap`` None holds
    every line whole. ``advance`` is told the bytes each frame took.
    """
    offset = 0
    while True:
        line = stream.readline() if cap is None else stream.readline(cap + 1)
        if not line:
            return
        if cap is not None and len(line) > cap and not line.endswith(b"\n"):
            frame = _rest_of_line(line, stream, offset, chunk)
        else:
            frame = frame_of(line, "stdio", offset)
        advance(frame.length)
        yield frame
        offset += frame.length


def read_http_frame(
    stream: BinaryIO,
    cap: int | None,
    advance: Callable[[int], object] = _ignore,
    chunk: int = CHUNK,
) -> FrameBytes:
    """The whole of ``stream`` as one HTTP body; past ``cap`` bytes it is streamed, not held."""
    body = stream.read() if cap is None else stream.read(cap + 1)
    if cap is None or len(body) <= cap:
        advance(len(body))
        return frame_of(body, "http")
    frame = _streamed(body, lambda: stream.read(chunk), "http", 0)
    advance(frame.length)
    return frame


def _rest_of_line(head: bytes, stream: BinaryIO, offset: int, chunk: int) -> FrameBytes:
    """The line that began with ``head``, read to its LF (or the end) and hashed on the way."""
    return _streamed(head, lambda: stream.readline(chunk), "stdio", offset)


def _streamed(
    head: bytes,
    more: Callable[[], bytes],
    transport: Literal["stdio", "http"],
    offset: int,
) -> FrameBytes:
    """Hash ``head`` and what ``more`` gives until it gives nothing (or, on stdio, an LF).

    The last two bytes are held back from the raw-line digest and the byte classes until the
    end: seal's raw line drops one trailing LF and then one CR, and only the end can tell.
    """
    exact, line = hashlib.sha256(), hashlib.sha256()
    length, inner_newline, blank, tail = 0, False, True, b""
    piece = head
    while piece:
        exact.update(piece)
        length += len(piece)
        held = tail + piece
        keep, tail = held[:-2], held[-2:]
        line.update(keep)
        inner_newline = inner_newline or newline_inside(keep, transport)
        blank = blank and not keep.strip(WHITESPACE)
        if transport == "stdio" and piece.endswith(b"\n"):
            break
        piece = more()
    last = tail if transport == "http" else raw_line(tail)
    line.update(last)
    inner_newline = inner_newline or newline_inside(last, transport)
    blank = blank and not last.strip(WHITESPACE)
    terminator: Terminator = "http-body" if transport == "http" else terminator_of(tail)
    measured = Streamed(length, exact.hexdigest(), line.hexdigest(), inner_newline, blank)
    return FrameBytes(b"", offset, terminator, transport, measured)
