"""Issue 8: verify reuses the bindings' decode and parse of Object A, exactly.

``verify._frame_bytes`` and ``verify._frame_meta_keys`` take the bindings' cached canonical
decode and strict parse first and fall back to their own lenient decode and plain parse. Each
is compared with that reference on texts and frames that hit both branches, with cold and
warm caches.
"""

from __future__ import annotations

import base64

from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify import bindings, verify
from sealverify.framing import raw_line
from sealverify.strictjson import DEFAULT_LIMITS, JsonValue

_FRAMES = [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}\r\n',
    b'{"params":{"name":"t","arguments":{},"_meta":{"b":1,"a":{},"\\u0061b":2}}}\n',
    b'{"params":{"_meta":{"k":1,"k":2}}}\n',  # duplicate: refused by both
    b'{"params":{"_meta":{"\\ud800":1}}}\n',  # lone surrogate: refused by both
    b'{"params":{"_meta":[1]}}\n',
    b'{"params":{"_meta":{"x":1}}} trailing\n',
    b'{"params":' * 70 + b"{}" + b"}" * 70 + b"\n",  # past the depth limit
    b'{"params":"nope"}\n',
    b"\xef\xbb\xbf{}\n",
    b"\xff\n",
    b"[1]\n",
    b"{}",
    b"",
]


def _reference_keys(frame: bytes | None) -> frozenset[str] | None:
    return None if frame is None else verify._frame_meta_keys_reference(raw_line(frame))


def _doc(text: JsonValue) -> dict[str, JsonValue]:
    return {"signed_artifacts": {"encoding": "base64", "object_a": text}}


def test_meta_keys_equal_the_reference_cold_and_warm() -> None:
    for frame in [*_FRAMES, None]:
        bindings._parse_frame.cache_clear()
        cold = verify._frame_meta_keys(frame)
        warm = verify._frame_meta_keys(frame)
        assert cold == warm == _reference_keys(frame)
    assert verify._frame_meta_keys(_FRAMES[1]) == frozenset({"a", "b", "ab"})
    assert verify._frame_meta_keys(_FRAMES[0]) == frozenset()
    assert verify._frame_meta_keys(_FRAMES[2]) is None


def test_meta_keys_of_an_oversized_line_come_from_the_reference() -> None:
    # parse_bytes refuses a line over the document size limit; the reference parses it.
    frame = b'{"params":{"_meta":{"k":1}}}' + b" " * DEFAULT_LIMITS.max_document_bytes + b"\n"
    assert verify._frame_meta_keys(frame) == frozenset({"k"}) == _reference_keys(frame)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=12))
def test_frame_bytes_of_canonical_base64_is_the_lenient_decode(data: bytes) -> None:
    text = base64.b64encode(data).decode()
    assert verify._frame_bytes(_doc(text)) == data == verify._frame_bytes_reference(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="AQgw+/-_=8AB \n\té", max_size=12))
def test_frame_bytes_equal_the_lenient_decode_on_any_text(text: str) -> None:
    bindings._b64_decode.cache_clear()
    assert verify._frame_bytes(_doc(text)) == verify._frame_bytes_reference(text)
    assert verify._frame_bytes(_doc(text)) == verify._frame_bytes_reference(text)  # warm


def test_frame_bytes_of_non_canonical_base64_keeps_the_lenient_answer() -> None:
    # Non-zero trailing bits: the canonical decoder refuses, the lenient one does not.
    assert verify._frame_bytes(_doc("QR==")) == b"A" == verify._frame_bytes_reference("QR==")
    assert verify._frame_bytes(_doc("QQ")) is None
    for doc in [{}, {"signed_artifacts": []}, _doc(None), _doc(True)]:
        assert verify._frame_bytes(doc) is None
