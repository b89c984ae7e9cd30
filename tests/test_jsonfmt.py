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

from sealverify.reports.formats import jsonfmt
from sealverify.reports.model import Subject, fail, passed


def _reference(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)


_TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=8)
_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([2**63 - 1, -(2**63), 2**64 - 1, 2**64, -(2**63) - 1])
    | _TEXT
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
