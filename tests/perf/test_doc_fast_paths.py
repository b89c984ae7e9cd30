"""The per-document proofs of verify equal the computations they let a receipt skip.

Four proofs: the member-set check's proof that no level can fail (``receipts/members.py``),
the container count that proves a parsed text within the depth limit without walking it and
the memoized search for ``\\u`` (``wire/strictjson.py``), and the ASCII request line that
holds no canonically equivalent member names (``bindings/object_a.py``). Each is compared
with its reference on inputs that reach both the proof and the fallback;
``tests/perf/test_fast_paths_exact.py`` compares whole reports with every proof swapped out.
"""

from __future__ import annotations

import copy
import importlib
import json
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit import mint
from sealverify_testkit.mintfixtures import demo_receipts

from sealverify._internal import fastpath
from sealverify._internal.receipts import embedded, members
from sealverify._internal.receipts.families import read_document
from sealverify._internal.wire import guards as wire_guards
from sealverify._internal.wire import strictjson
from sealverify._internal.wire.strictjson import JsonError, JsonValue, Limits
from tests.helpers.adversarial_mutants import mutants

# the module, not the binding function the package exports under the same name
object_a = importlib.import_module("sealverify._internal.receipts.bindings.object_a")

# --- member sets ----------------------------------------------------------------------------


def _receipts() -> Iterator[bytes]:
    yield from demo_receipts().values()
    yield from mint.mint_many(12, seed=b"doc-fast-paths")


def _member_edits(doc: members.Doc, family: str) -> Iterator[members.Doc]:
    """Each level object of the receipt with one member removed, and with a foreign one added."""
    key = members.table_key(doc, family)
    for level in members.LEVELS[key]:
        if "#" in level.at:
            continue  # embedded texts: the adversarial mutants re-encode those
        for at, _ in list(members._objects(doc, members._level_steps(level.at), [])):
            for name in [*level.members, "foreign_member"]:
                edited = copy.deepcopy(doc)
                here: JsonValue = edited
                for step in at:
                    here = here[step]  # type: ignore[index]
                assert isinstance(here, dict)
                if name in here:
                    del here[name]
                else:
                    here[name] = "x"
                yield edited


def test_the_member_proof_equals_both_loops_on_edited_receipts() -> None:
    outcomes = {True: 0, False: 0}
    for raw in _receipts():
        read = read_document(raw)
        if read.document is None or read.family is None:
            continue
        for doc in [read.document, *_member_edits(read.document, read.family)]:
            key = members.table_key(doc, read.family)
            outcomes[members._clean(doc, key)] += 1
            expected = members._member_checks(doc, read.family, shortcut=False)
            assert members.member_checks(doc, read.family) == expected
    assert outcomes[True] > 10 and outcomes[False] > 100, outcomes


def test_the_member_proof_equals_both_loops_on_adversarial_receipts() -> None:
    record = mint.parse_record(list(mint.mint_many(2, seed=b"doc-members"))[1])
    reached = set()
    for lie in mutants(record):
        read = read_document(mint.render_pretty(lie.record))
        if read.document is None or read.family is None:
            continue
        doc = read.document
        reached.add(members._clean(doc, members.table_key(doc, read.family)))
        expected = members._member_checks(doc, read.family, shortcut=False)
        assert members.member_checks(doc, read.family) == expected
    assert reached == {True, False}


def test_the_member_proof_reads_unparseable_embedded_texts_as_the_loops_do() -> None:
    raw = next(iter(mint.mint_many(1, seed=b"doc-embedded")))
    read = read_document(raw)
    assert read.document is not None and read.family is not None
    for broken in ("{", '{"audit": "{\\"a\\":1,\\"a\\":2}"}', "[1]", "7"):
        doc = dict(read.document)
        doc["emitted_bytes"] = broken
        embedded._parse.cache_clear()
        expected = members._member_checks(doc, read.family, shortcut=False)
        assert members.member_checks(doc, read.family) == expected


# --- container count ------------------------------------------------------------------------

_TREE = st.recursive(
    st.none() | st.integers(-5, 5) | st.text(alphabet='[]{}ab"\\:', max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=20,
)


@settings(max_examples=1500)
@given(_TREE, st.sampled_from([0, 1, 2, 3, 5, 8]), st.booleans())
def test_few_containers_clears_only_texts_within_the_depth_limit(
    tree: JsonValue, max_depth: int, pretty: bool
) -> None:
    text = json.dumps(tree, indent=1 if pretty else None)
    limits = Limits(max_depth=max_depth)
    fast = _outcome(text, limits)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(strictjson, "_few_containers", lambda *_: False)
        assert _outcome(text, limits) == fast
    value = strictjson.parse_text(text, Limits(max_depth=10_000))
    drawn = strictjson._NEXT_OBJECT()
    strictjson.parse_text(text, Limits(max_depth=10_000))
    objects = strictjson._NEXT_OBJECT() - drawn - 1
    if strictjson._few_containers(text.count("["), objects, max_depth):
        assert strictjson._nesting_depth(value) <= max_depth


@settings(max_examples=500)
@given(st.text(alphabet='[]{}a"', max_size=80), st.integers(-3, 90))
def test_brackets_up_to_is_the_capped_count(text: str, bound: int) -> None:
    """The bounded search counts what ``str.count`` counts, as far as the bound needs."""
    assert strictjson._brackets_up_to(text, bound) == max(0, min(text.count("["), bound + 1))


def _outcome(text: str, limits: Limits) -> tuple[str, str, int | None] | str:
    try:
        return repr(strictjson.parse_text(text, limits))
    except JsonError as exc:
        return exc.code, exc.reason, exc.offset


def test_few_containers_counts_objects_and_arrays() -> None:
    inner = json.dumps({"text": "[[[[{{{{" * 20})
    text = json.dumps({"a": [inner, {"b": [1]}]})  # 3 objects, 2 arrays, 160 brackets in strings
    assert (
        strictjson._few_containers(text.count("["), 3, 64) is False
    )  # the brackets in strings count too
    shallow = json.dumps({"a": [{"b": "[" * 70}]})
    drawn = strictjson._NEXT_OBJECT()
    with fastpath.use_reference():  # the hooked decoder's count
        strictjson.parse_text(shallow)
    # two objects, and the two numbers parse_text draws around decoding a deferred text
    assert strictjson._NEXT_OBJECT() - drawn - 1 == 2 + 2
    assert strictjson._few_containers(shallow.count("["), 2, 64) is False  # 71 "[" in all
    flat = json.dumps({"a": [{"b": "{" * 70}]})
    assert strictjson._few_containers(flat.count("["), 2, 64) is True  # 2 objects + 1 "[" <= 64
    deep = "[" * 65 + "]" * 65
    with pytest.raises(JsonError) as refused:
        strictjson.parse_text(deep)
    assert refused.value.code == "json.too-deep"


# --- equivalent member names ----------------------------------------------------------------

_NAMES = st.sampled_from(["a", "é", "e\u0301", "\u00c5", "A\u030a", "\u212b", "b"])


@settings(max_examples=1500)
@given(
    st.dictionaries(_NAMES, st.none() | st.dictionaries(_NAMES, st.none(), max_size=3)),
    st.booleans(),
)
def test_equivalent_names_equal_the_plain_search(
    params: dict[str, JsonValue], ascii_only: bool
) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    line = json.dumps(message, ensure_ascii=ascii_only).encode("utf-8")
    parsed = strictjson.parse_bytes(line)
    expected = wire_guards.unicode_equivalent_keys(parsed)
    assert object_a._equivalent_names(line, parsed) == expected


def test_equivalent_names_fall_back_for_escapes_and_non_ascii() -> None:
    for line in (
        b'{"params":{"\\u00c5":1,"A\\u030a":2}}',
        '{"params":{"\u00c5":1,"A\u030a":2}}'.encode(),
    ):
        parsed = strictjson.parse_bytes(line)
        assert object_a._equivalent_names(line, parsed) == [("\u00c5", "A\u030a")]
    plain = b'{"params":{"a":1,"b":{"a":2}}}'
    assert object_a._equivalent_names(plain, strictjson.parse_bytes(plain)) == []


# --- the "\\u" memo -------------------------------------------------------------------------


@settings(max_examples=1500)
@given(st.lists(st.text(alphabet='\\u"x\u00e9', max_size=8), min_size=1, max_size=5))
def test_the_u_memo_answers_as_a_fresh_search(texts: list[str]) -> None:
    for text in texts:
        raw = text.encode("utf-8")
        decoded = strictjson.decode_utf8(raw)
        for data in (decoded, raw, decoded, text, raw):
            want = ("\\u" in data) if isinstance(data, str) else (b"\\u" in data)
            assert strictjson.holds_u_escape(data) is want


def test_the_u_memo_keeps_no_large_document() -> None:
    big = b'"' + b"x" * strictjson.MEMO_BYTES + b'"'
    strictjson.decode_utf8(big)
    assert strictjson._U_MEMO[0] is not big
    assert strictjson.holds_u_escape(big) is False
    assert strictjson._U_MEMO[0] is not big
