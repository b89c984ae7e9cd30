"""A text cut into windows as it is read, so ``lint`` holds a window of it, not the text.

The wording rules judge a hit by its sentence, and a sentence ends at a blank line (a line of
whitespace only): :data:`~sealverify._internal.wording.sentences.SENTENCE_END`'s ``\\n\\s*\\n``
ends right after the last line feed of the blank lines, where the next paragraph starts. It
also ends at a ``.``, ``!`` or ``?`` (and closing marks) before a line end, and the next
sentence differs from the text after that line end only by the whitespace it starts with,
which changes no answer (the excerpt folds it; a clause break it makes, before a leading
"and", only leaves out a word that is no negation). So the sentence scan of the whole text
is, from such a line start on, the scan of what follows alone: the text cut there is judged a
piece at a time and gives the hits the whole text gives, at the same lines. What can still
read across a line end is a regular expression's ``\\s+``: a phrase of several words, "not
present", or the identity object after it. A cut after words that could begin such a match
is not made (``joins``). The same holds where `SENTENCE_END` ends a sentence at a tab, at a
line that starts with a marker (the sentence before then keeps the line feed, which no answer
reads), or at a sentence end inside a line: a window is cut there too.

The text comes as chunks of whole lines (each ends with a line feed, the last maybe not); a
window is cut once it holds :data:`WINDOW` characters, at the last cut its newest chunk
allows, so what is held is a window, the stretch it ends in and one chunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

__all__ = ["TAIL_WORDS", "WINDOW", "blanked_lines", "paragraphs", "text_lines"]

# How many of the last words before a cut ``joins`` is shown: "not present" and the identity
# object after it (a preposition, an article and up to three words) fit in six.
TAIL_WORDS = 6
WINDOW = 1 << 16  # characters held before a cut is looked for
# Where a line that is not blank starts after blank lines, or after a line that ends with a
# sentence end (`SENTENCE_END`'s first alternative, or a tab, then spaces); where a line
# starts that `SENTENCE_END` cuts before (a list, heading, table or quote marker, or a tab in
# its indent: the previous sentence then holds the line feed, which no answer reads); or where
# a word starts after a sentence end and spaces inside a line: a cut at the match's end.
# A run of spaces and tabs is tried once, from its start, and never given back (atomic and
# possessive parts): tried from each of its tabs, a run that ends in no word took time
# quadratic in its length.
_CUT = re.compile(
    r"(?:\n(?:[^\S\n]*\n)+|[.!?][\"'”’)\]]*[^\S\n]*\n)(?=[^\S\n]*\S)"
    r"|\n(?=(?>[^\S\n]*)(?:[-*+•|#>]|\d+[.)]\s)|[^\S\n\t]*+\t(?>[^\S\n]*)\S)"
    r"|[.!?][\"'”’)\]]*[^\S\n][^\S\n]*(?=\S)"
    r"|(?<![^\S\n])(?>[^\S\n]*?\t)[^\S\n]*+(?:\n(?=[^\S\n]*\S)|(?=\S))"
)
_SENTENCE_ENDS = re.compile(r"(?:[.!?][\"'”’)\]]*|\t)[^\S\n]*\n\Z")
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
    """What of the text, after ``chunk``, a cut just after it may need to be seen (``_CUT``).

    A line feed after a blank line after a line feed; a sentence end and its line feed; or
    a line feed (none when the text does not end with one).
    """
    if not chunk.endswith("\n"):
        return ""
    start = chunk.rfind("\n", 0, len(chunk) - 1)
    if chunk[start + 1 :].isspace() and (start >= 0 or before):
        return "\n\n"
    if _SENTENCE_ENDS.search(chunk, max(start + 1, len(chunk) - 256)):
        return ".\n"  # as far as ``_CUT`` reads back: the closers and spaces are not needed
    return "\n"


def _last_cut(held: list[str], lead: str, chunk: str, joins: Callable[[list[str]], bool]) -> int:
    """The last offset in ``chunk`` where the text may be cut, or -1."""
    region = lead + chunk
    # Every cut is followed by a character that is not whitespace, so none lies in the
    # region's trailing whitespace; searching up to its last such character keeps every cut
    # and never starts a blank-line run that cannot end in one (one per line feed of the run).
    stop = len(region.rstrip())
    width = 4096  # the runs are looked for near the end first: the last one is wanted
    while True:
        low = max(0, len(region) - width)
        runs = [m.end() for m in _CUT.finditer(region, low, stop)]
        for end in reversed(runs):  # a run cut by ``low`` ends where the whole run does
            words = _tail(chunk, end - len(lead))  # the words before the cut, whole
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
