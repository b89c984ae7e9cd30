"""The receipts table's per-receipt work: a "why" made once per text, lines written in few writes.

A row's brief is kept per distinct (id, reason, location) tuple of the checks it names; the
spooled cells must be those the row and the brief give one by one, for any text evidence
can hold (controls, escapes, wide and combining characters, bidi controls, lone surrogates).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal import fastpath
from sealverify._internal.reports.formats import table, terminal
from sealverify._internal.reports.formats.grid import View, display_width
from sealverify._internal.reports.formats.protocol import Context, Ending
from sealverify._internal.reports.visible import visible
from sealverify._internal.results.model import Check, Report, Status, Subject

# ASCII, escapes and controls, a backslash before x/u, wide, fullwidth, combining, bidi,
# zero-width, line separators, the cut mark, a lone surrogate and an emoji.
_CHARS = st.sampled_from(
    [
        *"ab :;.-_/ ",
        *("\x1b", "\x1b[2K", "\n", "\t", "\\", "\\x", "\\u", "\x85", "\x7f"),
        *("漢", "\uff21", "e\u0301", "\u202e", "\u2066", "\u200b", "\u2028", "…", "\ud800"),
        *("\U0001f600", "\U000e0041"),
    ]
)
_TEXT = st.lists(_CHARS, max_size=40).map("".join)
_LONG = st.one_of(_TEXT, _TEXT.map(lambda t: (t + " word") * 30))
_IDS = st.sampled_from(
    [
        "legacy.guard-target-omits-meta",
        "binding.args-hash",
        "signature.object-b",
        "replay.decision",
        "kernel.identity",
        "bypass.not-mediated",
    ]
)
_STATUSES = st.sampled_from(list(Status))
_CHECK = st.builds(Check, _IDS, _STATUSES, _LONG, _TEXT)


@st.composite
def _subjects(draw: st.DrawFn) -> Subject:
    facts: dict[str, Any] = {}
    for key in ("family", "verdict"):
        value = draw(st.one_of(st.none(), _TEXT, st.integers(0, 3)))
        if value is not None:
            facts[key] = value
    return Subject(
        draw(_TEXT),
        draw(st.sampled_from(["VERIFIED", "UNPINNED", "REDUCED", "FAIL", "ODD"])),
        tuple(draw(st.lists(_CHECK, max_size=6))),
        facts,
        draw(st.sampled_from(["", "NOT MEDIATED", "x\x1b[31m"])),
    )


def _one_by_one(subject: Subject) -> tuple[str, ...]:
    """The row's first four cells and the brief's three, each made on its own (the definition)."""
    return tuple(map(table._cell, table._receipt_row(subject)[:4])) + table.receipt_brief(subject)


@settings(max_examples=300, deadline=None)
@given(st.lists(_subjects(), min_size=1, max_size=4))
def test_spooled_cells_equal_the_row_and_brief_made_one_by_one(subjects: list[Subject]) -> None:
    # Twice each: the second reading of a "why" is the kept one.
    for subject in [*subjects, *subjects]:
        assert table.receipt_spool_cells(subject) == _one_by_one(subject)
    with fastpath.use_reference():
        for subject in subjects:
            assert table.receipt_spool_cells(subject) == _one_by_one(subject)


@settings(max_examples=300, deadline=None)
@given(st.lists(_CHARS, max_size=60).map("".join))
def test_a_kept_width_is_the_width_by_character(text: str) -> None:
    import unicodedata

    expected = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    assert display_width(text) == expected
    assert display_width(text) == expected  # the kept answer
    with fastpath.use_reference():
        assert display_width(text) == expected
    long = text * 20 + "漢"  # past the longest text whose width is kept
    assert display_width(long) == expected * 20 + 2 == display_width(long)


def _waived(index: int) -> Subject:
    passing = [Check(f"binding.b{n}", Status.PASS, "held") for n in range(30)]
    waived = Check(
        "legacy.guard-target-omits-meta",
        Status.WAIVED,
        "WAIVED (the fleet runs a host that predates the ruling): " + "unbound " * 60,
        "/params/_meta",
    )
    facts = {"family": "v3", "verdict": "BLOCK", "rederivation": "pass"}
    return Subject(f"d/receipt-{index:04d}.json", "VERIFIED", (*passing, waived), facts)


def test_receipts_naming_the_same_checks_order_them_once(monkeypatch: pytest.MonkeyPatch) -> None:
    if fastpath.reference():
        pytest.skip("the kept cells are the fast path: none under the switch")
    orders = 0
    definition = table.decisive_order

    def counted(checks: Any) -> list[Check]:
        nonlocal orders
        orders += 1
        return definition(checks)

    monkeypatch.setattr(table, "decisive_order", counted)
    with fastpath.use_reference(False):  # every cache emptied first
        rows = [table.receipt_spool_cells(_waived(i)) for i in range(50)]
    assert orders == 1
    assert len(set(rows)) == 50 and len({row[4:] for row in rows}) == 1


def _table(subjects: list[Subject], view: View) -> Iterator[str | bytes]:
    fmt = table.FORMAT
    context = Context("verify", "receipts", view)
    stream = fmt.stream(context)
    spool = io.BytesIO()
    for subject in subjects:
        bare, piece = fmt.fragment(subject, context)
        data = stream.take(bare, piece)
        assert data is not None
        spool.write(data)
        stream.spooled += 1
    report = Report("verify", (), {"receipts": len(subjects)}, 0, (), layout="receipts")
    return stream.pieces(report, (), spool, Ending(view=view))


@pytest.mark.parametrize("colour", [False, True])
def test_the_fitted_table_is_written_in_few_pieces_byte_for_byte(colour: bool) -> None:
    subjects = [_waived(i) for i in range(600)]
    view = View(100, colour)
    pieces = list(_table(subjects, view))
    assert len(pieces) <= 4  # 600 rows and their header: not a write a line
    text = "".join(p.decode() if isinstance(p, bytes) else p for p in pieces)
    whole = table.render(Report("verify", tuple(subjects), {}, 0, (), layout="receipts"), view)
    assert text == whole
    assert all(display_width(line) <= 100 for line in text.splitlines() if not colour)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=4), _LONG)
def test_a_line_is_as_wide_as_its_cells_and_its_why(cells: list[str], why: str) -> None:
    line = "  ".join([*cells, why]).rstrip()
    assert terminal._ending_width(line, why) == display_width(line)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(_TEXT, _IDS, _LONG, st.integers(0, 3)), min_size=1, max_size=8),
    st.integers(4, 130),
    st.booleans(),
)
def test_the_fitted_rows_are_those_of_the_definitions(
    rows: list[tuple[str, str, str, int]], columns: int, colour: bool
) -> None:
    # The "why" kept per text, in fast mode, against every one fitted afresh.
    cells = [
        (*map(visible, (name, "VERIFIED", "v3", "ALLOW", first, reason)), str(more))
        for name, first, reason, more in [*rows, *rows, *rows]
    ]
    fast = list(terminal.lines(lambda: iter(cells), (), columns, colour))
    with fastpath.use_reference():
        assert list(terminal.lines(lambda: iter(cells), (), columns, colour)) == fast
