"""Transport framing and the byte digests seal binds: exact frame and raw line.

stdio: a frame is one line including its delimiter (LF, or CR LF). seal's raw line strips one
trailing LF and then one CR (seal-host ``Host/Audit.lean``; ``rust/src/main.rs``), and its
``request_sha256`` is SHA-256 of that raw line. ``framed_subject_sha256``/``_length`` (Object A,
the ApprovalRecord v2 subject) cover the exact frame with its delimiter
(seal-host ``rust/src/providers.rs``). HTTP: the body bytes are the frame.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

__all__ = ["FrameBytes", "Terminator", "frame_of", "raw_line", "sha256_hex", "split_stdio"]

Terminator = Literal["LF", "CRLF", "none", "http-body"]


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
class FrameBytes:
    """One frame exactly as received, where it sat in its stream, and its byte digests."""

    data: bytes
    offset: int
    terminator: Terminator
    transport: Literal["stdio", "http"]

    @property
    def length(self) -> int:
        return len(self.data)

    @property
    def exact_sha256(self) -> str:
        return sha256_hex(self.data)

    @property
    def line(self) -> bytes:
        return self.data if self.transport == "http" else raw_line(self.data)

    @property
    def raw_line_sha256(self) -> str:
        return sha256_hex(self.line)


def _terminator(frame: bytes) -> Terminator:
    if frame.endswith(b"\r\n"):
        return "CRLF"
    if frame.endswith(b"\n"):
        return "LF"
    return "none"


def frame_of(
    data: bytes, transport: Literal["stdio", "http"] = "stdio", offset: int = 0
) -> FrameBytes:
    """Wrap one frame's exact bytes (for stdio, the line including its delimiter)."""
    terminator: Terminator = "http-body" if transport == "http" else _terminator(data)
    return FrameBytes(data, offset, terminator, transport)


def split_stdio(stream: bytes) -> list[FrameBytes]:
    """Split a stdio byte stream into frames at each LF, keeping every byte.

    The last piece, if it has no LF, is returned as an unterminated frame (never dropped).
    Only LF delimits: a CR elsewhere stays inside its frame, where the frame checks see it.
    """
    frames: list[FrameBytes] = []
    start = 0
    while start < len(stream):
        end = stream.find(b"\n", start)
        stop = len(stream) if end < 0 else end + 1
        frames.append(frame_of(stream[start:stop], "stdio", start))
        start = stop
    return frames
