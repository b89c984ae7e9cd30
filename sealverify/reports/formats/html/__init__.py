"""The html format: one self-contained page per report (inline style and SVG, no fetches)."""

from __future__ import annotations

from sealverify.reports.model import Report

__all__ = ["render"]


def render(report: Report) -> str:
    """The report as one html page: verify, chain and diff have their own, the rest a generic one.

    Every value is escaped by Jinja2's autoescaping (the receipts are hostile input).
    """
    if report.command == "verify":
        from sealverify.reports.formats.html import verify_page

        return verify_page.render(report)
    if report.command == "chain":
        from sealverify.reports.formats.html import chain_page

        return chain_page.render(report)
    if report.command == "diff":
        from sealverify.reports.formats.html import diff_page

        return diff_page.render(report)
    from sealverify.reports.formats.html import generic_page

    return generic_page.render(report)
