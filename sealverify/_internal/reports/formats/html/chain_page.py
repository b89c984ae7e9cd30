"""The html report of ``chain``: the records as a timeline, every break marked and explained."""

from __future__ import annotations

from typing import Any

from sealverify._internal.reports.formats.html.env import render as template
from sealverify._internal.reports.formats.html.page import close, open_page
from sealverify._internal.results.model import Check, Report, Status, Subject

_FAIL = Status.FAIL

__all__ = ["ROW_CAP", "render"]

ROW_CAP = 2_000  # records listed one per row; every break is listed whatever the cap
_STRIP_CELLS = 600  # the timeline strip draws at most this many cells (records grouped beyond)
_WIDTH = 1000
# Checks that say something about where the chain starts or ends, drawn at its ends.
_START = ("chain.start",)
_END = (
    "chain.anchor-head",
    "chain.anchor-count",
    "chain.anchor-state",
    "chain.truncated",
    "chain.tail-unanchored",
)


def _breaks(checks: tuple[Check, ...]) -> dict[str, list[Check]]:
    """Failed checks by the log location they name (a record's line or its payload's)."""
    found: dict[str, list[Check]] = {}
    for check in checks:
        if check.status == _FAIL and check.location:
            found.setdefault(check.location, []).append(check)
    return found


class _Rows:
    """The rows the page draws, read once from the records in order.

    Held: the first :data:`ROW_CAP` rows, the number of the others that carry a break, and
    the timeline's cells, each closed as the records of its group go by (one group's rows
    at a time): what is held is the page, not the log.
    """

    def __init__(self, subject: Subject, width: float) -> None:
        display = subject.display
        records = display.get("records", ())
        self.count = len(records)
        self.listed: list[dict[str, Any]] = []
        self.broken = 0  # rows past the cap that carry a break
        self.cells: list[dict[str, Any]] = []
        by_location = _breaks(subject.checks)
        through = display.get("anchored_through")
        tail = bool(display.get("tail_unanchored"))
        per = -(-self.count // _STRIP_CELLS) or 1  # records per cell, rounded up
        cell_width = width / (-(-self.count // per) or 1)
        group: list[dict[str, Any]] = []
        before: dict[str, Any] | None = None  # the last row of the group before
        for index, rec in enumerate(records):
            found = by_location.get(rec["location"], []) + (
                by_location.get(rec["payload"], []) if rec["payload"] else []
            )
            in_tail = tail and (through is None or index > through)
            row = {**rec, "index": index, "breaks": found, "tail": in_tail}
            if index < ROW_CAP:
                self.listed.append(row)
            elif found:
                self.broken += 1
            group.append(row)
            if len(group) == per or index == self.count - 1:
                self.cells.append(_cell(group, len(self.cells), cell_width, before))
                before, group = group[-1], []


def _cell(
    group: list[dict[str, Any]], n: int, width: float, before: dict[str, Any] | None
) -> dict[str, Any]:
    """One cell of the timeline strip: the ``n``-th group of records, drawn ``width`` wide."""
    state = (
        "broken"
        if any(r["breaks"] for r in group)
        else ("tail" if any(r["tail"] for r in group) else "ok")
    )
    return {
        "x": round(n * width, 2),
        "w": max(round(width - (1 if width > 3 else 0), 2), 0.5),
        "state": state,
        "first": group[0],
        "last": group[-1],
        "anchors": [a for r in group for a in r["anchors"]],
        "new_session": before is not None and group[0]["session"] != before["session"],
        "genesis": n == 0 and group[0]["prior_session"] is None and group[0]["entry"] == 0,
    }


def _records_width(records: int, display: dict[str, Any]) -> float:
    """The strip's width the records get; a truncated tail takes the rest, drawn as missing.

    With a known number missing the records and the missing tail share the strip in
    proportion; with an unknown number the missing tail gets a fixed fifth of it.
    """
    if display.get("tail") != "truncated":
        return float(_WIDTH)
    missing = display.get("tail_missing")
    if not records:
        return 0.0
    if isinstance(missing, int) and missing > 0:
        # At least a tenth on either side, so neither part is drawn too thin to see.
        share = min(max(records / (records + missing), 0.1), 0.9)
        return round(_WIDTH * share, 2)
    return _WIDTH * 0.8


def render(report: Report) -> str:
    """The chain subject as a timeline and a record table; receipt and history subjects after."""
    chain, others = report.subjects[0], report.subjects[1:]
    records = len(chain.display.get("records", ()))
    records_width = _records_width(records, chain.display)
    rows = _Rows(chain, records_width)
    checks = chain.sorted_checks()
    truncated = chain.display.get("tail") == "truncated"
    body = template(
        "chain.html",
        report=report,
        chain=chain,
        rows=rows.listed,
        unlisted=max(rows.count - ROW_CAP, 0),
        broken_rows=rows.broken,
        cells=rows.cells,
        width=_WIDTH,
        missing=(
            {
                "x": records_width,
                "w": round(_WIDTH - records_width, 2),
                "count": chain.display["tail_missing"],
            }
            if truncated
            else None
        ),
        start=[c for c in checks if c.id in _START],
        end=[c for c in checks if c.id in _END],
        breaks=[c for c in checks if c.status == _FAIL],
        others=others,
        facts=chain.facts,
    )
    return (
        open_page(
            "sealverify chain report",
            f"{report.summary.get('records', 0)} chain record(s) from {chain.name}",
            [
                ("summary", "Summary"),
                ("timeline", "Timeline"),
                ("breaks", "Breaks"),
                ("records", "Records"),
                ("checks", "All checks"),
            ],
        )
        + body
        + close()
    )
