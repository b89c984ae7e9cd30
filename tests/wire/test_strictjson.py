"""Strict parsing: JSONTestSuite, hostile input, limits, member spans."""

from __future__ import annotations

import json
import re

import pytest

from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonNumber,
    Limits,
    display,
    member_spans,
    parse_bytes,
)
from tests.conftest import ROOT, shared_path

# Duplicate member names are valid RFC 8259 grammar ("SHOULD be unique") but ambiguous;
# sealverify refuses them at every depth (docs/json-strictness.md). These two y_ files are
# therefore the documented exceptions.
REFUSED_Y = {"y_object_duplicated_key.json", "y_object_duplicated_key_and_value.json"}


def _suite() -> list:
    folder = shared_path("vectors", "JSONTestSuite", "test_parsing")
    return sorted(folder.iterdir())


def _documented_i_decisions() -> dict[str, str]:
    text = (ROOT / "docs" / "json-strictness.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\| `(i_[^`]+)` \| (accept|refuse) \|", text, re.MULTILINE))


def test_json_test_suite_y_and_n() -> None:
    checked = 0
    for path in _suite():
        data = path.read_bytes()
        if path.name.startswith("y_"):
            if path.name in REFUSED_Y:
                with pytest.raises(JsonError) as info:
                    parse_bytes(data)
                assert info.value.code == "json.duplicate-member"
            else:
                parse_bytes(data)
            checked += 1
        elif path.name.startswith("n_"):
            with pytest.raises(JsonError):
                parse_bytes(data)
            checked += 1
    assert checked > 250


def test_json_test_suite_i_cases_match_documented_decisions() -> None:
    documented = _documented_i_decisions()
    seen = set()
    for path in _suite():
        if not path.name.startswith("i_"):
            continue
        seen.add(path.name)
        try:
            parse_bytes(path.read_bytes())
            decision = "accept"
        except JsonError:
            decision = "refuse"
        assert documented.get(path.name) == decision, path.name
    assert seen == set(documented)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"\xef\xbb\xbf{}", "json.bom"),
        (b'{"a":1} x', "json.trailing-content"),
        (b'{"a":{"b":1,"b":2}}', "json.duplicate-member"),
        (b'{"a":1,"\\u0061":2}', "json.duplicate-member"),
        (b'["\\ud800"]', "json.lone-surrogate"),
        (b'{"\\udc00":1}', "json.lone-surrogate"),
        (b"[NaN]", "json.syntax"),
        (b"[Infinity]", "json.syntax"),
        (b"[1,]", "json.syntax"),
        (b"", "json.empty"),
        (b"  \n", "json.empty"),
        (b'{"a":"\xc3\x28"}', "json.invalid-utf8"),
        (b"[" * 100000, "json.too-deep"),
        (b'{"a":[1,2', "json.syntax"),
    ],
)
def test_hostile_input_is_a_precise_refusal(data: bytes, code: str) -> None:
    with pytest.raises(JsonError) as info:
        parse_bytes(data)
    assert info.value.code == code
    assert info.value.reason


def test_pathological_numbers_keep_their_lexeme() -> None:
    value = parse_bytes(b"[1e9999999999, 18446744073709551617, -0.0, 1.0, 1, 1E+2]")
    assert value == [
        JsonNumber("1e9999999999"),
        JsonNumber("18446744073709551617"),
        JsonNumber("-0.0"),
        JsonNumber("1.0"),
        JsonNumber("1"),
        JsonNumber("1E+2"),
    ]


def test_huge_integer_beyond_python_digit_limit_does_not_crash() -> None:
    digits = "9" * 50000
    assert parse_bytes(f"[{digits}]".encode()) == [JsonNumber(digits)]


def test_limits_are_enforced_and_configurable() -> None:
    deep = b"[" * 10 + b"]" * 10
    parse_bytes(deep)
    with pytest.raises(JsonError) as info:
        parse_bytes(deep, Limits(max_depth=5))
    assert info.value.code == "json.too-deep"
    with pytest.raises(JsonError) as info:
        parse_bytes(b'["' + b"x" * 100 + b'"]', Limits(max_string_bytes=50))
    assert info.value.code == "json.string-too-long"
    with pytest.raises(JsonError) as info:
        parse_bytes(b"[" + b"1," * 99 + b"1]", Limits(max_members=50))
    assert info.value.code == "json.too-many-members"
    with pytest.raises(JsonError) as info:
        parse_bytes(b"[1]", Limits(max_document_bytes=2))
    assert info.value.code == "json.too-large"


def test_member_spans_measure_raw_values() -> None:
    text = '{ "a" : [1, 2] ,"b":{"c":"d"}}'
    spans = member_spans(text, 0)
    assert [(s.name, text[s.value_start : s.value_end]) for s in spans] == [
        ("a", "[1, 2]"),
        ("b", '{"c":"d"}'),
    ]
    assert member_spans("{}", 0) == []


def test_display_keeps_member_order_and_number_spellings() -> None:
    raw = '{"z":[1.50,-0,1E2,{"é":"\\u00e9\\n"}],"a":{},"m":[],"t":[true,false,null]}'
    assert display(parse_bytes(raw.encode())) == (
        '{"z":[1.50,-0,1E2,{"é":"é\\n"}],"a":{},"m":[],"t":[true,false,null]}'
    )
    value = {"b": [{"c": ["d", None]}, "e"], "a": {"f": True}}
    assert display(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_display_renders_any_depth() -> None:
    # 100,000 levels, alternating arrays and objects: far past the interpreter's recursion limit
    # (a recursive rendering raised RecursionError at 5,000 on CPython 3.13).
    depth = 100_000
    value: object = "x"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    opening = "".join("[" if level % 2 else '{"k":' for level in reversed(range(depth)))
    closing = "".join("]" if level % 2 else "}" for level in range(depth))
    assert display(value) == opening + '"x"' + closing
