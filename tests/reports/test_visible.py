"""reports/visible.py: evidence's controls and invisible characters shown escaped, reversibly."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from sealverify._internal.reports.visible import visible

# Written here from the rule in docs/report-format.md, not from the module: left to right,
# "\\" is one backslash, \xHH, \uHHHH and \UHHHHHHHH one character, any other "\" itself.
_READ = re.compile(r"\\(\\|x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})")


def _read_back(shown: str) -> str:
    def one(match: re.Match[str]) -> str:
        body = match.group(1)
        return "\\" if body == "\\" else chr(int(body[1:], 16))

    return _READ.sub(one, shown)


def _dangerous(char: str) -> bool:
    """Characters a terminal or a bidi renderer acts on, by their Unicode category."""
    return unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp")


def test_each_named_character_is_shown_escaped() -> None:
    named = {
        "\x1b": "\\x1b",
        "\x07": "\\x07",
        "\x00": "\\x00",
        "\x7f": "\\x7f",
        "\x9b": "\\x9b",  # C1 CSI: one byte in Latin-1 terminals
        "\n": "\\x0a",
        "\r": "\\x0d",
        "\t": "\\x09",
        "\u061c": "\\u061c",
        "\u200b": "\\u200b",
        "\u200f": "\\u200f",
        "\u202a": "\\u202a",
        "\u202e": "\\u202e",
        "\u2066": "\\u2066",
        "\u2069": "\\u2069",
        "\ufeff": "\\ufeff",
        "\u2028": "\\u2028",
        "\ufffe": "\\ufffe",
        "\ud800": "\\ud800",
        "\U000e0041": "\\U000e0041",  # a tag character: hidden text
    }
    for char, shown in named.items():
        assert visible(f"a{char}b") == f"a{shown}b", repr(char)


def test_ordinary_text_is_unchanged() -> None:
    for text in ("", "fixtures/demo/x.json", "café ✓ 日本語 …", "C:\\data\\notes", "a\\b", "x\\"):
        assert visible(text) == text


def test_backslashes_that_could_read_as_an_escape_are_doubled() -> None:
    assert visible("\\x1b") == "\\\\x1b"  # the four characters, not an escape
    assert visible("\\u202e") == "\\\\u202e"
    assert visible("\\\\") == "\\\\\\"  # the first could start "\\", the last cannot
    assert visible("\\\x1b") == "\\\\\\x1b"  # a backslash, then ESC
    assert visible("\x1b") != visible("\\x1b")


@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_shown_text_holds_no_control_and_reads_back_exactly(text: str) -> None:
    shown = visible(text)
    assert not any(_dangerous(c) for c in shown)
    assert _read_back(shown) == text


@given(st.text(alphabet="\\xuU1b\x1b\u202e0a "))
def test_reads_back_exactly_around_backslashes(text: str) -> None:
    assert _read_back(visible(text)) == text


def test_every_escaped_character_is_one_python_calls_unprintable() -> None:
    """visible() returns printable text with no backslash as it is: that needs every
    character of ESCAPED to be unprintable for the running Python (checked for all of them),
    and the whole-string answer to equal the regular expression's on text that mixes them."""
    from sealverify._internal.reports.visible import ESCAPED

    pattern = re.compile(ESCAPED)
    escaped = [chr(c) for c in range(0x110000) if pattern.fullmatch(chr(c))]
    assert len(escaped) > 2000  # the C0/C1 controls, Cf, surrogates, noncharacters
    assert not [hex(ord(c)) for c in escaped if c.isprintable()]
    for char in escaped[::97]:
        text = f"why… {char} end"
        assert visible(text) != text, hex(ord(char))
