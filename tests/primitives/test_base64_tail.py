"""Canonical base64 is decided by strict decoding and the final characters, exactly.

The definition is the re-encode rule: a text is canonical when it is the encoder's output for
the bytes it decodes to. The decoders check only the last characters after binascii's strict
mode; these properties hold them to the definition and to the rule-by-rule references (same
bytes, same refusal messages) over every byte string's spelling, its near misses and any text.
"""

from __future__ import annotations

import base64
import binascii

from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.primitives import signatures

_STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_NEAR = _STD + "=-_ \n*\x00é"


def _std_definition(text: str) -> bytes | None:
    try:
        data = binascii.a2b_base64(text)  # lenient: any text, judged by the re-encoding
    except (binascii.Error, ValueError):
        return None
    return data if base64.b64encode(data).decode() == text else None


def _url_definition(text: str) -> bytes | None:
    if not text.isascii() or len(text) % 4 == 1:
        return None
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    return data if base64.urlsafe_b64encode(data).rstrip(b"=").decode() == text else None


def _outcome(decode: object, text: str) -> bytes | str:
    assert callable(decode)
    try:
        result = decode(text)
    except ValueError as exc:
        return "refused: " + str(exc)
    assert isinstance(result, bytes)
    return result


@st.composite
def _spellings(draw: st.DrawFn, url: bool) -> str:
    """An encoder's spelling of any bytes, maybe with one of its last characters changed."""
    data = draw(st.binary(max_size=40))
    text = base64.b64encode(data).decode()
    if url:
        text = text.rstrip("=").replace("+", "-").replace("/", "_")
    if text and draw(st.booleans()):
        index = len(text) - draw(st.integers(1, min(4, len(text))))
        char = draw(st.sampled_from(_NEAR))
        text = text[:index] + char + text[index + 1 :]
    if draw(st.integers(0, 7)) == 0:
        text += draw(st.sampled_from(["=", "==", "A", "AA=", "===="]))
    return text


_STD_TEXTS = _spellings(url=False) | st.text(alphabet=_NEAR, max_size=12) | st.text(max_size=12)
_URL_TEXTS = _spellings(url=True) | st.text(alphabet=_NEAR, max_size=12) | st.text(max_size=12)


@settings(max_examples=4000, derandomize=True)
@given(_STD_TEXTS)
def test_std_canonical_is_the_re_encode_rule(text: str) -> None:
    expected = _std_definition(text)
    outcome = _outcome(signatures.b64_std_decode_canonical, text)
    assert outcome == (expected if expected is not None else outcome)
    assert isinstance(outcome, bytes) is (expected is not None)
    assert outcome == _outcome(signatures._b64_std_decode_canonical_strict, text)


@settings(max_examples=4000, derandomize=True)
@given(_URL_TEXTS)
def test_url_nopad_is_the_re_encode_rule(text: str) -> None:
    expected = _url_definition(text)
    outcome = _outcome(signatures.b64url_nopad_decode, text)
    assert outcome == (expected if expected is not None else outcome)
    assert isinstance(outcome, bytes) is (expected is not None)
    assert outcome == _outcome(signatures._b64url_nopad_decode_strict, text)


def test_every_last_character_of_short_spellings() -> None:
    # Exhaustive over the final data character for every padding shape: only the characters
    # whose unused bits are zero pass, as the re-encode rule says.
    for prefix, pads in (("AAA", "="), ("AA", "=="), ("AAAA", "")):
        for char in _STD + "=":
            text = prefix[:-1] + char + pads if pads else prefix + char + "AAA"
            expected = _std_definition(text)
            outcome = _outcome(signatures.b64_std_decode_canonical, text)
            assert isinstance(outcome, bytes) is (expected is not None), text
            assert signatures._canonical_tail(text.encode()) or expected is None, text


def test_excess_padding_after_strict_decoding_is_refused() -> None:
    # binascii's strict mode accepts "AAAA====" (four data characters, then padding); the
    # encoder never writes it, and the tail test says so.
    assert binascii.a2b_base64("AAAA====", strict_mode=True) == b"\x00\x00\x00"
    assert not signatures._canonical_tail(b"AAAA====")
    assert _outcome(signatures.b64_std_decode_canonical, "AAAA====").startswith("refused")
