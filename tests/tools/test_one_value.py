"""Telling one JSON value from a stream of frames answers as the whole parse does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.tools.digests import one_value
from sealverify._internal.wire.strictjson import JsonError, JsonValue, parse_bytes

_PIECES = [b"{", b"}", b"[", b"]", b'"a"', b"1", b":", b",", b" ", b"\n", b"\r\n", b"\t",
           b'{"a":1}', b"[1,2]", b"null", b'"x\\n"', b"\xef\xbb\xbf", b"{}"]  # fmt: skip


def _whole(data: bytes) -> JsonValue | None:
    try:
        return parse_bytes(data)
    except JsonError:
        return None


@settings(max_examples=2000)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map(b"".join))
def test_one_value_is_the_whole_parse(data: bytes) -> None:
    assert one_value(data) == _whole(data)
