"""A text's sentence and clause cuts, made once, so each wording hit costs its own neighbourhood.

The wording rules judge a hit by its sentence (quoted? negated in its clause? about metadata?).
Cutting the sentence afresh for every hit scanned the text from its start, and judging it
scanned the sentence: a long sentence with many hits took quadratic time (one sentence of
184 kB with 6,000 hits took 111 s). Here the sentence ends of the whole text are found in one
scan; each hit's sentence is looked up among them, and each sentence's quotes, clause breaks
and searches are worked out once, whatever the number of hits in it. The answers are exactly
those of the per-hit scans they replace (tests/test_wording_scaling.py holds them equal).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right

__all__ = ["CLAUSE_BREAK", "SENTENCE_END", "Sentence", "Sentences", "last_words", "lines_of"]

# Sentence and clause boundaries. A newline followed by a list, heading, table or quote marker
# starts a new sentence; a tab separates table cells in plain-text tables.
SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s)|\n\s*\n|\n(?=\s*(?:[-*+•|#>]|\d+[.)]\s))|\t")
CLAUSE_BREAK = re.compile(r"[,;:—(]|\s(?:and|but|while|whereas|although)\s", re.IGNORECASE)
_WORD = re.compile(r"[\w'’]+")
_CLOSERS = frozenset("\"'”’)]")
_QUOTE_MARKS = ("“", "”", "«", "»", "‘", "’", '"', "`")
_QUOTE_AFTER = re.compile(r"[.,;:!?]*'")


def _reach(text: str, end: int) -> int:
    """How far before ``end`` a sentence-end attempt may start and still read ``text[end]``.

    An attempt of :data:`SENTENCE_END` at ``q`` reads on past ``q + 1`` only through a run of
    closing marks (after ``[.!?]``) or of whitespace, then digits, then one ``.`` or ``)``
    (after a newline). So one that reads ``text[end]`` starts at most one character before
    the longest such run ending at ``end``.
    """
    closers = end
    while closers > 0 and text[closers - 1] in _CLOSERS:
        closers -= 1
    run = end
    if run > 0 and text[run - 1] in ".)":
        run -= 1
    while run > 0 and text[run - 1].isdecimal():  # ``\d`` of a str pattern: category Nd
        run -= 1
    while run > 0 and text[run - 1].isspace():  # ``\s`` of a str pattern
        run -= 1
    return max(0, min(closers, run) - 1)


class Sentences:
    """The sentence ends of one text, found by one scan, and each sentence's cuts, kept."""

    def __init__(self, text: str) -> None:
        self.text = text
        # Offsets as machine integers: a text of many breaks keeps 8 bytes per break.
        self._starts = array("q")
        self._ends = array("q")
        self._scanned = False  # scanned at the first hit: most texts have none
        self._kept: dict[tuple[int, int], Sentence] = {}

    def _scan(self) -> None:
        for match in SENTENCE_END.finditer(self.text):
            self._starts.append(match.start())
            self._ends.append(match.end())
        self._scanned = True

    def _begin(self, start: int) -> int:
        """The end of the last match of ``SENTENCE_END.finditer(text, 0, start)`` (else 0).

        That scan sees the text cut at ``start``. Its attempts that start before
        ``_reach(text, start)`` cannot read so far, so they find what the whole-text scan
        found; only the attempts from there to ``start`` are made again, on the cut text.
        """
        reach = _reach(self.text, start)
        index = bisect_left(self._starts, reach)
        begin = self._ends[index - 1] if index else 0
        for match in SENTENCE_END.finditer(self.text, max(begin, reach), start):
            begin = match.end()
        return begin

    def _stop(self, end: int) -> int:
        """Where ``SENTENCE_END.search(text, end)`` ends the sentence (the text's end if none).

        The first match at or after ``end`` is the scan's next match, unless a match of the
        scan runs across ``end``: an attempt inside it was never made, so the search is made.
        """
        index = bisect_left(self._starts, end)
        if index and self._ends[index - 1] > end:
            after = SENTENCE_END.search(self.text, end)
            if after is None:
                return len(self.text)
            return after.end() if after.group()[:1] in ".!?" else after.start()
        if index == len(self._starts):
            return len(self.text)
        start = self._starts[index]
        return self._ends[index] if self.text[start] in ".!?" else start

    def around(self, start: int, end: int) -> Sentence:
        """The sentence holding ``text[start:end]`` (the bounds the per-hit scan gave)."""
        if not self._scanned:
            self._scan()
        bounds = (self._begin(start), self._stop(end))
        kept = self._kept.get(bounds)
        if kept is None:
            kept = self._kept[bounds] = Sentence(bounds[0], self.text[bounds[0] : bounds[1]])
        return kept


class Sentence:
    """One sentence: its text, and its quotation marks and clause breaks, located once."""

    __slots__ = ("_clause_ends", "_found", "_quotes", "begin", "text")

    def __init__(self, begin: int, text: str) -> None:
        self.begin = begin
        self.text = text
        self._quotes: dict[str, array[int]] | None = None
        self._clause_ends: array[int] | None = None
        self._found: dict[re.Pattern[str], re.Match[str] | None] = {}

    def search(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """``pattern.search(text)``, searched once per pattern."""
        if pattern not in self._found:
            self._found[pattern] = pattern.search(self.text)
        return self._found[pattern]

    def quoted(self, start: int, end: int) -> bool:
        """True when the phrase at ``text[start:end]`` sits inside quotation marks.

        As if ``before = text[:start]``: an opening mark after the last closing one, an odd
        number of ``"`` or backquotes, or single quotes on both sides.
        """
        if self._quotes is None:
            self._quotes = {
                mark: array("q", (m.start() for m in re.finditer(re.escape(mark), self.text)))
                for mark in _QUOTE_MARKS
            }
        quotes = self._quotes

        def last(mark: str) -> int:
            index = bisect_left(quotes[mark], start)
            return quotes[mark][index - 1] if index else -1

        if last("“") > last("”") or last("«") > last("»") or last("‘") > last("’"):
            return True
        if bisect_left(quotes['"'], start) % 2 == 1 or bisect_left(quotes["`"], start) % 2:
            return True
        if start == 0 or self.text[start - 1] != "'":
            return False
        return _QUOTE_AFTER.match(self.text, end) is not None

    def clause_start(self, start: int) -> int:
        """Where the clause holding ``start`` begins (the last piece of a split of the cut).

        The last piece of ``CLAUSE_BREAK.split(text[:start])`` begins after the last break
        that ends at or before ``start``: a break across ``start`` is one the cut cannot hold.
        """
        if self._clause_ends is None:
            self._clause_ends = array("q", (m.end() for m in CLAUSE_BREAK.finditer(self.text)))
        index = bisect_right(self._clause_ends, start)
        return self._clause_ends[index - 1] if index else 0


def last_words(text: str, start: int, end: int, count: int) -> list[str]:
    """``_WORD.findall(text[start:end])[-count:]``, reading back from ``end`` only as needed.

    A window that does not reach ``start`` may cut its first word, so it must hold more than
    ``count`` words; it doubles until it does.
    """
    width = 64
    while True:
        low = max(start, end - width)
        words = _WORD.findall(text, low, end)
        if low == start or len(words) > count:
            return words[-count:] if count else []
        width *= 2


def lines_of(text: str, offsets: list[int]) -> dict[int, int]:
    """``text.count("\\n", 0, offset) + 1`` for each offset, counting each stretch once."""
    lines: dict[int, int] = {}
    line = 1
    counted = 0
    for offset in sorted(set(offsets)):
        line += text.count("\n", counted, offset)
        counted = offset
        lines[offset] = line
    return lines
