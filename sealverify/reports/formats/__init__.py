"""Output formats: pure ``Report -> str`` functions found through one registry."""

from __future__ import annotations

from collections.abc import Callable

from sealverify.reports.formats import html, jsonfmt, jsonl, junit, sarif, table
from sealverify.reports.formats.grid import View
from sealverify.reports.model import Report

__all__ = ["FORMATS", "View", "render"]

FORMATS: dict[str, Callable[[Report], str]] = {
    "table": table.render,
    "json": jsonfmt.render,
    "jsonl": jsonl.render,
    "sarif": sarif.render,
    "junit": junit.render,
    "html": html.render,
}


def render(report: Report, name: str, view: View | None = None) -> str:
    """Render ``report`` in the named format (a key of :data:`FORMATS`).

    ``view`` (width and colour) is read by the table format only; the others are bytes that
    never depend on where they are written.
    """
    if name == "table" and view is not None:
        return table.render(report, view)
    return FORMATS[name](report)
