"""The output-format registry, public: each format a ``Report -> str`` and a streaming format.

:data:`FORMATS` and :func:`render` write a whole report; :data:`STREAMS` names each format's
:class:`~sealverify._internal.reports.formats.protocol.Format` (its fragment per subject, its
stream's head, separator, tail and state), through which every command's report is written
(``_internal/cli/spooled.py``). The formats themselves are modules of
``sealverify._internal.reports.formats``. This module is the one place a format is chosen by
its name: no other module compares one (tests/architecture/test_format_registry.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sealverify._internal.reports.formats import html, jsonfmt, jsonl, junit, sarif, table
from sealverify._internal.reports.formats.grid import View
from sealverify._internal.reports.formats.protocol import Format
from sealverify._internal.results.model import Report

__all__ = ["FORMATS", "STREAMS", "View", "format_named", "listing", "render"]

STREAMS: dict[str, Format] = {
    "table": table.FORMAT,
    "json": jsonfmt.FORMAT,
    "jsonl": jsonl.FORMAT,
    "sarif": sarif.FORMAT,
    "junit": junit.FORMAT,
    "html": html.FORMAT,
}

FORMATS: dict[str, Callable[[Report], str]] = {
    "table": table.render,
    "json": jsonfmt.render,
    "jsonl": jsonl.render,
    "sarif": sarif.render,
    "junit": junit.render,
    "html": html.render,
}


def format_named(name: str) -> Format:
    """The format ``name`` names (a key of :data:`STREAMS`; ``--format`` offers only those)."""
    return STREAMS[name]


def render(report: Report, name: str, view: View | None = None) -> str:
    """Render ``report`` in the named format (a key of :data:`FORMATS`).

    ``view`` (width and colour) is read by the table format only; the others are bytes that
    never depend on where they are written.
    """
    return STREAMS[name].render(report, view)


def listing(name: str, value: Any, text: Callable[[], str]) -> str:
    """A listing that is not a report (``explain``, ``inventory``) in the format ``name``.

    ``value`` as JSON for the json format; ``text()``, for a person, for any other (the
    table, ``explain``'s ``text``).
    """
    shown = STREAMS.get(name)
    return text() if shown is None else shown.document(value, text)
