"""Issue 8: values derived once per receipt and shared among its checks are exact.

``bindings.Derived`` hands every binding of a receipt the canonical line, compact
``kernel_config``, policy hash and Object A bytes the first of them worked out; each member
is compared with its direct computation, and the checks of every binding run with one shared
view (in every order) with those of the binding run on its own.

``verify._frame_bytes`` and ``verify._frame_meta_keys`` take the bindings' cached canonical
decode and strict parse first and fall back to their own lenient decode and plain parse. Each
is compared with that reference on texts and frames that hit both branches, with cold and
warm caches.
"""

from __future__ import annotations

import base64
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify.receipts import bindings, verify
from sealverify.receipts.bindings import derived as bindings_derived
from sealverify.seal import identities
from sealverify.wire.framing import raw_line
from sealverify.wire.strictjson import DEFAULT_LIMITS, JsonNumber, JsonValue, display
from tests.test_bindings_perf import _docs, _outcome

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
        bindings.parse_frame_cached.cache_clear()
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
    bindings.b64_decode_cached.cache_clear()
    assert verify._frame_bytes(_doc(text)) == verify._frame_bytes_reference(text)
    assert verify._frame_bytes(_doc(text)) == verify._frame_bytes_reference(text)  # warm


def test_frame_bytes_of_non_canonical_base64_keeps_the_lenient_answer() -> None:
    # Non-zero trailing bits: the canonical decoder refuses, the lenient one does not.
    assert verify._frame_bytes(_doc("QR==")) == b"A" == verify._frame_bytes_reference("QR==")
    assert verify._frame_bytes(_doc("QQ")) is None
    for doc in [{}, {"signed_artifacts": []}, _doc(None), _doc(True)]:
        assert verify._frame_bytes(doc) is None


# --- one Derived per receipt --------------------------------------------------------------

_ALL = (*bindings.ALL_BINDINGS, *bindings.V3_BINDINGS)


def _refusing_docs() -> list[dict[str, JsonValue]]:
    """Receipts whose arguments, _meta or kernel_config hold a number serde refuses."""
    out = []
    for member in ("arguments", "_meta", "kernel_config"):
        doc = _docs()[1]
        holder = doc[member] if isinstance(doc.get(member), dict) else {}
        assert isinstance(holder, dict)
        holder["zz"] = JsonNumber("1e400")
        doc[member] = holder
        out.append(doc)
    doc = _docs()[1]
    doc["kernel_config"] = None
    out.append(doc)
    doc = _docs()[1]
    doc.pop("kernel_config")
    return [*out, doc]


def _corpus() -> list[dict[str, JsonValue]]:
    return _docs() + _refusing_docs()


def _line_reference(doc: dict[str, JsonValue]) -> tuple[str, object]:
    return _outcome(identities.canonical_request, bindings_derived.request_params(doc))


def _config_reference(doc: dict[str, JsonValue]) -> tuple[str, object]:
    return _outcome(bindings_derived.compact_exact, doc.get("kernel_config"))


def test_derived_members_equal_their_direct_computations() -> None:
    refused = {"line": 0, "config": 0}
    for doc in _corpus():
        derived = bindings.Derived(doc)
        for _ in range(2):  # computed, then remembered
            line, error = derived.canonical_line()
            status, value = _line_reference(doc)
            if status == "ok":
                assert (line, error) == (value, None)
            else:
                refused["line"] += 1
                assert line is None and (type(error), str(error)) == value
            text, why = derived.config_text()
            status, value = _config_reference(doc)
            if status == "ok":
                assert (text, why) == (value, "")
                expected = (
                    bindings_derived.sha256_of(value)
                    if doc.get("kernel_config") is not None
                    else None
                )
                assert derived.policy_hash()[0] == expected
            else:
                refused["config"] += 1
                assert text is None and why == f"{bindings.CANNOT_RECONSTRUCT}: {value[1]}"
                assert derived.policy_hash() == (None, why)
            assert derived.object_a() == bindings_derived.object_a_bytes(doc)
    assert refused["line"] > 0 and refused["config"] > 0


def test_bindings_sharing_one_derived_give_each_bindings_own_checks() -> None:
    shuffle = random.Random(8).shuffle
    for doc in _corpus():
        before = display(doc)
        alone = {binding.__name__: binding(doc) for binding in _ALL}
        for attempt in range(3):
            order = list(_ALL)
            if attempt:
                shuffle(order)  # whichever binding comes first computes the shared values
            derived = bindings.Derived(doc)
            shared = {binding.__name__: binding(doc, derived) for binding in order}
            assert shared == alone
        assert display(doc) == before
