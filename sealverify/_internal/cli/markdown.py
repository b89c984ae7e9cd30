"""Text from evidence written into GitHub-flavoured Markdown so it renders as the text it is.

The Action's run summary is Markdown, and a file name, a finding reason or a value quoted from
a receipt is chosen by whoever wrote the evidence: written as it is, ``![x](https://…)``
would load a remote image, ``[x](…)`` make a link and ``<img …>`` an HTML element. So every
such string goes through one of two writers here, after :func:`visible` (controls, bidi and
invisible characters shown as escapes, docs/report-format.md#text-from-evidence):

- :func:`text`: every ASCII punctuation character backslash-escaped (CommonMark 0.31 §2.4:
  any ASCII punctuation may be escaped, and an escaped character is never markup), so no
  emphasis, link, image, HTML, entity, code span or autolink can start in it;
- :func:`code`: a code span fenced by one more backtick than the longest run inside it
  (CommonMark §6.1), whose content is never parsed at all.

Inside a table cell a ``|`` ends the cell even in a code span; the GFM table extension (GFM
spec §4.10) reads ``\\|`` as a literal ``|`` there, so both writers escape it with
``cell=True``. :func:`visible` doubles every backslash of the evidence, so the backslashes
before a ``|`` always number an odd count once the escape is added: the pipe stays escaped
whether a renderer counts them or looks at the one before.
"""

from __future__ import annotations

import re

from sealverify._internal.reports.visible import visible

__all__ = ["code", "link", "text"]

_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")  # every ASCII punctuation character
_BACKTICKS = re.compile(r"`+")
_URL_UNSAFE = re.compile(r"[^A-Za-z0-9._~:/?#@!$&'*+,;=%-]")


def text(value: str) -> str:
    """``value`` as Markdown text that renders as :func:`visible` shows it, in any context.

    Spaces at either end, which a paragraph or a table cell would trim, are written as
    character references.
    """
    escaped = _PUNCTUATION.sub(lambda match: "\\" + match.group(), visible(value))
    body = escaped.strip(" ")
    if not body:
        return "&#32;" * len(escaped)
    start = escaped.index(body)
    ends = len(escaped) - start - len(body)
    return "&#32;" * start + body + "&#32;" * ends


def code(value: str, cell: bool = False) -> str:
    """``value`` as a code span showing exactly what :func:`visible` shows; ``cell``: in a table.

    An empty value has no code span (CommonMark has none): it is written as ``(empty)``.
    """
    shown = visible(value)
    if not shown:
        return "(empty)"
    longest = max((len(run) for run in _BACKTICKS.findall(shown)), default=0)
    fence = "`" * (longest + 1)
    # A span that starts or ends with a backtick needs a space between it and the fence, and
    # CommonMark strips one space from each end of a span that has one at both: pad so the
    # padding is what is stripped.
    pad = "`" in (shown[0], shown[-1]) or (shown[0] == shown[-1] == " " and bool(shown.strip()))
    if cell:
        shown = shown.replace("|", "\\|")
    inner = f" {shown} " if pad else shown
    return f"{fence}{inner}{fence}"


def link(label: str, url: str | None, cell: bool = False) -> str:
    """``label`` as a code span, linked to ``url`` when there is one.

    ``url`` is ours (the action's docs at its ref), never evidence: still, anything a link
    destination could read as its end (spaces, ``<``, ``>``, parentheses, backquotes) is
    percent-encoded.
    """
    span = code(label, cell)
    if not url:
        return span
    safe = _URL_UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), url)
    return f"[{span}]({safe})"
