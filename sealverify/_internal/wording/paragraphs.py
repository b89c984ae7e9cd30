"""A text cut into paragraphs as it is read, so ``lint`` holds a window of them, not the text.

The wording rules judge a hit by its sentence, and a sentence ends at a blank line (a line of
whitespace only): :data:`~sealverify._internal.wording.sentences.SENTENCE_END`'s ``\\n\\s*\\n``
ends right after the last line feed of the blank lines, where the next paragraph starts.
So the sentence scan of the whole text is, from there on, the scan of what follows alone;
the text cut there is judged a piece at a time and gives the hits the whole text gives, at
the same lines. What can still read across a blank line is a regular expression's ``\\s+``:
a phrase of several words, "not present", or the identity object after it, broken by blank
lines. A cut after words that could begin such a match is not made (``joins``).

The text comes as chunks of whole lines (each ends with a line feed, the last maybe not); a
window is cut once it holds :data:`WINDOW` characters, at the last cut its newest chunk
allows, so what is held is a window, the paragraph it ends in and one chunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

__all__ = ["TAIL_WORDS", "WINDOW", "blanked_lines", "paragraphs", "text_lines"]

# How many of the last words before a cut ``joins`` is shown: "not present" and the identity
# object after it (a preposition, an article and up to three words) fit in six.
TAIL_WORDS = 6
WINDOW = 1 << 16  # characters held before a cut is looked for
# Blank lines, after a line feed and before a line that is not blank: a cut at its end.
_BLANK_RUN = re.compile(r"\n(?:[^\S\n]*\n)+(?=[^\S\n]*\S)")
_FENCES = ("```", "~~~")


def text_lines(text: str) -> Iterator[str]:
    """The lines of ``text``, each ending with its line feed (the last maybe without)."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start : end + 1]
        start = end + 1
    if start < len(text):
        yield text[start:]


def blanked_lines(chunks: Iterable[str], markdown: bool) -> Iterator[str]:
    """``chunks`` with Markdown's fenced code blocks blanked, as ``_blank_code_fences`` does.

    Each chunk's lines are cut as ``str.splitlines`` cuts the whole text (a line feed always
    ends a piece, and ``\\r\\n`` stays in one chunk), so the fences are those of the text.
    """
    if not markdown:
        yield from chunks
        return
    fenced = False
    for chunk in chunks:
        if not fenced and not any(fence in chunk for fence in _FENCES):
            yield chunk  # no fence starts here: nothing to blank
            continue
        out: list[str] = []
        for piece in chunk.splitlines(keepends=True):
            fence = piece.lstrip().startswith(_FENCES)
            if fence or fenced:
                out.append("".join(c if c in "\r\n" else " " for c in piece))
            else:
                out.append(piece)
            if fence:
                fenced = not fenced
        yield "".join(out)


def paragraphs(
    chunks: Iterable[str], joins: Callable[[list[str]], bool], window: int = WINDOW
) -> Iterator[tuple[str, int]]:
    """Pieces of the text ``chunks`` make, each cut after blank lines, and their first lines.

    A piece ends after blank lines that follow a line feed and come before a line that is
    not blank. ``joins`` is shown the last words before the blank lines (at most
    :data:`TAIL_WORDS`, in order); when it says True, no cut is made there.
    """
    held: list[str] = []
    size = 0
    first = 1
    lead = ""  # what ``held`` ends with that a run of blank lines may start with
    for chunk in chunks:
        if not chunk:
            continue
        if size + len(chunk) >= window:
            cut = _last_cut(held, lead, chunk, joins)
            if cut >= 0:
                piece = "".join([*held, chunk[:cut]])
                yield piece, first
                first += piece.count("\n")
                held, size, lead = [], 0, ""
                chunk = chunk[cut:]
                if not chunk:
                    continue
        held.append(chunk)
        size += len(chunk)
        lead = _lead(chunk, lead)
    if held:
        yield "".join(held), first


def _lead(chunk: str, before: str) -> str:
    """What the text ends with, after ``chunk``: a line feed and a blank line, one, or none.

    Only line feeds and blank lines count: a run of blank lines is cut at its end if it holds
    two line feeds, so the region a cut is looked for in starts with this much of ``held``.
    """
    if not chunk.endswith("\n"):
        return ""
    start = chunk.rfind("\n", 0, len(chunk) - 1)
    if chunk[start + 1 :].isspace() and (start >= 0 or before):
        return "\n\n"
    return "\n"


def _last_cut(held: list[str], lead: str, chunk: str, joins: Callable[[list[str]], bool]) -> int:
    """The last offset in ``chunk`` where the text may be cut, or -1."""
    region = lead + chunk
    width = 4096  # the runs are looked for near the end first: the last one is wanted
    while True:
        low = max(0, len(region) - width)
        runs = [(m.start(), m.end()) for m in _BLANK_RUN.finditer(region, low)]
        for start, end in reversed(runs):  # a run cut by ``low`` ends where the whole run does
            words = _tail(region, start)
            for part in reversed(held):
                if len(words) >= TAIL_WORDS:
                    break
                words[:0] = _tail(part, len(part))
            if not joins(words[-TAIL_WORDS:]):
                return end - len(lead)
        if low == 0:
            return -1
        width *= 4


def _tail(text: str, end: int) -> list[str]:
    """``text[:end].split()[-TAIL_WORDS:]``, reading back from ``end`` only as needed."""
    width = 256
    while True:
        low = max(0, end - width)
        words = text[low:end].split()
        if low == 0 or len(words) > TAIL_WORDS:  # the first may be cut; the last ones whole
            return words[-TAIL_WORDS:]
        width *= 2
