"""The frame every html report shares: the head with its inline style, the closing script."""

from __future__ import annotations

import base64
import hashlib
from functools import cache

from sealverify._internal.reports.formats.html.env import render
from sealverify._version import __version__

__all__ = ["close", "open_page"]


@cache
def _script() -> tuple[str, str]:  # the text, and the hash the Content-Security-Policy names
    """The filter script and its CSP hash: the page runs that script and no other."""
    script = render("filter.js")  # exactly the text page_close.html includes
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return script, f"sha256-{digest}"


def open_page(title: str, subtitle: str, toc: list[tuple[str, str]]) -> str:
    """Everything up to the page's main content: doctype, CSP, inline style, header, contents."""
    return render(
        "page_open.html",
        title=title,
        subtitle=subtitle,
        toc=toc,
        version=__version__,
        script_hash=_script()[1],
    )


def close() -> str:
    """The end of the page, with the filter script (inert where a page has no table)."""
    return render("page_close.html")
