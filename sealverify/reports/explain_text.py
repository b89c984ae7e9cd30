"""What a check id means, in a sentence, for the reports people read (the html format)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

__all__ = ["describe", "document_of"]


@cache
def _table() -> dict[str, dict[str, str]]:
    # Generated from the docs' check-id tables by tools/check_descriptions.py (a test holds the
    # two in step); shipped as package data, so an installed sealverify has it without docs/.
    text = resources.files("sealverify.reports").joinpath("data/check_descriptions.json")
    loaded: dict[str, dict[str, str]] = json.loads(text.read_text(encoding="utf-8"))
    return loaded


def describe(check_id: str) -> str | None:
    """The documented meaning of ``check_id``, or None when no document's table lists it.

    The one place the html report asks; a richer catalogue can answer here instead.
    """
    entry = _table().get(check_id)
    return entry["text"] or None if entry else None


def document_of(check_id: str) -> str:
    """The page that explains ``check_id``: its own table's, else its prefix's, else the index."""
    entry = _table().get(check_id) or _table().get(check_id.split(".", 1)[0] + ".*")
    return entry["doc"] if entry else "docs/checks.md"
