"""A side's input read a block at a time: its blocks, its one JSON document, its frames.

``diff`` reads each input more than once (is it a receipt document, a JSON-lines receipt
file, which frame is chosen), each time as a stream: what is held is one block, one line, or
the one document the input is, never the whole input. Given as bytes (a library call), the
input is split where it lies, without copies.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import closing
from itertools import accumulate, chain

# The block reader is the wire layer's (``tools`` reads its captures with it too).
from sealverify._internal.wire.framing import (
    WHITESPACE,
    Source,
    read_blocks,
    stdio_frame_count,
)
from sealverify._internal.wire.strictjson import Limits

__all__ = ["frame_count", "read_whole", "whole_document"]


def read_whole(source: Source) -> bytes:
    """All of the input: for an http body, which is one frame."""
    return source if isinstance(source, bytes) else b"".join(read_blocks(source))


def frame_count(source: Source) -> int:
    """How many stdio frames the input holds (``stdio_frame_count`` of its bytes)."""
    if isinstance(source, bytes):
        return stdio_frame_count(source)
    count, last = 0, b"\n"
    for block in read_blocks(source):
        count, last = count + block.count(b"\n"), block
    return count + (0 if last.endswith(b"\n") else 1)


# Outside a string, each token: a string (group 1, closed when group 2 matched: else it runs
# to the block's end, or to a backslash that is the block's last byte), an opening bracket
# (group 3) or a closing one. Inside a string left open, the rest of it up to its closing
# quote. The repeats are possessive, so an escape is never tried twice.
_STRING = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+'
_TOKENS = re.compile(rb"(" + _STRING + rb')(")?|([\[{])|[\]}]', re.DOTALL)
_IN_STRING = re.compile(rb'[^"\\]*+(?:\\.[^"\\]*+)*+', re.DOTALL)
# Each string to its close (the group: its closing quote) or, left open, to the end: every
# quote that opens a token is matched once, never tried again from a quote inside it (a
# literal of n escaped quotes would cost n^2 otherwise). Split on it, in C.
_STRINGS = re.compile(_STRING + rb'(")?', re.DOTALL)
_STEPS = bytes.maketrans(b"{[}]", b"\x01\x01\xff\xff")  # +1 and -1 as signed bytes
_NOT_BRACKET = bytes(set(range(256)) - set(b"{[}]"))


class _Scan:
    """Where the JSON value that opens the input ends, read on block by block.

    Counts brackets outside strings: on strict JSON the first value ends where its depth
    first comes back to 0, so an input that parses whole as one value ends there too, and
    whitespace only follows. Strings are scanned as strict JSON lexes them (``"`` and ``\\``
    are ASCII, never part of a longer UTF-8 sequence).
    """

    def __init__(self, max_depth: int) -> None:
        self.depth, self.max_depth = 0, max_depth
        self.in_string = self.escaped = self.too_deep = False

    def feed(self, block: bytes) -> int | None:
        """Where in ``block`` the value ends (just past it), or None when it goes on."""
        at = 0
        if self.escaped:  # the block before ended in a backslash: this byte is escaped
            at, self.escaped = 1, False
        if self.in_string:
            at = _IN_STRING.match(block, at).end()  # type: ignore[union-attr]
            if at >= len(block):
                return None
            if block[at] == 0x5C:  # a backslash, the block's last byte
                self.escaped = True
                return None
            self.in_string, at = False, at + 1
        if self._skipped(block[at:]):
            return None
        depth = self.depth
        for token in _TOKENS.finditer(block, at):
            kind = token.lastindex
            if kind == 2:  # a string, closed
                continue
            if kind == 3:
                depth += 1
                if depth > self.max_depth:  # parse_bytes refuses it: json.too-deep
                    self.too_deep = True
                    return None
            elif kind is None:
                depth -= 1
                if depth <= 0:
                    self.depth = depth
                    return token.end()
            else:  # a string left open at the block's end
                self.in_string, self.escaped = True, token.end() < len(block)
        self.depth = depth
        return None

    def _skipped(self, rest: bytes) -> bool:
        """Whether ``rest`` (outside a string at its start) was read by counting alone.

        Its strings are dropped and each bracket becomes a step of +1 or -1, summed in C.
        When the depth stays above 0 the value does not end in ``rest``, and the depth moves
        on (past ``max_depth`` it is too deep); otherwise, or when a string is left open,
        each token is read.
        """
        parts = _STRINGS.split(rest)  # text, closing quote (None: left open), text, ...
        if len(parts) > 1 and parts[-2] is None:
            return False
        steps = memoryview(b"".join(parts[::2]).translate(_STEPS, _NOT_BRACKET)).cast("b")
        depths = list(accumulate(steps, initial=self.depth))
        if min(depths) <= 0:
            return False
        self.depth, self.too_deep = depths[-1], max(depths) > self.max_depth
        return True


def whole_document(source: Source, limits: Limits) -> tuple[bool, bytes | None]:
    """Whether the input is blank, and, when it may parse whole as one JSON object, its bytes.

    The bytes are ``data.strip(WHITESPACE)`` exactly, given only when the input opens with
    ``{`` and, past one block, the value that opens it is followed by whitespace alone:
    otherwise ``parse_bytes`` of the stripped input can give no object (trailing content, a
    value left open, over ``limits``' size or depth), and None says so without holding the
    input. What is held is the document, at most ``limits.max_document_bytes`` plus a block.
    """
    with closing(read_blocks(source)) as blocks:
        first = next(blocks, b"")
        second = next(blocks, None)
        if second is None:  # one block (a receipt, a frame): no longer than a block to hold
            stripped = first.strip(WHITESPACE)
            return not stripped, (stripped if stripped[:1] == b"{" else None)
        return _scanned(chain((first, second), blocks), limits)


def _scanned(blocks: Iterator[bytes], limits: Limits) -> tuple[bool, bytes | None]:
    """:func:`whole_document` of an input of more than one block, its first value scanned."""
    scan = _Scan(limits.max_depth)
    held: list[bytes] = []
    size, end = 0, None
    for block in blocks:
        if not held:
            block = block.lstrip(WHITESPACE)
            if not block:
                continue
            if block[0] != 0x7B:  # {
                return False, None
        if end is None:
            end = scan.feed(block)
            if scan.too_deep:
                return False, None
            piece = block if end is None else block[:end]
            held.append(piece)
            size += len(piece)
            if size > limits.max_document_bytes:  # parse_bytes refuses it: json.too-large
                return False, None
            block = block[len(piece) :]
        if end is not None and block.strip(WHITESPACE):
            return False, None  # trailing content: json.trailing-content
    if not held:
        return True, None
    return False, (b"".join(held) if end is not None else None)
