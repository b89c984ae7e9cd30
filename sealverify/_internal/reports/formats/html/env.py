"""The one Jinja2 environment of the html reports: package templates, autoescaping always on."""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

from sealverify._internal.reports.explain_text import describe, document_of
from sealverify._internal.reports.formats.html.spans import Span, compare, first_difference
from sealverify._internal.reports.visible import visible
from sealverify._internal.results.outcomes import RECEIPT_OUTCOMES, Outcome

if TYPE_CHECKING:
    import jinja2

__all__ = ["anchor", "environment", "render", "utc"]


def utc(ms: int | None) -> str:
    """A signed time in milliseconds since the epoch as ISO 8601 UTC (to the second)."""
    if ms is None:
        return ""
    try:
        moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    except (OverflowError, OSError, ValueError):
        return f"{ms} ms (out of range)"
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def anchor(name: str) -> str:
    """A stable in-page anchor for a subject: its name hashed, so no name text reaches an id."""
    return "r-" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _spans(expected: str, found: str) -> dict[str, Any]:
    left, right = compare(expected, found)
    return {"expected": left, "found": right, "first": first_difference(expected, found)}


# The css classes an outcome or a status may take (templates/style.css colours them); any other
# text gets "other". The outcomes are the receipts' and the chain's; the rest are check statuses
# and the diff page's row states.
_CSS = frozenset(
    {*RECEIPT_OUTCOMES, Outcome.INTACT, Outcome.UNANCHORED, Outcome.BROKEN}
    | {Outcome.NOT_A_CHAIN}
    | {"pass", "fail", "not-evaluated", "info", "waived", "same", "differ", "warn"}
)


def _doc_uri(check_id: str) -> str | None:
    """The docs page of ``check_id`` in the published source tree, or None when unknown."""
    from sealverify._internal import (
        catalogue,  # the catalogue's links: read only for an explained check
    )

    entry = catalogue.lookup(check_id)
    return None if entry is None else catalogue.help_uri(entry)


def _css(text: object) -> str:
    return text if isinstance(text, str) and text in _CSS else "other"


def _marked(spans: list[Span]) -> int:
    return sum(len(s.text) for s in spans if s.differs)


def _shown(value: Any) -> Any:
    """Every ``{{ value }}`` before it is escaped: a text made visible (reports/visible.py).

    Autoescaping keeps evidence from being read as markup, but a bidi override (U+202E) or a
    zero-width character passes it and reorders or hides what a reader sees (the same holds
    in text nodes, attributes and ``<pre>``). Markup (a ``str`` subclass: a macro's output,
    :func:`_join`'s) was built from values already shown, and is left as it is.
    """
    return visible(value) if type(value) is str else value


def _join(values: Iterable[Any], separator: str = "") -> Any:
    """Jinja2's ``join`` with each item made visible first, then escaped, as markup."""
    from markupsafe import escape

    return escape(separator).join(escape(visible(str(v))) for v in values)


@cache
def environment() -> jinja2.Environment:
    """Templates from the package (``templates/``); every value is escaped unless marked safe.

    Nothing in any template marks receipt text safe: autoescaping is the only escaping.
    """
    import jinja2  # only the html format needs it: `import sealverify` stays light

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("sealverify._internal.reports.formats.html", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=_shown,
    )
    env.filters["join"] = _join
    env.filters["utc"] = utc
    env.filters["anchor"] = anchor
    env.filters["marked"] = _marked
    env.filters["css"] = _css
    env.globals["describe"] = describe
    env.globals["document_of"] = document_of
    # the page's doc references are links when the published source tree is known
    # (SEALVERIFY_SOURCE_URL, as SARIF's helpUri; catalogue/__init__.py), else plain paths
    env.globals["doc_uri"] = _doc_uri
    env.globals["spans"] = _spans
    return env


def render(template: str, **values: Any) -> str:
    """Render a package template with ``values``."""
    return environment().get_template(template).render(**values)
