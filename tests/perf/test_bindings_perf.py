"""Issue 8 fast paths in the bindings and their byte rules equal the reference computations.

Each fast path keeps its reference (as the fallback or right here as the oracle) and is
compared with it on inputs that hit the fast path and the fallback: canonical and broken
base64, every byte value, keys across the BMP/astral boundary, lone surrogates, nesting past
orjson's limit, out-of-range numbers and numbers serde does not render idempotently.
"""

from __future__ import annotations

import base64
import functools
import json
import math

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit.mint import mint_many, parse_record

from sealverify._internal.primitives import identities, objectb, releaseframe, signatures
from sealverify._internal.receipts import bindings
from sealverify._internal.receipts.bindings import derived as bindings_derived
from sealverify._internal.receipts.bindings import releases as bindings_releases
from sealverify._internal.receipts.bindings import request as bindings_request
from sealverify._internal.receipts.bindings import signatures as bindings_signatures
from sealverify._internal.receipts.view import read_view
from sealverify._internal.results.model import Check, fail, info, passed
from sealverify._internal.wire import leanjson, serdejson
from sealverify._internal.wire.framing import raw_line
from sealverify._internal.wire.spelling import pointer as uncached_pointer
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonNumber,
    JsonValue,
    display,
    parse_bytes,
    parse_text,
)
from tests.helpers.bindings_perf import outcome, perf_documents

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
    fast = outcome(signatures.b64_std_decode_canonical, text)
    assert fast == outcome(signatures._b64_std_decode_canonical_strict, text)


@settings(max_examples=1500)
@given(text=_b64_texts(urlsafe=True))
def test_url_base64_fast_path_equals_the_rules(text: str) -> None:
    fast = outcome(signatures.b64url_nopad_decode, text)
    assert fast == outcome(signatures._b64url_nopad_decode_strict, text)


def test_base64_fast_paths_on_every_length_and_the_classic_traps() -> None:
    data = bytes(range(256)) * 2
    for n in range(0, 70):
        std, url = base64.b64encode(data[:n]).decode(), base64.urlsafe_b64encode(data[:n])
        assert signatures.b64_std_decode_canonical(std) == data[:n]
        assert signatures.b64url_nopad_decode(url.rstrip(b"=").decode()) == data[:n]
    # Lenient decoders skip junk or stop at padding; the re-encoding check must refuse them.
    for text in ["AA==AA==", "AA=A", "A===", "QQ", "QR==", "Q Q==", "QQ==\n", "+/8", "_-8="]:
        assert outcome(signatures.b64_std_decode_canonical, text) == outcome(
            signatures._b64_std_decode_canonical_strict, text
        )
    for text in ["QQ==", "Q", "QR", "Q+", "Q/", "Q Q", "QQ\n", "é", "\ud800", "AAAA=AA"]:
        assert outcome(signatures.b64url_nopad_decode, text) == outcome(
            signatures._b64url_nopad_decode_strict, text
        )


# --- Object B preimage --------------------------------------------------------------------


def _preimage_v2_reference(
    object_a: bytes,
    statement: bytes | None,
    object_b: bytes,
    release_status: str,
    operation_id: str,
    durability_class: str,
) -> bytes:
    """The preimage as whole blobs joined (the definition preimage_v2 follows)."""
    blob = objectb._blob_reference
    approval = b"\x02" if statement is None else b"\x03" + blob(statement)
    return b"".join(
        [
            b"seal.object-b/v2\x00",
            blob(object_a),
            approval,
            blob(object_b),
            bytes([objectb.RELEASE_TAGS[release_status]]),
            blob(operation_id.encode("utf-8")),
            bytes([objectb.DURABILITY_TAGS[durability_class]]),
        ]
    )


def test_blob_equals_the_byte_by_byte_definition_on_every_byte_value() -> None:
    every = bytes(range(256))
    for data in [b"", every, every[::-1], every * 33, b"\x00" * 7, b"\xff\x01"]:
        assert objectb.blob(data) == objectb._blob_reference(data)


@settings(max_examples=300)
@given(
    parts=st.tuples(st.binary(max_size=300), st.none() | st.binary(max_size=50), st.binary()),
    release=st.sampled_from(sorted(objectb.RELEASE_TAGS)),
    operation_id=st.text(max_size=10),
    durability=st.sampled_from(sorted(objectb.DURABILITY_TAGS)),
)
def test_preimage_v2_equals_joined_blobs(
    parts: tuple[bytes, bytes | None, bytes], release: str, operation_id: str, durability: str
) -> None:
    object_a, statement, object_b = parts
    args = (object_a, statement, object_b, release, operation_id, durability)
    assert outcome(objectb.preimage_v2, *args) == outcome(_preimage_v2_reference, *args)


def test_object_b_record_keeps_member_order_without_the_signature() -> None:
    for raw in mint_many(6, seed=b"perf-objectb"):
        doc = parse_record(raw)
        for domain in (objectb.OBJECT_B_V1, objectb.OBJECT_B_V2):
            record = {k: v for k, v in doc.items() if k != "signature"}
            object_b = serdejson.compact(record, exact=True).encode("utf-8")
            preimage, error = bindings_signatures._object_b_preimage(doc, domain)
            assert error == ""
            if domain == objectb.OBJECT_B_V1:
                assert preimage == objectb.preimage_v1(object_b)
            else:
                assert preimage is not None and object_b in preimage.replace(b"\x00", b"")


# --- serde compact: bytes and sorted keys -------------------------------------------------

# Keys on both sides of every ordering trap: ASCII vs Latin-1, BMP above the surrogates vs
# astral (UTF-16 order would put U+10000 before U+FFFF), and empty.
_KEYS = st.text(alphabet="aAz_~\x00\x7f\xe9\u00ff\u0100\ud7ff\ue000\uffff\U00010000\U0010ffff")
_LEXEMES = [
    "0",
    "-0",
    "1.0",
    "1.50",
    "1e400",
    "18446744073709551616",
    "2.2790121708605243e+274",  # serde renders it differently on each round trip
    "98.64334455318017",
]
_leaves = (
    st.none()
    | st.booleans()
    | st.text(alphabet='ab"\\\n\t\x01é\U0001f600', max_size=6)
    | st.sampled_from(_LEXEMES).map(JsonNumber)
    | st.integers(-(2**65), 2**65).map(lambda i: JsonNumber(str(i)))
)
_values: st.SearchStrategy[JsonValue] = st.recursive(
    _leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=25,
)


def _reference_sorted(value: JsonValue, exact: bool) -> str:
    return serdejson._reference(identities.sort_keys(value), exact, False)


@settings(max_examples=600)
@given(value=_values, exact=st.booleans())
def test_sorted_compact_equals_compacting_sort_keys(value: JsonValue, exact: bool) -> None:
    expected = outcome(_reference_sorted, value, exact)
    assert outcome(lambda: serdejson.compact(value, exact=exact, sort_keys=True)) == expected
    assert outcome(lambda: serdejson._reference(value, exact, True)) == expected


@settings(max_examples=300)
@given(value=_values, exact=st.booleans(), sort_keys=st.booleans())
def test_compact_bytes_is_compact_encoded(value: JsonValue, exact: bool, sort_keys: bool) -> None:
    def encoded() -> bytes:
        return serdejson.compact(value, exact=exact, sort_keys=sort_keys).encode("utf-8")

    assert outcome(lambda: serdejson.compact_bytes(value, exact=exact, sort_keys=sort_keys)) == (
        outcome(encoded)
    )


def test_sorted_compact_fallbacks_lone_surrogates_and_deep_nesting() -> None:
    # orjson refuses both; the reference writer answers, sorted the same way.
    lone = {"b": "\ud800", "a": [{"z": 1, "y": "\udfff"}]}
    deep: JsonValue = {"k": "v"}
    for _ in range(300):
        deep = {"z": deep, "a": [JsonNumber("1.0")]}
    for value in (lone, deep):
        assert serdejson.compact(value, sort_keys=True) == _reference_sorted(value, False)
    with pytest.raises(UnicodeEncodeError):
        serdejson.compact_bytes(lone)


# --- canonical_request ----------------------------------------------------------------------

_params = st.fixed_dictionaries(
    {
        "name": st.text(alphabet='ab/é\n"', max_size=5),
        "arguments": st.dictionaries(_KEYS, _values, max_size=4),
    },
    optional={"_meta": _values, "requestState": _values, "inputResponses": _values},
)


def _reference_request(params: dict[str, JsonValue]) -> str:
    # The definition, written by the serde writer's own definition (not orjson).
    inner: dict[str, JsonValue] = {"name": params["name"], "arguments": params["arguments"]}
    if "_meta" in params:
        inner["_meta"] = identities.sort_keys(params["_meta"], renumber=True)
    for member in ("requestState", "inputResponses"):
        if member in params:
            inner[member] = params[member]
    request: dict[str, JsonValue] = {
        "jsonrpc": "2.0",
        "id": JsonNumber("1"),
        "method": "tools/call",
        "params": inner,
    }
    return serdejson._reference(request, False, False)


@settings(max_examples=600)
@given(params=_params)
def test_canonical_request_equals_the_built_request(params: dict[str, JsonValue]) -> None:
    assert outcome(identities.canonical_request, params) == outcome(_reference_request, params)


def test_canonical_request_renders_meta_numbers_exactly_as_the_reference() -> None:
    # serde's text for these is not a fixed point: the number of render-and-reparse rounds
    # shows in the output, so the fast path must do exactly as many as the reference.
    drifting = ["2.2790121708605243e+274", "-8.697762175904393e+217", "3.068186913711019e+72"]
    for lexeme in drifting:
        texts = [lexeme]
        for _ in range(3):
            texts.append(serdejson.number_text(JsonNumber(texts[-1])))
        assert len(set(texts[1:])) > 1  # the trap is real
        params: dict[str, JsonValue] = {
            "name": "t",
            "arguments": {"x": JsonNumber(lexeme)},
            "_meta": {"b": JsonNumber(lexeme), "a": [JsonNumber(lexeme)]},
        }
        assert identities.canonical_request(params) == _reference_request(params)
    bad: dict[str, JsonValue] = {
        "name": "t",
        "arguments": {"x": JsonNumber("1e400")},
        "_meta": {"z": JsonNumber("-1e999"), "a": JsonNumber("1e401")},
    }
    # Parts orjson refuses take the reference writer; the line is still the built request's.
    deep: JsonValue = [JsonNumber("1.0")]
    for _ in range(300):
        deep = {"z": deep, "a": "\t"}
    for odd in ("\ud800", deep):
        for member in ("arguments", "_meta", "requestState"):
            params = {
                "name": "t",
                "arguments": {"x": JsonNumber("1.50")},
                "_meta": {"b": JsonNumber("1")},
            }
            params[member] = {"y": odd, "x": JsonNumber("2.2790121708605243e+274")}
            assert identities.canonical_request(params) == _reference_request(params)
    # The first refusal is the reference's: _meta (sorted) before arguments.
    assert outcome(identities.canonical_request, bad) == outcome(_reference_request, bad)
    assert "1e401" in str(outcome(identities.canonical_request, bad)[1])


def _second_render_refusal(lexeme: str) -> str | None:
    """None unless serde accepts ``lexeme`` and then refuses the text it wrote for it."""
    try:
        first = serdejson.number_text(JsonNumber(lexeme))
    except serdejson.NumberNotRepresentable:
        return None
    try:
        serdejson.number_text(JsonNumber(first))
    except serdejson.NumberNotRepresentable as exc:
        return f"{lexeme} -> {first}: {exc}"
    return None


def test_a_second_render_never_refuses() -> None:
    # canonical_request writes _meta (both renders) before arguments; the host refuses at the
    # first render of _meta, then arguments, then the second render of _meta. The orders agree
    # because a text serde wrote always parses again: checked at the top of the range, where
    # serde's assembly (not correctly rounded) could overflow, on both signs and both spellings.
    largest = float.fromhex("0x1.fffffffffffffp+1023")
    lexemes: list[str] = []
    value = largest
    for _ in range(3000):
        lexemes += [repr(value), f"{value:.17e}", str(int(value))]
        value = math.nextafter(value, 0.0)
    lexemes += ["1.7976931348623158e308", "1.797693134862316e308", "18446744073709551616"]
    refused = [
        r
        for lex in lexemes
        for r in (_second_render_refusal(lex), _second_render_refusal("-" + lex))
        if r is not None
    ]
    assert refused == []


@settings(max_examples=600)
@given(number=st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(2**70), 2**70))
def test_a_second_render_never_refuses_any_number(number: float | int) -> None:
    for lexeme in {repr(number), str(number), f"{number:.17e}"}:
        assert _second_render_refusal(lexeme) is None


# --- bindings: caches change no check --------------------------------------------------------


_ALL = (*bindings.ALL_BINDINGS, *bindings.V3_BINDINGS)
_CACHES = (
    bindings_derived.pointer,
    bindings_signatures._cached_payload_facts,
)


def _clear() -> None:
    for cache in _CACHES:
        cache.cache_clear()


def test_every_binding_gives_the_same_checks_with_cold_and_warm_caches() -> None:
    docs = perf_documents()
    assert len(docs) > 120
    _clear()
    warm = [[binding(doc) for binding in _ALL] for doc in docs]
    for doc, expected in zip(docs, warm, strict=True):
        cold = []
        for binding in _ALL:
            _clear()
            cold.append(binding(doc))
        assert cold == expected


def test_the_shared_request_parse_is_left_unchanged_by_every_binding() -> None:
    """Every binding reads the view's one parse of the request line; none may change it."""
    shared = 0
    for doc in perf_documents():
        view = read_view(doc)
        derived = bindings.Derivations(doc, view)
        for binding in _ALL:
            binding(doc, derived)
        if view.request_frame is None:
            continue
        fresh = outcome(parse_bytes, raw_line(view.request_frame))
        if fresh[0] == "ok":
            shared += 1
            assert view.request == fresh[1] and display(view.request) == display(fresh[1])
        else:
            assert isinstance(view.request, JsonError)
            assert fresh == ("raise", (type(view.request), str(view.request)))
    assert shared > 50


def test_splice_with_a_cached_parser_is_the_plain_splice() -> None:
    cached = functools.lru_cache(maxsize=4)(parse_bytes)
    for frame in [b'{"a":1}\r\n', b"{ }\n", b'{"a":1} ', b'{"operation_id":"y"}\n', b"[1]\n"]:
        for _ in range(2):  # cold, then from the cache
            assert outcome(releaseframe.splice_operation_id, frame, "x") == outcome(
                lambda f: releaseframe.splice_operation_id(f, "x", parse=cached), frame
            )


def test_cached_pointer_is_the_pointer_and_keeps_types_apart() -> None:
    bindings_derived.pointer.cache_clear()
    for parts in [("a/b", "c~d"), (1,), (True,), ("1",), ("signed_config", "payload")]:
        assert bindings_derived.pointer(*parts) == uncached_pointer(*parts)
    assert bindings_derived.pointer(1) == "/1" and bindings_derived.pointer(True) == "/True"


def _reference_config_checks(doc: dict[str, JsonValue]) -> list[Check]:
    """config_binding's payload checks as written before the per-payload cache."""
    config = doc["signed_config"]
    assert isinstance(config, dict)
    payload = str(config["payload"])
    where = uncached_pointer("signed_config", "payload")
    try:
        parsed = parse_text(payload)
        self_compact = serdejson.compact(parsed, exact=True)
    except JsonError as exc:
        return [fail("binding.config-self-compact", f"payload is not strict JSON: {exc}", where)]
    except serdejson.NumberNotRepresentable as exc:
        reason = f"{bindings.CANNOT_RECONSTRUCT}: {exc}"
        return [fail("binding.config-self-compact", reason, where)]
    epoch = parsed.get("epoch") if isinstance(parsed, dict) else None
    reason = f"payload epoch {epoch!s}: freshness is reported, rollback is not enforced"
    checks = [info("config.epoch", reason, where)]
    if self_compact == payload:
        checks.append(
            passed("binding.config-self-compact", "payload is its own compact rendering", where)
        )
    else:
        reason = "payload is not its own compact rendering"
        checks.append(fail("binding.config-self-compact", reason, where))
    return checks


@pytest.mark.parametrize(
    "payload",
    [
        '{"epoch":1,"safety":{}}',
        '{"epoch": 1}',
        '{"epoch":1.50}',
        '{"epoch":1e400}',
        '{"epoch":1,"epoch":2}',
        '{"epoch":"\\ud800"}',
        "[1,2]",
        '{"epoch":{"b":[1,{}]}}',
        "",
        "{" * 80 + "}" * 80,
    ],
)
def test_cached_payload_checks_equal_the_reference(payload: str) -> None:
    doc = parse_record(next(mint_many(1, seed=b"perf-payload")))
    config = doc["signed_config"]
    assert isinstance(config, dict)
    config["payload"] = payload
    bindings_signatures._cached_payload_facts.cache_clear()
    for _ in range(2):  # cold, then from the cache
        checks = [c for c in bindings.config_binding(doc) if c.id != "binding.config-payload"]
        assert checks == _reference_config_checks(doc)


def test_huge_payloads_are_not_cached() -> None:
    bindings_signatures._cached_payload_facts.cache_clear()
    payload = '{"epoch":1,"pad":"' + "x" * bindings_signatures._CACHED_PAYLOAD_CHARS + '"}'
    assert bindings_signatures._payload_facts(payload) == (None, "1", True)
    assert bindings_signatures._cached_payload_facts.cache_info().currsize == 0


# --- Lean compress --------------------------------------------------------------------------


def test_orjson_strings_are_lean_strings_but_for_tab_backspace_formfeed() -> None:
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    for start in range(0, len(chars), 4096):
        text = "".join(chars[start : start + 4096])
        fast = orjson.dumps(text).decode()
        lean = leanjson.string_text(text)
        for char in "\b\t\f":
            fast = fast.replace(json.dumps(char)[1:-1], f"\\u{ord(char):04x}")
        assert fast == lean


_lean_leaves = (
    st.none()
    | st.booleans()
    | st.text(alphabet='ab\\"\t\b\f\n\r\x01\x7fé\U0001f600tbf', max_size=6)
    | st.sampled_from(["0", "-0", "1.0", "1e-7", "1e1234567", "12345678901234567890e-30"]).map(
        JsonNumber
    )
)
_lean_values: st.SearchStrategy[JsonValue] = st.recursive(
    _lean_leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=25,
)


@settings(max_examples=800)
@given(value=_lean_values)
def test_lean_compress_equals_the_reference_printer(value: JsonValue) -> None:
    assert outcome(leanjson.compress, value) == outcome(leanjson.print_value, value)


def test_lean_compress_fallbacks() -> None:
    deep: JsonValue = {"k": "v"}
    for _ in range(300):
        deep = {"z": deep, "a": [JsonNumber("1.0")]}
    for value in [deep, {"b": "\ud800"}, {"t": "a\tb"}, {"s": "back\\slash-t"}, "\\f\f"]:
        assert leanjson.compress(value) == leanjson.print_value(value)
    assert leanjson.compress({"x": "\t"}) == '{"x":"\\u0009"}'


# --- parses the bindings skip ---------------------------------------------------------------


def _doc_of(params: dict[str, JsonValue]) -> dict[str, JsonValue]:
    doc: dict[str, JsonValue] = {"tool": params["name"], "arguments": params["arguments"]}
    doc.update({k: v for k, v in params.items() if k not in ("name", "arguments")})
    return doc


def _line_texts(doc: dict[str, JsonValue]) -> list[str]:
    """The derived line (fast path) and texts that are almost it (the parse decides)."""
    line = bindings_request._derived_line(doc)
    if line is None:
        return []
    return [line, line + " ", line.replace('"params":{', '"params":{"_meta":1,', 1), line[:-1]]


@settings(max_examples=500)
@given(params=_params)
def test_own_canonical_line_binds_meta_exactly_as_its_parse_says(
    params: dict[str, JsonValue],
) -> None:
    doc = _doc_of(params)
    for text in _line_texts(doc):
        assert bindings_request._line_binds_meta(
            doc, text
        ) == bindings_request._parsed_line_binds_meta(text)


def test_own_canonical_line_near_the_limits() -> None:
    deep: JsonValue = "x"
    for _ in range(62):
        deep = [deep]
    cases: list[JsonValue] = [
        deep,  # 62 + 2 levels: at the depth limit; one more and the parse refuses it
        [deep],
        {"s": "[[[[{{{{" * 20},  # brackets in strings only push the bound, never the depth
        {"s": "\\ud800 is spelled out, not a surrogate"},
        {"s": "x" * 300_000},  # past the length bound: the parse decides
        {"s": "\U0001f600" * 262_145},  # a string past the byte limit: the parse refuses
    ]
    for meta in cases:
        doc: dict[str, JsonValue] = {"tool": "t", "arguments": {}, "_meta": meta}
        for text in _line_texts(doc):
            assert bindings_request._line_binds_meta(
                doc, text
            ) == bindings_request._parsed_line_binds_meta(text)


def test_minted_lines_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = [parse_record(raw) for raw in mint_many(6, seed=b"perf-legacy")]
    expected = [bindings.legacy_meta(doc) for doc in docs]

    def refuse(text: str) -> bool | None:
        raise AssertionError("parsed a line the verifier derived itself")

    monkeypatch.setattr(bindings_request, "_parsed_line_binds_meta", refuse)
    assert [bindings.legacy_meta(doc) for doc in docs] == expected


_OPERATION_IDS = st.text(alphabet='ab"\\\x00\x1f\x7f\u2028é\U0001f600 {}', max_size=8)
_OBJECT_A = [
    b'{"jsonrpc":"2.0","id":1,"params":{"name":"t","arguments":{"x":[1,2.50]}}}\n',
    b'{"a":1}\r\n',
    b'{"a":1} \t\n',
    b'{"a":1}\r',
    b'{"a":1}\r\r\n',
    b'{"a":"\\u006fperation_id"}\n',
    b'{"operati\\u006fn_id":"x"}\n',  # the member already there, escaped
    b"{ }\n",
    b"{}",
    b'{"a":1}',
    b"[1]\n",
    b'{"a":1,"a":2}\n',
    b"\xef\xbb\xbf{}\n",
]


@settings(max_examples=600)
@given(
    object_a=st.sampled_from(_OBJECT_A)
    | st.dictionaries(_KEYS, _values, max_size=4).map(lambda v: display(v).encode() + b"\n"),
    operation_id=_OPERATION_IDS,
)
def test_spliced_release_operation_id_is_what_its_parse_says(
    object_a: bytes, operation_id: str
) -> None:
    doc: dict[str, JsonValue] = {"operation_id": operation_id}
    try:
        spliced: bytes | None = releaseframe.splice_operation_id(object_a, operation_id)
    except (ValueError, JsonError):
        spliced = None
    for frame in {spliced or b"", object_a, (spliced or b"") + b" "}:
        expected = bindings_releases._parsed_operation_id(frame)
        assert bindings_releases._release_operation_id(doc, frame, spliced) == expected


def test_minted_release_frames_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = [parse_record(raw) for raw in mint_many(9, seed=b"perf-release")]
    expected = [bindings.release(doc) for doc in docs]
    assert sum(1 for checks in expected if checks) >= 3  # approved and explicit ALLOWs

    def refuse(frame: bytes) -> JsonValue:
        raise AssertionError("parsed a release frame that is the spliced Object A")

    monkeypatch.setattr(bindings_releases, "_parsed_operation_id", refuse)
    assert [bindings.release(doc) for doc in docs] == expected
