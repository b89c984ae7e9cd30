"""The one streaming interface every output format implements, and the state it keeps.

A report is written as its subjects arrive: a format makes one fragment per subject (where the
subject was verified, a worker included), its stream takes each fragment into a small state
(SARIF rule ids, JUnit counts, a table's shared notes) and says the bytes to spool, and at the
end the head and tail are rendered from the report's summary and findings around the spool.
``head + separator.join(spooled) + tail`` is byte for byte what ``render`` gives for the whole
report (tests/perf/test_flat_memory.py). The registry (``formats/__init__.py``) names each format's
:class:`Format`; no other code compares a format's name (tests/reports/test_format_registry.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, ClassVar, Literal, Protocol

from sealverify._internal.reports.formats.grid import View
from sealverify._internal.results.model import Report, Subject

__all__ = [
    "AroundStream",
    "Context",
    "Ending",
    "Format",
    "PageRows",
    "Piece",
    "Stream",
    "counted",
    "spooled_body",
]

# What a format makes of one subject where it was verified: text or bytes to spool (empty: the
# subject shows nothing, a SARIF subject without results), a table row's cells, an html row's
# fragments, or None (the stream renders the subject itself, or keeps it whole).
Piece = bytes | str | tuple[str, ...] | None

# The html page's settings rows and the command line its footer names, asked for at the end.
PageRows = Callable[[], tuple[list[tuple[str, str]], str]]


@dataclass(frozen=True)
class Context:
    """What one report is: its command, its layout (``Report.layout``), a table's view."""

    command: str
    layout: Literal["rows", "detail", "receipts"] = "detail"
    view: View = field(default_factory=View)


@dataclass(frozen=True)
class Ending:
    """What the report's end knows that its start did not.

    ``said``: the summary line, repeated at the end of a table read in a pager (else "");
    ``page``: the html page's settings rows; ``view``: a table's view, when it is decided
    only once the run is done (``verify``'s).
    """

    said: str = ""
    page: PageRows | None = None
    view: View | None = None


def counted(subject: Subject) -> dict[str, Any]:
    """The facts a receipts summary counts of a subject whose fragment is already made."""
    return {"rederivation": subject.facts.get("rederivation")}


class Stream(Protocol):
    """One report being written in one format: its state, and its text around the spool."""

    separator: ClassVar[bytes]  # written between two spooled fragments
    spooled: int  # fragments in the spool (the spooler counts them)

    def take(self, subject: Subject, piece: Piece) -> bytes | None:
        """Count one subject into the state; its bytes to spool (b"": none), None to keep it."""
        ...

    def pieces(
        self, bare: Report, kept: tuple[Subject, ...], spool: IO[bytes], ending: Ending
    ) -> Iterator[str | bytes]:
        """The whole report: ``bare`` (no subjects) around the spool, or with ``kept``."""
        ...


class Format(Protocol):
    """One output format: a whole report rendered, a subject's fragment, a report's stream."""

    name: str
    # A whole page for a browser: it draws what subjects carry for it (``Subject.display``)
    # and is never written to a terminal (``--format html`` needs ``--output`` there).
    page: bool
    # Drawn for a person: fitted to a width, its status words in colour (``--color``).
    coloured: bool

    def render(self, report: Report, view: View | None = None) -> str:
        """The whole report (``view`` is read by the table only)."""
        ...

    def fragment(self, subject: Subject, context: Context) -> tuple[Subject, Piece]:
        """One subject's fragment and the part of the subject the parent still needs."""
        ...

    def stream(self, context: Context) -> Stream:
        """A fresh stream for one report."""
        ...

    def document(self, value: Any, text: Callable[[], str]) -> str:
        """A listing that is not a report (``explain``, ``inventory``): ``value`` or ``text()``."""
        ...


def spooled_body(spool: IO[bytes]) -> Iterator[bytes]:
    """The spool from its start, a MiB at a time (copied as it is, never decoded)."""
    spool.seek(0)
    return iter(lambda: spool.read(1 << 20), b"")


class AroundStream:
    """A stream whose report is its head, the spooled fragments and its tail.

    A format subclasses it with :meth:`take`, :meth:`around` and its separator. With subjects
    kept whole, or nothing spooled where :attr:`whole_when_empty`, the report is rendered
    whole by ``render``.
    """

    separator: ClassVar[bytes] = b""

    def __init__(self, context: Context, render: Callable[[Report], str]) -> None:
        self.context = context
        self.spooled = 0
        self._render = render

    def whole_when_empty(self) -> bool:
        """Whether a report with nothing spooled is rendered whole (else head and tail)."""
        return True

    def take(self, subject: Subject, piece: Piece) -> bytes | None:
        if piece is None:
            return None
        return piece if isinstance(piece, bytes) else str(piece).encode()

    def around(self, bare: Report) -> tuple[str, str]:
        """The text before and after the spooled fragments."""
        raise NotImplementedError

    def encoded(self, text: str) -> str | bytes:
        """``text`` as written (a coloured table is written as bytes)."""
        return text

    def pieces(
        self, bare: Report, kept: tuple[Subject, ...], spool: IO[bytes], ending: Ending
    ) -> Iterator[str | bytes]:
        if kept or (self.spooled == 0 and self.whole_when_empty()):
            yield self.encoded(self._render(dataclasses.replace(bare, subjects=kept)))
            return
        head, tail = self.around(bare)
        yield self.encoded(head)
        yield from spooled_body(spool)
        yield self.encoded(tail)
