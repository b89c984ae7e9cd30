"""Text from evidence made safe to show a person: controls and invisible characters escaped.

Every renderer for people (the ``table`` format, JUnit, the html pages, the summary and error
lines on stderr, the GitHub Action's annotations and step summary) passes the evidence it
shows through :func:`visible` exactly once. A terminal then never receives a control
sequence from a receipt, a frame or a file name (an ``ESC[2K`` that erases a FAIL row, an
OSC 52 that writes the clipboard), and a bidi override cannot reorder what is read (Unicode
Technical Standard #39 and the "Trojan Source" paper, CVE-2021-42574). The machine formats
(json, jsonl, sarif) keep exact values: JSON escapes controls itself.

The rule (docs/report-format.md, "Text from evidence"):

- Escaped, as Python spells them: C0 controls, DEL and C1 controls (``\\x1b``), every
  format character of Unicode category Cf (the bidi controls U+061C, U+200E, U+200F,
  U+202A–U+202E, U+2066–U+2069; the invisible U+200B–U+200D, U+2060–U+2064, U+FEFF, U+00AD;
  the tag characters U+E0000–U+E007F), the line and paragraph separators U+2028 and U+2029,
  lone surrogates and the noncharacters (U+FFFE, U+FFFF, ...): ``\\u202e``, ``\\U000e0041``.
- A backslash is doubled only where it could be read as the start of such an escape: before
  another backslash, before ``x``, ``u`` or ``U``, and before an escaped character. Every other
  backslash (``C:\\data``) is shown as it is. Read back left to right, ``\\\\`` is one
  backslash, ``\\xHH``, ``\\uHHHH`` and ``\\UHHHHHHHH`` are one escaped character, and any
  other backslash is itself: the shown text names the original exactly.
- Line ends and tabs are escaped too (a cell or a message stays on its line); a renderer that
  writes several lines of its own text escapes each evidence piece, never its own line ends.
"""

from __future__ import annotations

import functools
import re

__all__ = ["ESCAPED", "visible"]

# The characters shown escaped, as a regular-expression class. Category Cf is listed as of
# Unicode 15.1 (Python 3.13's database) rather than read from `unicodedata`, so a report is
# the same under every supported Python (3.11 carries Unicode 14).
_CF = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
# The 66 noncharacters: U+FDD0..U+FDEF and the last two code points of every plane. XML 1.0
# forbids U+FFFE and U+FFFF (section 2.2, production Char); none is a character to show.
_NONCHARACTERS = "\ufdd0-\ufdef" + "".join(
    f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(17)
)
ESCAPED = (
    "[\x00-\x1f\x7f-\x9f"
    + _CF
    + "\u2028\u2029"  # line and paragraph separators (category Zl, Zp)
    + "\ud800-\udfff"  # lone surrogates (category Cs): never valid UTF-8 either
    + _NONCHARACTERS
    + "]"
)
"""A regular-expression class of every character :func:`visible` escapes."""


@functools.cache  # compiled when a text first needs an escape: 6 M instructions of start-up
def _pattern() -> re.Pattern[str]:
    return re.compile(r"\\(?=[\\xuU]|" + ESCAPED + ")|" + ESCAPED)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\\":
        return "\\\\"
    point = ord(char)
    if point <= 0xFF:
        return f"\\x{point:02x}"
    if point <= 0xFFFF:
        return f"\\u{point:04x}"
    return f"\\U{point:08x}"


def visible(text: str) -> str:
    """``text`` with every control and invisible formatting character shown as an escape.

    Apply it once, where a piece of evidence becomes part of text for a person: applied
    twice, the doubled backslashes double again. A text with nothing to escape is returned
    as it is.
    """
    if text.isprintable() and "\\" not in text:
        # The common case, decided in C: no character of ESCAPED is printable (each is a
        # control, format, surrogate, separator or unassigned code point; the test suite holds
        # this for every one under the running Python), and no backslash needs doubling.
        return text
    return _pattern().sub(_escape, text)
