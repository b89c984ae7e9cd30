"""The fitted receipts table does its work once: one reading for its widths, a slice for a cut."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

from hypothesis import given
from hypothesis import strategies as st

from sealverify._internal.reports.formats.terminal import fit, lines


def _fit_by_characters(text: str, width: int, keep_end: bool) -> str:
    """``fit`` as it is defined: characters kept one by one while their columns fit."""

    def columns(chars: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in chars)

    if columns(text) <= width:
        return text
    if width <= 0:
        return ""
    kept: list[str] = []
    used = 0
    for char in reversed(text) if keep_end else text:
        if used + columns(char) > width - 1:
            break
        kept.append(char)
        used += columns(char)
    return "…" + "".join(reversed(kept)) if keep_end else "".join(kept) + "…"


# ASCII, the cut mark, accents, combining marks, wide and fullwidth characters, an emoji.
_CHARS = st.sampled_from("ab /.:é…\u0301\u4e2d\u6587\uff21\U0001f600")


@given(st.text(_CHARS, max_size=40), st.integers(-2, 45), st.booleans())
def test_fit_equals_its_definition(text: str, width: int, keep_end: bool) -> None:
    assert fit(text, width, keep_end=keep_end) == _fit_by_characters(text, width, keep_end)


def _row(name: str, outcome: str, why: str = "") -> tuple[str, ...]:
    reason = "a reason given at some length, cut … somewhere" if why else ""
    return (name, outcome, "v3", "ALLOW", why, reason, "0")


def _reads(rows: list[tuple[str, ...]]) -> int:
    """How often the view reads its spooled rows to draw them."""
    reads = 0

    def spool() -> Iterator[tuple[str, ...]]:
        nonlocal reads
        reads += 1
        return iter(rows)

    list(lines(spool, (), 100, False))
    return reads


def test_the_rows_are_read_once_for_widths_then_once_per_outcome_shown() -> None:
    verified = [_row(f"d/receipt-{i}.json", "VERIFIED", "legacy.x") for i in range(5)]
    assert _reads(verified) == 2
    mixed = [*verified, _row("d/receipt-9.json", "FAIL", "binding.y")]
    assert _reads(mixed) == 3


def test_rows_of_every_outcome_still_come_in_order() -> None:
    rows = [
        _row("d/f.json", "FAIL", "binding.y"),
        _row("d/v.json", "VERIFIED"),
        _row("d/o.json", "ODD"),  # an outcome word no rank names: last
        _row("d/r.json", "REDUCED", "scope.z"),
    ]
    shown = [line.split()[0] for line in lines(lambda: iter(rows), (), 100, False)]
    assert shown[3:] == ["v.json", "r.json", "f.json", "o.json"]
