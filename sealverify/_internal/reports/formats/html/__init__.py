"""The html format: one self-contained page per report (inline style and SVG, no fetches)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING, Any, ClassVar

from sealverify._internal.reports.formats.grid import View
from sealverify._internal.reports.formats.protocol import (
    AroundStream,
    Context,
    Ending,
    Piece,
    Stream,
)
from sealverify._internal.results.model import Report, Subject

if TYPE_CHECKING:
    from sealverify._internal.reports.formats.html.verify_page import VerifyPage

__all__ = ["FORMAT", "HtmlFormat", "render"]


def render(report: Report) -> str:
    """The report as one html page: verify, chain and diff have their own, the rest a generic one.

    Every value is escaped by Jinja2's autoescaping (the receipts are hostile input).
    """
    if report.command == "verify":
        from sealverify._internal.reports.formats.html import verify_page

        return verify_page.render(report)
    if report.command == "chain":
        from sealverify._internal.reports.formats.html import chain_page

        return chain_page.render(report)
    if report.command == "diff":
        from sealverify._internal.reports.formats.html import diff_page

        return diff_page.render(report)
    from sealverify._internal.reports.formats.html import generic_page

    return generic_page.render(report)


class _Kept(AroundStream):
    """A page needs the whole report for its charts: every subject is kept."""


class _Receipts:
    """``verify``'s page: each receipt's rows and drill-down spooled by the page itself."""

    separator: ClassVar[bytes] = b""

    def __init__(self) -> None:
        from sealverify._internal.reports.formats.html.verify_page import VerifyPage

        self.spooled = 0
        self.page: VerifyPage = VerifyPage(_text_spool)

    def take(self, subject: Subject, piece: Piece) -> bytes | None:
        if isinstance(piece, tuple):  # rows and detail, rendered where it was verified
            self.page.add(subject, piece)
        return b""

    def pieces(
        self, bare: Report, kept: tuple[Subject, ...], spool: IO[bytes], ending: Ending
    ) -> Iterator[str | bytes]:
        with self.page:
            rows, command = ending.page() if ending.page is not None else ([], "")
            yield from self.page.pieces(bare, rows, command)


def _text_spool() -> IO[str]:
    import tempfile  # an html run only: the registry imports this module for every format

    return tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n")


class HtmlFormat:
    """The html format's side of the streaming interface (``protocol.Format``)."""

    name = "html"
    page = True
    coloured = False

    def render(self, report: Report, view: View | None = None) -> str:
        return render(report)

    def fragment(self, subject: Subject, context: Context) -> tuple[Subject, Piece]:
        if context.layout == "receipts":  # its rows and drill-down, rendered here
            from sealverify._internal.reports.formats.html import (
                verify_page,  # html runs load Jinja2
            )

            return verify_page.bare(subject), verify_page.receipt_fragments(subject)
        return subject, None

    def stream(self, context: Context) -> Stream:
        if context.layout == "receipts":
            return _Receipts()
        return _Kept(context, render)

    def document(self, value: Any, text: Callable[[], str]) -> str:
        return text()


FORMAT = HtmlFormat()
