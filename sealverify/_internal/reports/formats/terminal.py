"""``verify``'s receipts table on a terminal: fitted to its width, coloured, the worst last.

A pipe or a file gets the full table (reports/formats/table.py), byte for byte as before.
On a terminal a person reads the table, then types the next command: so every line fits the
terminal's width, each row shows one short reason and "(+N more)", the outcome is coloured,
rows come VERIFIED first and FAIL last and the run findings after them (nearest the prompt),
and a reason that leads many rows (a published key, a build not pinned) is said once, as a
note naming the option that changes it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence

from sealverify._internal import fastpath
from sealverify._internal.reports.formats.grid import STATUS_COLOURS, display_width
from sealverify._internal.reports.visible import visible
from sealverify._internal.results.model import Check
from sealverify._internal.results.outcomes import RECEIPTS_BY_SEVERITY, Outcome, severity

__all__ = ["NOTES", "OUTCOME_COLOURS", "counted_pass", "fit", "lines", "passed_findings_note"]

# SGR colours (ECMA-48 section 8.3.117): green, yellow, magenta, bold red.
OUTCOME_COLOURS: dict[str, str] = {
    Outcome.VERIFIED: "32",
    Outcome.REDUCED: "33",
    Outcome.UNPINNED: "35",
    Outcome.FAIL: "1;31",
}
_RANK = {outcome: severity(outcome) for outcome in RECEIPTS_BY_SEVERITY}
_GAP = "  "
_NARROW = 110  # columns below which the family and verdict columns are left out
_HEADERS = ("receipt", "outcome", "family", "verdict", "why")
_WHY_ROOM = 41  # the reason's columns before the receipt name takes more (an id and a note)
# A check id that leads at least this many rows is said once, as a note, when it has one.
_NOTE_ROWS = 3
# What a row's leading check means when it is a setting of the run, not a fault of one
# receipt, and the option that changes it (docs/trust.md, docs/verify.md "Authority: pins").
NOTES = {
    "authority.published-key": "signed under a key whose secret is published (a test key): "
    "UNPINNED at best, pinned or not. Real evidence needs the operator's own keys "
    "(--trust FILE, --config-pubkey, --receipt-pubkey); a test suite that means it passes "
    "--allow-published-keys.",
    "kernel.identity": "names a kernel build that is not pinned: pin the build the operator "
    "runs with --kernel-sha256 HASH (or a trust file's kernels).",
    "authority.config-key": "the config signer is not pinned: pin the operator's key with "
    "--config-pubkey KEY (or --trust FILE).",
    "authority.receipt-key": "the receipt (Object B) key is not pinned: pin it with "
    "--receipt-pubkey KEY (or --trust FILE).",
    "authority.approval-key": "the approver key is not pinned: pin it with --approval-pubkey "
    "KEY (or --trust FILE).",
}


def fit(text: str, width: int, *, keep_end: bool = False) -> str:
    """``text`` within ``width`` columns; a cut is marked "…" (at the start if ``keep_end``)."""
    columns = display_width(text)
    if columns <= width:
        return text
    if width <= 0:
        return ""
    room = width - 1
    if columns == len(text):  # every character one column wide: the kept ones are a slice
        return "…" + text[len(text) - room :] if keep_end else text[:room] + "…"
    kept: list[str] = []
    used = 0
    for char in reversed(text) if keep_end else text:
        step = display_width(char)
        if used + step > room:
            break
        kept.append(char)
        used += step
    if keep_end:
        return "…" + "".join(reversed(kept))
    return "".join(kept) + "…"


def _ending_width(line: str, last: str) -> int:
    """``display_width(line)`` of a line that ends with ``last`` unless stripped of it.

    A row's line ends with its "why", one of the few a run has: its width is known, and only
    the cells before it (a name, the outcome, the family, the verdict) are measured.
    """
    if last and not last[-1].isspace():  # `line` is the cells, then `last` as it is
        return display_width(line[: len(line) - len(last)]) + display_width(last)
    return display_width(line)


def _fit_middle(name: str, width: int) -> str:
    """A receipt name within ``width``: its start and its last third kept, "…" between.

    Names in one folder differ at their start and end in a suffix or a line number.
    """
    if display_width(name) <= width:
        return name  # what `fit` keeps of a text that fits
    if width < 6:
        return fit(name, width, keep_end=True)
    tail = fit(name, (width - 1) // 3 + 1, keep_end=True)[1:]
    return fit(name, width - display_width(tail)) + tail


def _paint(text: str, code: str | None, colour: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if colour and code else text


def _outcome_word(cell: str) -> str:
    """The outcome's word of an outcome cell (a label may follow it)."""
    return cell.partition(" ")[0]


def _folder_of(name: str, common: str | None) -> str:
    """The folder ``name`` and every name before it start with (``common``; None: the first)."""
    if common is None:
        common = name.rpartition("/")[0] + "/" if "/" in name else ""
    while common and not name.startswith(common):
        common = common[:-1].rpartition("/")[0] + "/" if "/" in common[:-1] else ""
    return common


def _measure(
    rows: Callable[[], Iterable[Sequence[str]]], columns: int
) -> tuple[str, list[int], Counter[str], set[int | None]]:
    """The folder, column widths, leading check ids and outcome ranks, in one reading of rows.

    The folder is the one every receipt name starts with ("" when they share none: said
    once); a width of 0 is a column not shown; the ids count the rows each leads.
    Below :data:`_NARROW` columns the family and verdict give their room to the reason.
    The receipt name (less the folder) leaves the reason :data:`_WHY_ROOM` columns (or is
    cut to 12), and the reason takes the rest.
    """
    natural = [len(h) for h in _HEADERS[:4]]
    folder: str | None = None
    names = 0  # the widest name, folder included: every name starts with the folder
    leading: Counter[str] = Counter()
    outcomes: set[str] = set()
    for row in rows():
        receipt = row[0]
        if folder is None or not receipt.startswith(folder):  # else it is the folder still
            folder = _folder_of(receipt, folder)
        names = max(names, display_width(receipt))
        natural[1] = max(natural[1], display_width(row[1]))
        natural[2] = max(natural[2], display_width(row[2]))
        natural[3] = max(natural[3], display_width(row[3]))
        if row[4]:
            leading[row[4]] += 1
        outcomes.add(_outcome_word(row[1]))
    folder = folder or ""
    natural[0] = max(natural[0], names - display_width(folder))
    if columns < _NARROW:
        natural[2] = natural[3] = 0
    shown = [w for w in natural[1:] if w]
    room = max(columns - sum(shown) - (len(shown) + 1) * len(_GAP), 0)  # +1: the name's gap
    name = min(natural[0], max(room - _WHY_ROOM, 12))
    why = room - name
    if why < 16:  # very narrow: the name gives way first, down to a few columns
        name = max(room - 16, min(natural[0], 8))
        why = max(room - name, 0)
    ranks = {_RANK.get(word) for word in outcomes}
    return folder, [name, natural[1], natural[2], natural[3], why], leading, ranks


def _why(row: Sequence[str], noted: dict[str, int], width: int) -> tuple[str, str]:
    """A row's "why" within ``width``, and "" or the whole "why" for a line of its own.

    The check id is never cut: the reason after it is, at a word. When the id and its count
    do not fit the column, the cell is left empty and the "why" goes on the next line.
    """
    first = row[4]
    if not first:
        return "", ""
    return _why_fitted(first, row[5], int(row[6] or 0), noted.get(first), width)


@fastpath.cache(maxsize=256)
def _why_fitted(
    first: str, reason: str, more: int, note: int | None, width: int
) -> tuple[str, str]:
    # The rows of a run share a few leading checks and reasons: each "why" is fitted once.
    head = f"note {note}: {first}" if note is not None else first
    text = head if note is not None else f"{first}: {reason}"
    tail = f" (+{more} more)" if more else ""
    if display_width(text) + len(tail) <= width:
        return text + tail, ""
    if display_width(head) + len(tail) + 3 > width:  # not even the id and a word: a line of its own
        return "", text + tail
    cut = _cut_words(text, width - len(tail))
    if not cut.startswith(f"{head}: ") and note is None:  # no word of the reason fits
        cut = f"{head}: …" if display_width(head) + 3 <= width - len(tail) else head
    return cut + tail, ""


def _cut_words(text: str, width: int) -> str:
    """``text`` within ``width`` columns, cut after a whole word where one ends, marked "…"."""
    cut = fit(text, width)
    if cut == text:
        return text
    space = cut.rfind(" ")  # a long word (a path, escaped evidence) is cut inside instead
    return cut[:space].rstrip(" ;,:") + "…" if space > width // 2 else cut


def _keep_id(text: str, width: int) -> str:
    """``text`` (an id, then where) within ``width``: the id whole, where cut at its start.

    The end of a location (a file's name, its line) tells most; a line narrower than the id
    holds the id alone and runs on.
    """
    first, _, rest = text.partition(" ")
    if display_width(first) + 2 >= width or not rest:
        return first
    return f"{first} {fit(rest, width - display_width(first) - 1, keep_end=True)}"


def _id_then_prose(text: str, width: int) -> str:
    """``text`` (an id, then a reason) within ``width``: the id whole, the reason cut at a word."""
    first, _, rest = text.partition(" ")
    if display_width(first) + 2 >= width or not rest:
        return first
    return f"{first} {_cut_words(rest, width - display_width(first) - 1)}"


def counted_pass(check: Check) -> bool:
    """A passing per-receipt history check (``--state``): counted in a person's view, not listed.

    ``--state`` gives each receipt a passing history check or more (a fresh nonce, a new
    operation_id, a known config epoch): listed, they would bury the failures under one row per
    receipt and check. Other commands' passing findings are few and stay listed.
    """
    return check.status == "pass" and check.id.startswith("history.")


def passed_findings_note(findings: Iterable[Check]) -> str:
    """The passing history findings, counted by id, or "" when there are none.

    json and jsonl still list each one.
    """
    counts = Counter(c.id for c in findings if counted_pass(c))
    if not counts:
        return ""
    by_id = ", ".join(f"{check_id} {n}" for check_id, n in sorted(counts.items()))
    return (
        f"{sum(counts.values())} passing run check(s) not listed ({by_id}); "
        "--format json lists each"
    )


def lines(
    rows: Callable[[], Iterable[Sequence[str]]],
    findings: Sequence[Check],
    columns: int,
    colour: bool,
) -> Iterator[str]:
    """The terminal view, one line at a time (no line end), none wider than ``columns``.

    ``rows()`` gives the spooled rows afresh on each call (a spool file read again): each row
    is ``table.receipt_spool_cells``'s seven visible cells. They are read once for the folder
    all names share (said once, above the table) and the widths, then once per outcome that
    some row has, VERIFIED first, so the FAILs are the last rows; the failing run findings
    and the notes follow.
    """
    import textwrap  # only a run on a terminal wraps its notes

    columns = max(columns, 4)  # a width shutil reports as 0 or less is no width
    folder, widths, leading, shown_ranks = _measure(rows, columns)
    noted: dict[str, int] = {}
    for check_id, count in sorted(leading.items(), key=lambda item: (-item[1], item[0])):
        if count >= _NOTE_ROWS and check_id in NOTES:
            noted[check_id] = len(noted) + 1

    def line(cells: Sequence[str], outcome: str | None = None) -> str:
        name = cells[0] if outcome is None else cells[0][len(folder) :]
        shown = [_fit_middle(name, widths[0]), *cells[1:4]]
        padded = [
            c + " " * (w - display_width(c)) for c, w in zip(shown, widths, strict=False) if w
        ]
        plain = _GAP.join([*padded, cells[4]]).rstrip()
        if _ending_width(plain, cells[4]) > columns:  # narrower than the fixed columns: cut
            return fit(plain, columns)
        if not colour:
            return plain
        if outcome is not None:  # the outcome's own text coloured, not its padding
            word = _paint(shown[1], OUTCOME_COLOURS.get(outcome), colour)
            padded[1] = word + padded[1][len(shown[1]) :]
        return _GAP.join([*padded, cells[4]]).rstrip()

    if folder:  # the receipts' names are shown from here on
        yield fit(f"in {folder}", columns, keep_end=True)
    yield line(_HEADERS)
    yield fit(_GAP.join("-" * w for w in widths if w), columns)
    ranks = sorted(set(_RANK.values()))
    for rank in [*ranks, None]:  # an outcome word no rank names comes last, after FAIL
        if rank not in shown_ranks:
            continue  # no row to show: the spool is not read again
        for row in rows():
            word = _outcome_word(row[1])
            if _RANK.get(word) != rank:
                continue
            why, below = _why(row, noted, widths[4])
            yield line((*row[:4], why), word)
            if below:  # the id whole, on a line of its own; the reason cut after it
                yield "    " + _id_then_prose(below, columns - 4)
    shown = [f for f in findings if not counted_pass(f)]
    if shown:
        yield ""
        yield fit(f"run findings ({len(shown)}):", columns)
        for finding in shown:  # its id and where, then its reason, each on one line
            word = finding.status.upper()
            status = _paint(word, OUTCOME_COLOURS.get(word, STATUS_COLOURS.get(word)), colour)
            where = f" at {visible(finding.location)}" if finding.location else ""
            yield f"{status}  " + _keep_id(visible(finding.id) + where, columns - len(word) - 2)
            yield "      " + fit(visible(finding.reason), columns - 6) if columns > 6 else ""
    passed = passed_findings_note(findings)
    if passed:
        yield ""
        yield from textwrap.wrap(passed, columns)
    if noted:
        yield ""
        for check_id, number in noted.items():
            note = f"note {number}: {leading[check_id]} receipt(s) {check_id}: {NOTES[check_id]}"
            yield from textwrap.wrap(note, columns, subsequent_indent="  ")
