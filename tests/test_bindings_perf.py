"""Issue 8 fast paths in the bindings and their byte rules equal the reference computations.

Each fast path keeps its reference (as the fallback or right here as the oracle) and is
compared with it on inputs that hit the fast path and the fallback: canonical and broken
base64, every byte value, keys across the BMP/astral boundary, lone surrogates, nesting past
orjson's limit, out-of-range numbers and numbers serde does not render idempotently.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify import (
    signatures,
)


def _outcome(function: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    """What a call gives: ("ok", value) or ("raise", exception type and message)."""
    try:
        return "ok", function(*args)
    except (ValueError, UnicodeError) as exc:  # NumberNotRepresentable, JsonError included
        return "raise", (type(exc), str(exc))


# --- base64 -------------------------------------------------------------------------------

_B64_JUNK = st.text(alphabet="AQgw+/-_=8AB \n\té", max_size=12)


def _b64_texts(urlsafe: bool) -> st.SearchStrategy[str]:
    """Canonical spellings (fast path), their one-character mutants and junk (fallback)."""

    def spell(data: bytes) -> str:
        if urlsafe:
            return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
        return base64.b64encode(data).decode()

    canonical = st.binary(max_size=40).map(spell)
    mutated = st.tuples(canonical, st.integers(0, 60), st.sampled_from("AB+/-_= \n.é")).map(
        lambda t: t[0][: t[1]] + t[2] + t[0][t[1] + 1 :]
    )
    return canonical | mutated | _B64_JUNK | st.text(max_size=8)


@settings(max_examples=1500)
@given(text=_b64_texts(urlsafe=False))
def test_std_base64_fast_path_equals_the_rules(text: str) -> None:
    fast = _outcome(signatures.b64_std_decode_canonical, text)
    assert fast == _outcome(signatures._b64_std_decode_canonical_strict, text)


@settings(max_examples=1500)
@given(text=_b64_texts(urlsafe=True))
def test_url_base64_fast_path_equals_the_rules(text: str) -> None:
    fast = _outcome(signatures.b64url_nopad_decode, text)
    assert fast == _outcome(signatures._b64url_nopad_decode_strict, text)


def test_base64_fast_paths_on_every_length_and_the_classic_traps() -> None:
    data = bytes(range(256)) * 2
    for n in range(0, 70):
        std, url = base64.b64encode(data[:n]).decode(), base64.urlsafe_b64encode(data[:n])
        assert signatures.b64_std_decode_canonical(std) == data[:n]
        assert signatures.b64url_nopad_decode(url.rstrip(b"=").decode()) == data[:n]
    # Lenient decoders skip junk or stop at padding; the re-encoding check must refuse them.
    for text in ["AA==AA==", "AA=A", "A===", "QQ", "QR==", "Q Q==", "QQ==\n", "+/8", "_-8="]:
        assert _outcome(signatures.b64_std_decode_canonical, text) == _outcome(
            signatures._b64_std_decode_canonical_strict, text
        )
    for text in ["QQ==", "Q", "QR", "Q+", "Q/", "Q Q", "QQ\n", "é", "\ud800", "AAAA=AA"]:
        assert _outcome(signatures.b64url_nopad_decode, text) == _outcome(
            signatures._b64url_nopad_decode_strict, text
        )
