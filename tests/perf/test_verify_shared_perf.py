"""Issue 8: values derived once per receipt and shared among its checks are exact.

``bindings.Derivations`` hands every binding of a receipt the canonical line, compact
``kernel_config``, policy hash and Object A bytes the first of them worked out; each member
is compared with its direct computation, and the checks of every binding run with one shared
view (in every order) with those of the binding run on its own.

The receipt's view (``receipts/view.py``) decodes its frames and parses its request line once
for every check; what it hands the wording lint, the bindings and the re-derivation is
compared with each of them decoded and parsed afresh, on texts and frames that hit both the
canonical and the lenient reading.
"""

from __future__ import annotations

import base64
import binascii
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.primitives import identities, signatures
from sealverify._internal.receipts import bindings
from sealverify._internal.receipts.bindings import derived as bindings_derived
from sealverify._internal.receipts.view import read_view
from sealverify._internal.wire.framing import raw_line
from sealverify._internal.wire.strictjson import (
    DEFAULT_LIMITS,
    JsonError,
    JsonNumber,
    JsonValue,
    decode_utf8,
    display,
    parse_text,
)
from tests.helpers.bindings_perf import outcome, perf_documents

FRAMES = [
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
    """What the wording lint reads of a frame: its request's ``_meta`` names, parsed afresh."""
    if frame is None:
        return None
    try:
        message = parse_text(decode_utf8(raw_line(frame)))
    except JsonError:
        return None
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return frozenset(meta) if isinstance(meta, dict) else frozenset()


def _reference_frame(text: JsonValue) -> bytes | None:
    """The carried frame as standard base64 gives it, decoded afresh."""
    if not isinstance(text, str):
        return None
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def _reference_object_a(doc: dict[str, JsonValue]) -> tuple[bytes | None, str | None]:
    """Object A under the bindings' rules (members, encoding, canonical base64), afresh."""
    artifacts = doc.get("signed_artifacts")
    if not isinstance(artifacts, dict):
        return None, None
    if set(artifacts) not in (
        {"encoding", "object_a"},
        {"encoding", "object_a", "approval_statement"},
    ):
        return None, "signed_artifacts members must be encoding, object_a[, approval_statement]"
    if artifacts.get("encoding") != "base64" or not isinstance(artifacts.get("object_a"), str):
        return None, 'signed_artifacts.encoding must be "base64" and object_a a string'
    try:
        return signatures.b64_std_decode_canonical(str(artifacts["object_a"])), None
    except ValueError as exc:
        return None, f"signed_artifacts.object_a: {exc}"


def _doc(text: JsonValue) -> dict[str, JsonValue]:
    return {"signed_artifacts": {"encoding": "base64", "object_a": text}}


def _view_keys(frame: bytes) -> frozenset[str] | None:
    return read_view(_doc(base64.b64encode(frame).decode())).meta_keys


def test_meta_keys_equal_the_reference() -> None:
    for frame in FRAMES:
        assert _view_keys(frame) == _reference_keys(frame)
    assert _view_keys(FRAMES[1]) == frozenset({"a", "b", "ab"})
    assert _view_keys(FRAMES[0]) == frozenset()
    assert _view_keys(FRAMES[2]) is None
    assert read_view({}).meta_keys is None


def test_meta_keys_of_an_oversized_line_come_from_the_reference() -> None:
    # parse_bytes refuses a line over the document size limit; the wording lint reads it.
    frame = b'{"params":{"_meta":{"k":1}}}' + b" " * DEFAULT_LIMITS.max_document_bytes + b"\n"
    assert _view_keys(frame) == frozenset({"k"}) == _reference_keys(frame)


def test_meta_keys_of_a_non_canonical_text_are_read_from_its_lenient_decoding() -> None:
    frame = b'{"params":{"_meta":{"k":1}}}\n'
    text = base64.b64encode(frame).decode()
    assert text.endswith("=")
    spelled = text[:-2] + chr(ord(text[-2]) + 1) + "="  # non-zero trailing bits
    assert _reference_frame(spelled) == frame
    view = read_view(_doc(spelled))
    assert view.object_a is None and view.request_frame is None
    assert view.frames.object_a == frame and view.meta_keys == frozenset({"k"})


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=12))
def test_the_carried_frame_of_canonical_base64_is_the_lenient_decode(data: bytes) -> None:
    text = base64.b64encode(data).decode()
    view = read_view(_doc(text))
    assert view.frames.object_a == data == _reference_frame(text) == view.object_a


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="AQgw+/-_=8AB \n\té", max_size=12))
def test_the_view_equals_the_decoders_on_any_text(text: str) -> None:
    for doc in (_doc(text), {"signed_artifacts": {"object_a": text}}):
        view = read_view(doc)
        assert view.frames.object_a == _reference_frame(text)
        assert (view.object_a, view.object_a_error) == _reference_object_a(doc)
    release = read_view({"release_frame": {"base64": text}})
    assert release.frames.release == _reference_frame(text)
    try:
        assert release.release == signatures.b64_std_decode_canonical(text)
        assert release.release_error is None
    except ValueError as exc:
        assert release.release is None and release.release_error == str(exc)


def test_the_carried_frame_of_non_canonical_base64_keeps_the_lenient_answer() -> None:
    # Non-zero trailing bits: the canonical decoder refuses, the lenient one does not.
    assert read_view(_doc("QR==")).frames.object_a == b"A" == _reference_frame("QR==")
    assert read_view(_doc("QQ")).frames.object_a is None
    for doc in [{}, {"signed_artifacts": []}, _doc(None), _doc(True)]:
        assert read_view(doc).frames.object_a is None


# --- one Derivations per receipt --------------------------------------------------------------

_ALL = (*bindings.ALL_BINDINGS, *bindings.V3_BINDINGS)


def _refusing_docs() -> list[dict[str, JsonValue]]:
    """Receipts whose arguments, _meta or kernel_config hold a number serde refuses."""
    out = []
    for member in ("arguments", "_meta", "kernel_config"):
        doc = perf_documents()[1]
        holder = doc[member] if isinstance(doc.get(member), dict) else {}
        assert isinstance(holder, dict)
        holder["zz"] = JsonNumber("1e400")
        doc[member] = holder
        out.append(doc)
    doc = perf_documents()[1]
    doc["kernel_config"] = None
    out.append(doc)
    doc = perf_documents()[1]
    doc.pop("kernel_config")
    return [*out, doc]


def _corpus() -> list[dict[str, JsonValue]]:
    return perf_documents() + _refusing_docs()


def _line_reference(doc: dict[str, JsonValue]) -> tuple[str, object]:
    return outcome(identities.canonical_request, bindings_derived.request_params(doc))


def _config_reference(doc: dict[str, JsonValue]) -> tuple[str, object]:
    return outcome(bindings_derived.compact_exact, doc.get("kernel_config"))


def test_derived_members_equal_their_direct_computations() -> None:
    refused = {"line": 0, "config": 0}
    for doc in _corpus():
        derived = bindings.Derivations(doc)
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
            assert derived.object_a() == _reference_object_a(doc)
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
            derived = bindings.Derivations(doc)
            shared = {binding.__name__: binding(doc, derived) for binding in order}
            assert shared == alone
        assert display(doc) == before
