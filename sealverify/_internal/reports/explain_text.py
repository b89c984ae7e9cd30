"""What a check id means, in a sentence, for the reports people read (the html format)."""

from __future__ import annotations

from sealverify._internal import catalogue

__all__ = ["describe", "document_of", "severity_of"]


def describe(check_id: str) -> str | None:
    """The catalogue's full description of ``check_id`` (``sealverify explain``), or None.

    The one place the html report asks; an id the catalogue does not know gets no text. The
    text is for a person: code spans lose their Markdown backticks (a page shows them raw).
    """
    entry = catalogue.lookup(check_id)
    return catalogue.plain(entry.full) if entry else None


def document_of(check_id: str) -> str:
    """The docs page that explains ``check_id``: its catalogue entry's, else the index."""
    entry = catalogue.lookup(check_id)
    return f"docs/{entry.page}" if entry else "docs/checks.md"


def severity_of(check_id: str) -> str:
    """The catalogue's severity of ``check_id`` (error, warning, note), or "unknown"."""
    entry = catalogue.lookup(check_id)
    return entry.severity if entry else "unknown"
