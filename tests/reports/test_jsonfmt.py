"""The JSON format's encoder equals json.dumps(sort_keys, indent=2, ensure_ascii=False)."""

from __future__ import annotations

import enum
import json
import math
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.reports.formats import jsonfmt
from sealverify._internal.results.model import Check, Subject, fail, passed
from sealverify._internal.results.outcomes import Outcome
from sealverify._internal.results.vocabulary import Family, Role


def _reference(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)


_TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=8)
_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([2**63 - 1, -(2**63), 2**64 - 1, 2**64, -(2**63) - 1])
    | _TEXT
    | st.sampled_from([*Outcome, *Family, *Role])  # the report's words, str enums
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(_TEXT, inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=1500)
@given(_VALUES)
def test_plain_values_encode_exactly_as_the_standard_library(value: Any) -> None:
    assert jsonfmt.dumps(value) == _reference(value)


def test_every_code_point_is_escaped_as_the_standard_library_does() -> None:
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    value = {"k": every, every[:300]: [every[::-7]]}
    assert jsonfmt._plain(value)
    assert jsonfmt.dumps(value) == _reference(value)
    for lone in ("\ud800", "a\udfffb"):  # orjson refuses these: the standard library writes
        assert jsonfmt.dumps({"s": lone}) == _reference({"s": lone})


def test_the_report_words_are_plain_values_and_only_exact_str_keys_are() -> None:
    # a receipt's facts hold its Family, every subject its Outcome: orjson writes them
    words = {"family": Family.V3, "roles": [*Role], "outcome": Outcome.NOT_EVALUATED}
    assert jsonfmt._plain(words)
    assert jsonfmt.dumps(words) == _reference(words)
    assert jsonfmt._subject_plain(Subject("n", Outcome.VERIFIED, (), {"family": Family.V3}))
    by_word = {Outcome.FAIL: 1, "A": 2}  # orjson refuses a str subclass as a key
    assert not jsonfmt._plain(by_word)
    assert jsonfmt.dumps(by_word) == _reference(by_word)
    assert jsonfmt.dumps_compact(by_word) == json.dumps(
        by_word, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


class _Color(enum.IntEnum):
    RED = 1


class _Text(str):
    pass


@dataclass
class _Point:
    x: int


@pytest.mark.parametrize(
    "value",
    [
        {"f": 1e16},
        {"f": 0.1},
        {"f": -0.0},
        [math.nan, math.inf, -math.inf],
        {"e": _Color.RED},
        {"s": _Text("x")},
        {_Text("k"): 1},
        {1: "a"},  # the standard library writes an int key as a string
    ],
)
def test_other_types_take_the_standard_library(value: Any) -> None:
    assert not jsonfmt._plain(value)
    assert jsonfmt.dumps(value) == _reference(value)


@pytest.mark.parametrize("value", [{"p": _Point(1)}, {"s": {1, 2}}])
def test_values_the_standard_library_refuses_are_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        _reference(value)
    with pytest.raises(TypeError):
        jsonfmt.dumps(value)


def test_subject_text_with_odd_data_equals_the_reference() -> None:
    checks = (
        passed("a.b", "fine", "/x", key="k"),
        fail("c.d", "bad \x00 \u2028", "", ratio=0.5, big=2**80, nested={"t": (1, None)}),
    )
    for facts in ({"family": "v3"}, {"weight": 1.5}):
        subject = Subject("n", "FAIL", checks, facts, "label")
        expected = _reference(subject.to_dict()).replace("\n", "\n    ")
        assert jsonfmt.subject_text(subject) == expected
        assert jsonfmt._subject_plain(subject) is False  # a float and a big int in data
    plain = Subject("n", "VERIFIED", (passed("a.b", "fine", key="k"),), {"family": "v3"})
    assert jsonfmt._subject_plain(plain)
    assert jsonfmt.subject_text(plain) == _reference(plain.to_dict()).replace("\n", "\n    ")


def _compact_reference(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=1500)
@given(_VALUES)
def test_plain_values_encode_compactly_as_the_standard_library(value: Any) -> None:
    assert jsonfmt.dumps_compact(value) == _compact_reference(value)


def test_every_code_point_is_written_compactly_as_the_standard_library_does() -> None:
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    value = {"k": every, every[:300]: [every[::-7]]}
    assert jsonfmt.dumps_compact(value) == _compact_reference(value)
    for lone in ("\ud800", "a\udfffb"):
        assert jsonfmt.dumps_compact({"s": lone}) == _compact_reference({"s": lone})
    for odd in ({"f": 1e16}, [math.nan], {"e": _Color.RED}, {"s": _Text("x")}, {1: "a"}):
        assert not jsonfmt._plain(odd)
        assert jsonfmt.dumps_compact(odd) == _compact_reference(odd)


_STATUSES = st.sampled_from(["pass", "fail", "not-evaluated", "info", "waived"])
_SHORT = st.text(alphabet='ab"\\\n\x00\u00e9\u2028\ud800', max_size=4)  # a lone surrogate too
_STRINGS = _SHORT | _SHORT.map(_Text)  # a str subclass leaves the subject to the reference
_DATA = st.dictionaries(_TEXT, _VALUES | st.floats(allow_nan=True), max_size=2)
_CHECKS = st.builds(
    Check, st.sampled_from(["a.b", "a.c", "b"]) | _STRINGS, _STATUSES, _STRINGS, _STRINGS, _DATA
)
_SUBJECTS = st.builds(
    Subject,
    _STRINGS,
    _STRINGS | st.sampled_from(list(Outcome)),  # every command's outcome is an Outcome
    st.lists(_CHECKS, max_size=6).map(tuple),
    st.dictionaries(_TEXT, _VALUES | st.floats(), max_size=3),
    _STRINGS,
)


@settings(max_examples=1500)
@given(_SUBJECTS)
def test_subjects_written_member_by_member_equal_the_whole_encoding(subject: Subject) -> None:
    whole = subject.to_dict()
    for _ in range(2):  # the second time from the kept check texts
        assert jsonfmt.subject_text(subject) == _reference(whole).replace("\n", "\n    ")
        assert jsonfmt.subject_body(subject) == _compact_reference(whole)
    assert jsonfmt.subject_text(subject) == jsonfmt.subject_text_reference(subject)
    assert jsonfmt.subject_body(subject) == jsonfmt.subject_body_reference(subject)
    text = jsonfmt.subject_text_reference(subject)
    try:
        encoded = text.encode()
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 for it, so no bytes either
        with pytest.raises(UnicodeEncodeError):
            jsonfmt.subject_bytes(subject)
    else:
        assert jsonfmt.subject_bytes(subject) == encoded


def test_a_kept_check_text_is_never_used_for_a_check_with_data() -> None:
    bare = Subject("n", "VERIFIED", (passed("a.b", "fine"),))
    with_data = Subject("n", "VERIFIED", (passed("a.b", "fine", key="k"),))
    jsonfmt.subject_text(bare)  # keeps the bare check's text
    assert jsonfmt.subject_text(with_data) == jsonfmt.subject_text_reference(with_data)
    assert '"data"' in jsonfmt.subject_text(with_data)
    assert jsonfmt.subject_body(with_data) == jsonfmt.subject_body_reference(with_data)
