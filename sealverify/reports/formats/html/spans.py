"""Two texts cut into equal and differing spans, for the html report's byte comparisons."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = ["Span", "compare", "first_difference"]

# Above this size (either side) the comparison is one differing span between the common
# prefix and suffix: SequenceMatcher's cost grows with the product of the lengths.
_MATCHER_LIMIT = 4096
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


def _prefix_suffix(a: str, b: str) -> list[tuple[bool, int, int, int, int]]:
    start = first_difference(a, b) or 0
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    blocks = [(False, 0, start, 0, start)] if start else []
    blocks.append((True, start, len(a) - end, start, len(b) - end))
    if end:
        blocks.append((False, len(a) - end, len(a), len(b) - end, len(b)))
    return blocks


def _matched(a: str, b: str) -> list[tuple[bool, int, int, int, int]]:
    blocks: list[tuple[bool, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
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
    small = len(a) <= _MATCHER_LIMIT and len(b) <= _MATCHER_LIMIT
    digests = _HEX.fullmatch(a) is not None and _HEX.fullmatch(b) is not None
    blocks = _matched(a, b) if small and not digests else _prefix_suffix(a, b)
    left = [Span(a[i1:i2], d, i1) for d, i1, i2, _, _ in blocks if i2 > i1 or d]
    right = [Span(b[j1:j2], d, j1) for d, _, _, j1, j2 in blocks if j2 > j1 or d]
    return [s for s in left if s.text], [s for s in right if s.text]
