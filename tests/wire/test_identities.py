"""Byte rules and identity invariants: serde numbers, Lean compress, netstrings, properties."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.mcp.frame import FrameOptions, analyze_frame
from sealverify._internal.primitives import identities
from sealverify._internal.wire import leanjson, serdejson
from sealverify._internal.wire.framing import frame_of
from sealverify._internal.wire.netstring import encode_parts
from sealverify._internal.wire.strictjson import JsonNumber

# serde_json 1.0.151 / zmij 1.0.21 renderings, from zmij's own unit tests (tests/test.rs) and
# serde-rs/json src/de.rs semantics (u64/i64, -0 as f64, non-roundtrip f64 assembly).
SERDE = [
    ("1", "1"),
    ("-0", "-0.0"),
    ("-0.0", "-0.0"),
    ("1.0", "1.0"),
    ("1.50", "1.5"),
    ("1E+2", "100.0"),
    ("1e16", "1e+16"),
    ("1e15", "1000000000000000.0"),
    ("1e-5", "0.00001"),
    ("1e-7", "1e-7"),
    ("18446744073709551615", "18446744073709551615"),
    ("18446744073709551616", "1.8446744073709552e+19"),
    ("-9223372036854775808", "-9223372036854775808"),
    ("-9223372036854775809", "-9.223372036854776e+18"),
    ("544431068535091.6", "544431068535091.6"),
    ("9061488000000000.0", "9061488000000000.0"),
    ("3.439070283483335e+35", "3.439070283483335e+35"),
    ("5e-324", "5e-324"),
    ("1e-400", "0.0"),
    ("98.64334455318017", "98.64334455318016"),  # serde's non-roundtrip parse, one ULP off
]


@pytest.mark.parametrize(("lexeme", "text"), SERDE)
def test_serde_number_rendering(lexeme: str, text: str) -> None:
    assert serdejson.number_text(JsonNumber(lexeme)) == text


def _serde_integer(lexeme: str) -> int | float:
    """serde_json's value for integer syntax of at most 19 digits (src/de.rs, no overflow):
    u64 when not negative, i64 when a negative fits, else f64 (``-0`` is -0.0)."""
    value = int(lexeme)
    if not lexeme.startswith("-"):
        return value
    return value if 0 < -value <= 2**63 else -float(-value)


@settings(max_examples=500)
@given(
    st.integers(-(10**19) + 1, 10**19 - 1).map(str)
    | st.integers(0, 10**19 - 1).map(lambda i: f"-{i}")
    | st.sampled_from(["0", "-0", "9" * 19, "-" + "9" * 19, f"-{2**63}", f"-{2**63 + 1}"])
)
def test_serde_integers_parse_as_u64_i64_or_f64(lexeme: str) -> None:
    got = serdejson.parse_number(lexeme)
    expected = _serde_integer(lexeme)
    assert (type(got), repr(got)) == (type(expected), repr(expected)), lexeme


@pytest.mark.parametrize("lexeme", ["1e400", "-1e400", "1e9999999999", "1" + "0" * 400])
def test_serde_out_of_range_is_refused_not_guessed(lexeme: str) -> None:
    with pytest.raises(serdejson.NumberNotRepresentable):
        serdejson.number_text(JsonNumber(lexeme))


def test_exact_mode_refuses_a_spelling_serde_would_not_write() -> None:
    assert serdejson.compact([JsonNumber("1.5")], exact=True) == "[1.5]"
    with pytest.raises(serdejson.NumberNotRepresentable):
        serdejson.compact([JsonNumber("1.50")], exact=True)


def test_serde_strings_match_python_json_dumps() -> None:
    text = '\x00\x08\t\n\x0b\x0c\r\x1f\x7f/\u2028"\\é😀'
    assert serdejson.string_text(text) == json.dumps(text, ensure_ascii=False)


# Lean JsonNumber.toString (newest indexed Lean/Data/Json/Basic.lean; host #guard vectors).
LEAN = [
    ("1.0", "1"),
    ("1.50", "1.5"),
    ("1e3", "1000"),
    ("1E+2", "100"),
    ("-0", "0"),
    ("-0.0", "0"),
    ("-1.5", "-1.5"),
    ("1e-3", "0.001"),
    ("0.0000001", "0.0000001"),
    ("2.5e-10", "0.00000000025"),
    ("1e-20", "0.0000000001e-10"),
    ("0.00000000000", "0.e-1"),
    ("123456789012345678901234567890", "123456789012345678901234567890"),
]


@pytest.mark.parametrize(("lexeme", "text"), LEAN)
def test_lean_number_rendering(lexeme: str, text: str) -> None:
    assert leanjson.number_text(leanjson.lean_number(lexeme)) == text


def test_lean_refuses_monster_exponents_instead_of_expanding_them() -> None:
    with pytest.raises(ValueError):
        leanjson.lean_number("1e9999999999")


def test_lean_compress_sorts_by_scalar_and_escapes_c0_as_u00xx() -> None:
    one, two = JsonNumber("1"), JsonNumber("2")
    value = {"\U00010000": one, "\ufffe": two, "b": '\t\n\r\b\f"\\', "a": [JsonNumber("1.0")]}
    assert leanjson.compress(value) == (
        '{"a":[1],"b":"\\u0009\\n\\r\\u0008\\u000c\\"\\\\","\ufffe":2,"\U00010000":1}'
    )


def test_netstring_counts_unicode_scalars() -> None:
    assert encode_parts(["héllo", "😀", ""]) == "5:héllo1:😀0:"


def test_canonical_request_sorts_meta_and_keeps_argument_order() -> None:
    params = {
        "name": "t",
        "arguments": {"z": JsonNumber("1"), "a": JsonNumber("2")},
        "_meta": {"traceparent": "x", "example.com/k": {"b": JsonNumber("1.50"), "a": None}},
        "requestState": "s",
    }
    assert identities.canonical_request(params) == (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":'
        '{"z":1,"a":2},"_meta":{"example.com/k":{"a":null,"b":1.5},"traceparent":"x"},'
        '"requestState":"s"}}'
    )
    assert identities.legacy_canonical_request(params) == (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":'
        '{"z":1,"a":2}}}'
    )


def test_import_does_not_pull_in_the_cli_stack() -> None:
    code = (
        "import sys, sealverify, sealverify._internal.mcp.frame, "
        "sealverify._internal.primitives.identities;"
        "print(sorted(m for m in ('click','tabulate') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- properties --------------------------------------------------------------------------

_ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
# Member names seal can take unescaped: no C0, no quote, no backslash (escaped keys are refused).
_name = st.text(
    alphabet=st.characters(
        min_codepoint=0x20, blacklist_characters='"\\', blacklist_categories=("Cs",)
    ),
    max_size=5,
)
_json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**15), 10**15), st.text(max_size=8)
)
_json = st.recursive(
    _json_leaf,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(_name, children, max_size=3)
    ),
    max_leaves=8,
)
_key = st.from_regex(r"\A(com\.example/)?[a-z][a-z0-9]{0,6}\Z")


def _frame(meta: dict | None, arguments: dict, sep: str = "") -> bytes:
    params: dict = {"name": "tool", "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    seps = (", ", ": ") if sep else (",", ":")
    return json.dumps(message, separators=seps, ensure_ascii=False).encode() + b"\n"


def _ids(data: bytes, era: str = "2026-07-28") -> identities.Identities:
    result = analyze_frame(frame_of(data), FrameOptions(era=era))
    assert result.admissible, result.refusals
    assert result.identities is not None
    return result.identities


@settings(max_examples=60, deadline=None)
@given(key=_key, value=_json, other=_json, arguments=st.dictionaries(_name, _json))
def test_any_meta_change_changes_guard_target_and_v4(
    key: str, value: object, other: object, arguments: dict
) -> None:
    if value == other or key.startswith("io.") or key in ("baggage", "tracestate", "traceparent"):
        return
    if key == "progressToken":
        return
    first = _ids(_frame({**_ENVELOPE, key: value}, arguments))
    second = _ids(_frame({**_ENVELOPE, key: other}, arguments))
    without = _ids(_frame(dict(_ENVELOPE), arguments))
    assert first.guard_target != second.guard_target != without.guard_target
    assert first.effect_v4 != second.effect_v4 != without.effect_v4
    assert first.guard_target != without.guard_target
    assert first.effect_v3 == second.effect_v3 == without.effect_v3


@settings(max_examples=40, deadline=None)
@given(arguments=st.dictionaries(_name, _json, max_size=4))
def test_whitespace_changes_only_the_frame_digests(arguments: dict) -> None:
    compact = _frame(dict(_ENVELOPE), arguments)
    spaced = _frame(dict(_ENVELOPE), arguments, sep=" ")
    a = analyze_frame(frame_of(compact))
    b = analyze_frame(frame_of(spaced))
    assert a.identities == b.identities
    if compact != spaced:
        assert a.frame.exact_sha256 != b.frame.exact_sha256


@settings(max_examples=40, deadline=None)
@given(arguments=st.dictionaries(_name, _json, min_size=2, max_size=4))
def test_argument_member_order_is_signed_but_not_in_kernel_identities(arguments: dict) -> None:
    reordered = dict(reversed(list(arguments.items())))
    a = _ids(_frame(dict(_ENVELOPE), arguments))
    b = _ids(_frame(dict(_ENVELOPE), reordered))
    assert a.canonical_request != b.canonical_request
    assert a.args_hash != b.args_hash
    assert (a.guard_target, a.effect_v3, a.effect_v4) == (b.guard_target, b.effect_v3, b.effect_v4)


def test_absent_meta_and_empty_meta_are_different_identities() -> None:
    absent = _ids(_frame(None, {"q": 1}), era="legacy")
    empty = _ids(_frame({}, {"q": 1}), era="legacy")
    assert absent.guard_target != empty.guard_target
    assert absent.effect_v4 != empty.effect_v4
    assert absent.canonical_request != empty.canonical_request
    assert absent.legacy_canonical_request == empty.legacy_canonical_request
    assert absent.guard_target_host == empty.guard_target_host  # what seal-host binds today


@pytest.mark.parametrize(
    ("key", "first", "second"),
    [
        (
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
        ),
        ("tracestate", "congo=t61rcWkgMzE", "rojo=00f067aa0ba902b7"),
        ("baggage", "userId=alice", "userId=bob"),
        ("progressToken", "tok-1", 7),
        ("io.modelcontextprotocol/logLevel", "info", "debug"),
        (
            "io.modelcontextprotocol/clientInfo",
            {"name": "a", "version": "1"},
            {"name": "a", "version": "2"},
        ),
        ("io.modelcontextprotocol/clientCapabilities", {}, {"elicitation": {}}),
        ("io.modelcontextprotocol/protocolVersion", "2026-07-28", "2099-01-01"),
        ("io.modelcontextprotocol/experimental-hint", "x", "y"),
    ],
)
def test_every_reserved_key_change_changes_the_invocation_identity(
    key: str, first: object, second: object
) -> None:
    options = FrameOptions(supported_versions=frozenset({"2026-07-28", "2099-01-01"}))
    results = []
    for value in (first, second):
        meta = {**_ENVELOPE, key: value}
        result = analyze_frame(frame_of(_frame(meta, {"q": "x"})), options)
        assert result.admissible, result.refusals
        assert result.identities is not None
        results.append(result.identities)
    a, b = results
    assert a.guard_target != b.guard_target
    assert a.effect_v4 != b.effect_v4
    assert a.canonical_request != b.canonical_request
    assert a.guard_target_host == b.guard_target_host  # seal-host@099be66 binds no context


def test_pathological_numbers_table_of_docs_numbers_md() -> None:
    def call(number: str, era: str = "legacy"):
        line = (
            '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":'
            '{"n":' + number + "}}}\n"
        )
        return analyze_frame(frame_of(line.encode()), FrameOptions(era=era))

    for refused in ("1e9999999999", str(2**64 + 1)):
        result = call(refused)
        assert [r.code for r in result.refusals] == ["wire.number"]
        assert result.identities is None
    one, one_point_zero, minus_zero = call("1"), call("1.0"), call("-0.0")
    assert one.identities and one_point_zero.identities and minus_zero.identities
    assert one.identities.args_hash != one_point_zero.identities.args_hash
    assert one.identities.guard_target == one_point_zero.identities.guard_target
    assert one.identities.effect_v3 == one_point_zero.identities.effect_v3
    assert '"n":-0.0' in (minus_zero.identities.canonical_request or "")
    assert leanjson.compress({"n": JsonNumber(str(2**64 + 1))}) == f'{{"n":{2**64 + 1}}}'


def test_meta_numbers_take_the_hosts_two_renders_and_arguments_one() -> None:
    """seal-host (authorization_decision.rs at 099be66): the wire line is parsed, ``_meta`` is
    rendered by ``canonical_json``, parsed again, and the request rendered: ``_meta`` numbers
    are rendered twice, ``arguments`` numbers once. For these lexemes serde's text drifts on
    every round, so a third round would show."""

    def render(lexeme: str) -> str:  # one serde parse followed by one render
        return serdejson.number_text(JsonNumber(lexeme))

    for lexeme in ("2.2790121708605243e+274", "-8.697762175904393e+217"):
        once, twice = render(lexeme), render(render(lexeme))
        assert render(twice) != twice  # the trap is real: a third render differs
        line = identities.canonical_request(
            {
                "name": "t",
                "arguments": {"x": JsonNumber(lexeme)},
                "_meta": {"n": JsonNumber(lexeme)},
            }
        )
        assert f'"arguments":{{"x":{once}}}' in line
        assert f'"_meta":{{"n":{twice}}}' in line
