"""The one table renderer every command's table output goes through: fitted, noted, coloured.

A table is drawn for a width (:class:`View`): the terminal's, ``$COLUMNS`` off a terminal, else
:data:`DEFAULT_COLUMNS` (the CLI decides, cli/common.py ``table_view``). No line is wider. An id
(a check or finding id, a key, a digest) is never cut: the prose beside it is wrapped within
its column, and when even the ids do not fit side by side each row is stacked, one cell a
line. A reason that many rows repeat is said once, as a numbered note under the table.
Colour (an SGR code on a status or outcome word) only when the view asks for it.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sealverify._internal import fastpath

__all__ = [
    "DEFAULT_COLUMNS",
    "ID",
    "STATUS_COLOURS",
    "TEXT",
    "WHERE",
    "Notes",
    "View",
    "display_width",
    "grid",
    "grid_parts",
    "noted",
    "paint",
    "wrap",
]

DEFAULT_COLUMNS = 100  # off a terminal with no $COLUMNS: readable in a log or a pager
ID = "id"  # a column whose cells are never cut (ids, statuses, hex)
TEXT = "text"  # a column whose cells are wrapped at words within the room left
WHERE = "where"  # a location or name: wrapped too, but given at most a third of the room
_GAP = "  "
_INDENT = "      "  # a stacked row's prose, under its ids
_MIN_TEXT = 12  # a prose column narrower than this is unreadable: the rows are stacked
_NOTE_ROWS = 3  # a (check id, reason) pair on this many rows is said once, as a note

# SGR colours (ECMA-48 section 8.3.117) of the words a status or outcome cell starts with.
STATUS_COLOURS: dict[str, str] = {
    "VERIFIED": "32",
    "PASS": "32",
    "PASSED": "32",
    "INTACT": "32",
    "VALID": "32",
    "REDUCED": "33",
    "NOT-EVALUATED": "33",
    "UNPINNED": "35",
    "WAIVED": "35",
    "FAIL": "1;31",
    "FAILED": "1;31",
    "BROKEN": "1;31",
    "REFUSE": "1;31",
    "INVALID": "1;31",
}


@dataclass(frozen=True)
class View:
    """How wide a table may be and whether its status words are coloured."""

    columns: int = DEFAULT_COLUMNS
    colour: bool = False


_ASCII_RUNS = re.compile(r"[\x00-\x7f]++")


def display_width(text: str) -> int:
    """Columns a string takes in a terminal: East Asian wide and fullwidth characters take 2."""
    if text.isascii():
        return len(text)
    return _wide_width(text) if len(text) > _KEPT_LONGEST else _kept_width(text)


def _wide_width(text: str) -> int:
    wide = _ASCII_RUNS.sub("", text)
    return len(text) + sum(unicodedata.east_asian_width(c) in "WF" for c in wide)


# A text with a character beyond ASCII: a row's "why" cut with "…", its brief, a name. The
# same few recur on every row of a run, and each is measured more than once a row: their
# widths are kept, for texts up to a line or two long (a few hundred KB at most).
_KEPT_LONGEST = 512
_kept_width = fastpath.cache(maxsize=512)(_wide_width)


def paint(text: str, colour: bool) -> str:
    """``text`` in the SGR colour of the word it starts with, when ``colour`` and one is known."""
    code = STATUS_COLOURS.get(text.partition(" ")[0]) if colour else None
    return f"\x1b[{code}m{text}\x1b[0m" if code else text


_BREAKS = "/._-:"  # a long word (a path, a pointer) is broken after one of these, if it can


def _split(word: str, width: int) -> list[str]:
    """A word wider than ``width`` in pieces of at most ``width`` columns.

    Each piece ends after the last ``/ . _ - :`` in it when one is in its second half.
    """
    pieces: list[str] = []
    piece, used = "", 0
    for char in word:
        step = display_width(char)
        if used + step > width and piece:
            cut = max(piece.rfind(c) for c in _BREAKS) + 1
            cut = cut if cut > len(piece) // 2 else len(piece)
            pieces.append(piece[:cut])
            piece = piece[cut:]
            used = display_width(piece)
        piece += char
        used += step
    return [*pieces, piece] if piece else pieces


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken at spaces; ``indent`` after the first.

    Leading spaces of ``text`` stay on its first line. A word wider than a line (a path, a
    hex digest) is broken inside, never cut off.
    """
    width = max(width, len(indent) + 1)
    body = text.lstrip(" ")
    lead = text[: len(text) - len(body)]
    lines: list[str] = []
    line = lead
    for word in body.split(" "):
        room = width - (len(indent) if lines else 0)
        candidate = f"{line} {word}" if line.strip() else line + word
        if display_width(candidate) <= room:
            line = candidate
            continue
        if line.strip():
            lines.append(line)
            line = ""
            room = width - len(indent)
        pieces = _split(word, room - display_width(line)) or [""]
        lines.extend(line + p if i == 0 else p for i, p in enumerate(pieces[:-1]))
        line = (line if len(pieces) == 1 else "") + pieces[-1]
    lines.append(line)
    return [lines[0].rstrip(), *(indent + rest.rstrip() for rest in lines[1:])]


def noted(
    rows: Sequence[Sequence[str]], id_column: int, reason_column: int
) -> tuple[list[tuple[str, ...]], list[str]]:
    """Rows whose (id, reason) pair repeats on many rows, that reason replaced by "note N".

    Returns the rows and the notes, each "note N: ID on K rows: REASON", most rows first.
    """
    counts = Counter((row[id_column], row[reason_column]) for row in rows if row[reason_column])
    numbers: dict[tuple[str, str], int] = {}
    notes: list[str] = []
    for (check_id, reason), count in sorted(counts.items(), key=lambda i: (-i[1], i[0])):
        if count >= _NOTE_ROWS:
            numbers[check_id, reason] = len(numbers) + 1
            notes.append(f"note {len(numbers)}: {check_id} on {count} rows: {reason}")
    out: list[tuple[str, ...]] = []
    for row in rows:
        number = numbers.get((row[id_column], row[reason_column]))
        cells = list(row)
        if number is not None:
            cells[reason_column] = f"see note {number}"
        out.append(tuple(cells))
    return out, notes


class Notes:
    """Reasons said once across the tables of one report (a detail block per subject).

    A (check id, reason) pair is given a note number once it has been seen on
    :data:`_NOTE_ROWS` rows, counting earlier tables; from the table where it reaches that
    count on, its rows show "see note N". The rows before it keep the reason (a table is
    written before the next is known). :meth:`lines` says each note, with its total count.
    """

    def __init__(self) -> None:
        self._seen: Counter[tuple[str, str]] = Counter()
        self._numbers: dict[tuple[str, str], int] = {}

    def rows(
        self, rows: Sequence[Sequence[str]], id_column: int, reason_column: int
    ) -> list[tuple[str, ...]]:
        """``rows`` of one table, a noted pair's reason replaced by "see note N"."""
        here = Counter((r[id_column], r[reason_column]) for r in rows if r[reason_column])
        for pair, count in sorted(here.items(), key=lambda i: (-i[1], i[0])):
            self._seen[pair] += count
            if pair not in self._numbers and self._seen[pair] >= _NOTE_ROWS:
                self._numbers[pair] = len(self._numbers) + 1
        out: list[tuple[str, ...]] = []
        for row in rows:
            cells = list(row)
            number = self._numbers.get((row[id_column], row[reason_column]))
            if number is not None:
                cells[reason_column] = f"see note {number}"
            out.append(tuple(cells))
        return out

    def lines(self, view: View) -> list[str]:
        """Each note, wrapped: "note N: ID on K rows: REASON" (K counts every row)."""
        out: list[str] = []
        for (check_id, reason), number in self._numbers.items():
            text = f"note {number}: {check_id} on {self._seen[check_id, reason]} rows: {reason}"
            out.extend(wrap(text, view.columns, "  "))
        return out


def _widths(
    natural: list[int], kinds: Sequence[str], columns: int, headers: Sequence[str]
) -> list[int] | None:
    """Each column's width within ``columns``, or None when the ids leave too little.

    Too little: a prose column narrower than :data:`_MIN_TEXT` or than its header.
    """
    total = sum(natural) + len(_GAP) * (len(natural) - 1)
    if total <= columns:
        return natural
    flexible = [i for i, kind in enumerate(kinds) if kind in (TEXT, WHERE) and natural[i]]
    fixed = sum(w for i, w in enumerate(natural) if i not in flexible)
    room = columns - fixed - len(_GAP) * (len(natural) - 1)
    if not flexible or room < _MIN_TEXT * len(flexible):
        return None
    widths = list(natural)
    third = max(room // 3, _MIN_TEXT)
    # The locations first, each whole within half the room, else held to a third; the prose
    # shares what is left, narrowest first.
    order = sorted(flexible, key=lambda i: (kinds[i] != WHERE, natural[i]))
    for left, index in enumerate(order):
        share = room // (len(flexible) - left)
        if kinds[index] == WHERE:
            share = min(share, natural[index] if natural[index] <= room // 2 else third)
        widths[index] = min(natural[index], share)
        if widths[index] < display_width(headers[index]):
            return None
        room -= widths[index]
    return widths


def _line(cells: Sequence[str], widths: Sequence[int], status: int | None, view: View) -> str:
    padded = [c + " " * (w - display_width(c)) for c, w in zip(cells, widths, strict=True)]
    if status is not None and cells[status]:
        padded[status] = paint(cells[status], view.colour) + padded[status][len(cells[status]) :]
    return _GAP.join(padded).rstrip()


def grid(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    kinds: Sequence[str],
    view: View,
    *,
    status: int | None = None,
) -> list[str]:
    """A table of visible ``rows`` within ``view.columns``: header, rule, a line per row or more.

    ``kinds`` says per column whether it is an :data:`ID` (never cut) or :data:`TEXT` (wrapped
    within the room the ids leave). The layout is tabulate's "simple" one when everything
    fits. When the ids alone leave no room, each row is stacked: its first cell and its ids,
    then each other cell below, indented. ``status`` is the column painted by its word.
    """
    head, body = grid_parts(headers, rows, kinds, view, status=status)
    return [*head, *(line for lines in body for line in lines)]


def grid_parts(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    kinds: Sequence[str],
    view: View,
    *,
    status: int | None = None,
) -> tuple[list[str], list[list[str]]]:
    """:func:`grid`'s header lines (none when stacked) and each row's lines, apart."""
    table = [tuple(row) for row in rows]
    natural = [
        max([display_width(h), *(display_width(row[i]) for row in table)])
        for i, h in enumerate(headers)
    ]
    widths = _widths(natural, kinds, view.columns, headers)
    if widths is None:
        return [], [_stacked(headers, row, kinds, view, status) for row in table]
    head = [_line(headers, widths, None, view), _GAP.join("-" * w for w in widths)]
    body: list[list[str]] = []
    for row in table:
        parts = [wrap(c, w) if k != ID else [c] for c, w, k in zip(row, widths, kinds, strict=True)]
        body.append(
            [
                _line(
                    [p[depth] if depth < len(p) else "" for p in parts],
                    widths,
                    status if depth == 0 else None,
                    view,
                )
                for depth in range(max(len(p) for p in parts))
            ]
        )
    return head, body


def _stacked(
    headers: Sequence[str],
    row: tuple[str, ...],
    kinds: Sequence[str],
    view: View,
    status: int | None,
) -> list[str]:
    """A row as its first cell and its ids, then each other cell indented below, wrapped.

    The first line breaks only at spaces between words, so an id on it stays whole. A prose
    cell after the first below is labelled with its header ("at /params/_meta").
    """
    ids = [i for i, kind in enumerate(kinds) if kind == ID or i == 0]
    texts = [i for i, kind in enumerate(kinds) if kind != ID and i != 0]
    out = wrap(_GAP.join(row[i] for i in ids if row[i]), view.columns, _INDENT)
    if status is not None and row[status] and row[status] in out[0]:
        out[0] = out[0].replace(row[status], paint(row[status], view.colour), 1)
    for order, index in enumerate(texts):
        if row[index]:
            label = f"{headers[index]} " if order else ""
            out.extend(wrap(f"{_INDENT}{label}{row[index]}", view.columns, _INDENT))
    return out
