"""Output formats: pure ``Report -> str`` functions found through one registry."""

from __future__ import annotations

from collections.abc import Callable

from sealverify.reports.formats import html, jsonfmt, jsonl, junit, sarif, table
from sealverify.reports.model import Report

__all__ = ["FORMATS", "render"]

FORMATS: dict[str, Callable[[Report], str]] = {
    "table": table.render,
    "json": jsonfmt.render,
    "jsonl": jsonl.render,
    "sarif": sarif.render,
    "junit": junit.render,
    "html": html.render,
}


def render(report: Report, name: str) -> str:
    """Render ``report`` in the named format (a key of :data:`FORMATS`)."""
    return FORMATS[name](report)
