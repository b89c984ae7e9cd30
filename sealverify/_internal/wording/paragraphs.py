"""A text cut into paragraphs as it is read, so ``lint`` holds one paragraph, not the document.

The wording rules judge a hit by its sentence, and a sentence ends at a blank line (a line of
whitespace only): :data:`~sealverify._internal.wording.sentences.SENTENCE_END`'s ``\\n\\s*\\n``
ends right after the last line feed of the blank lines, where the next paragraph starts.
So the sentence scan of the whole text is, from there on, the scan of the next paragraph
alone; a paragraph (with the blank lines after it) is judged by itself and gives the hits
the whole text gives, at the same lines. What can still read across a blank line is a
regular expression's ``\\s+``: a phrase of several words, "not present", or the identity
object after it, broken by blank lines. A paragraph whose last words could begin such a
match is held together with the next one (``joins``), so those hits are found too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

__all__ = ["TAIL_WORDS", "blanked_lines", "paragraphs", "text_lines"]

# How many of a paragraph's last words ``joins`` is shown: "not present" and the identity
# object after it (a preposition, an article and up to three words) fit in six.
TAIL_WORDS = 6


def text_lines(text: str) -> Iterator[str]:
    """The lines of ``text``, each ending with its line feed (the last maybe without)."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start : end + 1]
        start = end + 1
    if start < len(text):
        yield text[start:]


def blanked_lines(lines: Iterable[str], markdown: bool) -> Iterator[str]:
    """``lines`` with Markdown's fenced code blocks blanked, as ``_blank_code_fences`` does.

    Each line is cut as ``str.splitlines`` cuts the whole text (a line feed always ends a
    piece, and ``\\r\\n`` stays in one line), so the fences are those of the whole text.
    """
    if not markdown:
        yield from lines
        return
    fenced = False
    for line in lines:
        out: list[str] = []
        for piece in line.splitlines(keepends=True):
            fence = piece.lstrip().startswith(("```", "~~~"))
            if fence or fenced:
                out.append("".join(c if c in "\r\n" else " " for c in piece))
            else:
                out.append(piece)
            if fence:
                fenced = not fenced
        yield "".join(out)


def paragraphs(
    lines: Iterable[str], joins: Callable[[list[str]], bool]
) -> Iterator[tuple[str, int]]:
    """Each paragraph of ``lines`` with the blank lines after it, and its first line's number.

    A paragraph ends before a line that is not blank and follows a blank line that follows a
    line that is not. ``joins`` is shown the paragraph's last words (at most
    :data:`TAIL_WORDS`, from its last lines, in order); when it says True, the paragraph is
    held together with the next.
    """
    held: list[str] = []
    solid: list[str] = []  # the last few lines that are not blank
    first = 1
    after_blank = False
    for line in lines:
        blank = line.isspace()
        if not blank and after_blank and solid and not joins(_last_words(solid)):
            yield "".join(held), first
            first += len(held)
            held, solid = [], []
        held.append(line)
        if not blank:
            solid.append(line)
            if len(solid) > TAIL_WORDS:  # each holds a word: the last words are in these
                del solid[0]
        after_blank = blank
    if held:
        yield "".join(held), first


def _last_words(solid: list[str]) -> list[str]:
    words: list[str] = []
    for line in reversed(solid):
        words[:0] = _line_tail(line)
        if len(words) >= TAIL_WORDS:
            break
    return words[-TAIL_WORDS:]


def _line_tail(line: str) -> list[str]:
    """``line.split()[-TAIL_WORDS:]``, reading back from the end only as needed."""
    width = 256
    while True:
        words = line[-width:].split()
        if width >= len(line):
            return words[-TAIL_WORDS:]
        if len(words) > TAIL_WORDS:  # the first may be cut; the last ones are whole
            return words[-TAIL_WORDS:]
        width *= 2
