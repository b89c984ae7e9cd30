"""Two texts cut into equal and differing spans, for the html report's byte comparisons."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = ["Span", "compare", "first_difference"]

# The texts are first cut to their common prefix and suffix (linear). Only a differing middle
# of at most this many characters (each side) goes to SequenceMatcher, whose cost grows with
# the cube of the length on periodic texts (1,536 characters took 49 s): a longer middle is
# shown as one differing span.
_MATCHER_LIMIT = 64
# Equal runs shorter than this between two differences are folded into the difference, so a
# hash compared with a hash shows one marked span rather than a confetti of chance matches.
_MIN_EQUAL = 4
# Two digests (hex) that differ differ as wholes: chance matches of single digits mean nothing,
# so they are compared by common prefix and suffix only (a flipped digit stays one mark).
_HEX = re.compile(r"[0-9a-fA-F\s]+")


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of one side: its text, whether it differs from the other side, and its offset."""

    text: str
    differs: bool
    offset: int


def first_difference(a: str, b: str) -> int | None:
    """The first index where ``a`` and ``b`` differ (the shorter length if one is a prefix)."""
    if a == b:
        return None
    limit = min(len(a), len(b))
    return next((i for i in range(limit) if a[i] != b[i]), limit)


def _common_ends(a: str, b: str) -> tuple[int, int]:
    """The lengths of the common prefix and of the common suffix after it."""
    start = first_difference(a, b) or 0
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return start, end


def _prefix_suffix(a: str, b: str) -> list[tuple[bool, int, int, int, int]]:
    start, end = _common_ends(a, b)
    blocks = [(False, 0, start, 0, start)] if start else []
    blocks.append((True, start, len(a) - end, start, len(b) - end))
    if end:
        blocks.append((False, len(a) - end, len(a), len(b) - end, len(b)))
    return blocks


def _opcodes(a: str, b: str) -> list[tuple[str, int, int, int, int]]:
    """The common prefix, the middle matched (when short) or one replacement, the suffix."""
    start, end = _common_ends(a, b)
    ops: list[tuple[str, int, int, int, int]] = [("equal", 0, start, 0, start)] if start else []
    middle_a, middle_b = a[start : len(a) - end], b[start : len(b) - end]
    if len(middle_a) <= _MATCHER_LIMIT and len(middle_b) <= _MATCHER_LIMIT:
        matcher = SequenceMatcher(None, middle_a, middle_b, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            ops.append((tag, start + i1, start + i2, start + j1, start + j2))
    else:
        ops.append(("replace", start, len(a) - end, start, len(b) - end))
    if end:
        ops.append(("equal", len(a) - end, len(a), len(b) - end, len(b)))
    return ops


def _matched(a: str, b: str) -> list[tuple[bool, int, int, int, int]]:
    blocks: list[tuple[bool, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in _opcodes(a, b):
        differs = tag != "equal"
        inside = (i1 > 0 or j1 > 0) and (i2 < len(a) or j2 < len(b))
        short = not differs and i2 - i1 < _MIN_EQUAL and inside
        if blocks and (differs or short) and blocks[-1][0]:
            _, p1, _, q1, _ = blocks[-1]
            blocks[-1] = (True, p1, i2, q1, j2)
        else:
            blocks.append((differs or short, i1, i2, j1, j2))
    return blocks


def compare(a: str, b: str) -> tuple[list[Span], list[Span]]:
    """``a`` and ``b`` as spans; the differing spans of each side are marked.

    Equal texts give one unmarked span each. Joining a side's span texts gives that side back.
    """
    if a == b:
        return [Span(a, False, 0)], [Span(b, False, 0)]
    digests = _HEX.fullmatch(a) is not None and _HEX.fullmatch(b) is not None
    blocks = _prefix_suffix(a, b) if digests else _matched(a, b)
    left = [Span(a[i1:i2], d, i1) for d, i1, i2, _, _ in blocks if i2 > i1 or d]
    right = [Span(b[j1:j2], d, j1) for d, _, _, j1, j2 in blocks if j2 > j1 or d]
    return [s for s in left if s.text], [s for s in right if s.text]
