"""The field rules' hex digest tests decide exactly the HEX64 / HEX128 regex languages."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.receipts import families
from sealverify._internal.wire.spelling import HEX64, HEX128

# Texts near the language: lowercase hex with one character changed (any code point, an
# uppercase digit, a surrogate), lengths around 64 and 128, and arbitrary text.
_HEX = st.text(alphabet="0123456789abcdef", min_size=60, max_size=132)


@st.composite
def _near_hex(draw: st.DrawFn) -> str:
    text = draw(_HEX)
    if text and draw(st.booleans()):
        index = draw(st.integers(0, len(text) - 1))
        char = draw(st.characters(codec=None) | st.sampled_from("ABCDEFgG \n\x00/:`"))
        text = text[:index] + char + text[index + 1 :]
    return text


_TEXTS = _near_hex() | st.text() | st.text(alphabet="0123456789abcdefABCDEF", min_size=64)


@settings(max_examples=3000, derandomize=True)
@given(_TEXTS)
def test_hex64_is_the_regex(text: str) -> None:
    assert families.hex64(text) is (HEX64.fullmatch(text) is not None)


@settings(max_examples=3000, derandomize=True)
@given(_TEXTS)
def test_hex128_is_the_regex(text: str) -> None:
    assert families._hex128(text) is (HEX128.fullmatch(text) is not None)


def test_hex_digest_edges() -> None:
    digest = "0123456789abcdef" * 4
    assert families.hex64(digest)
    assert families._hex128(digest * 2)
    for text in (digest[:-1], digest + "0", digest.upper(), digest[:-1] + "\ud800", ""):
        assert not families.hex64(text)
    # A digit of another script is a decimal digit to str methods, never a hex digit here.
    assert not families.hex64(digest[:-1] + "\uff10")
    for value in (None, 1, [digest], {"d": digest}, b"0" * 64):
        assert not families.hex64(value)  # type: ignore[arg-type]
