"""The hook-free strict reading of indented texts: the same verdict, value and message."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit.mint import mint_many

from sealverify._internal import fastpath
from sealverify._internal.receipts.families import read_document
from sealverify._internal.wire import strictjson
from sealverify._internal.wire.strictjson import JsonError, Limits, parse_bytes, parse_text

# A tree whose objects are lists of (written name, value): names may repeat, and each is
# written as the text will hold it (plainly, or with escapes), so duplicates that only show
# after unescaping are drawn too.
_NAMES = st.sampled_from(["a", "b", ":", '":', "a,b", '"', "\\", "é", "\U0001f600", ""])


def _spelled(name: str, style: int) -> str:
    if style == 0:  # as orjson writes it
        return json.dumps(name, ensure_ascii=False)
    if style == 1:  # every character escaped (surrogate pairs for the astral one)
        return json.dumps(name, ensure_ascii=True) if not name.isascii() else _all_u(name)
    return json.dumps(name, ensure_ascii=True)  # ASCII as is, the rest escaped


def _all_u(name: str) -> str:
    return '"' + "".join(f"\\u{ord(c):04x}" for c in name) + '"'


_LITERALS = st.sampled_from(
    [
        "1",
        "-0",
        "1e400",
        "1" * 400,
        "0.5E-3",
        "true",
        "null",
        '"x"',
        '"a\\":1,\\"a\\":2"',
        '"a: b, c"',
        '"\\ud83d\\ude00"',
        '"\\ud800"',
        '"\\u0061"',
        '"\\/"',
        '"é"',
    ]
)

_TREE = st.recursive(
    _LITERALS.map(lambda lit: ("lit", lit)),
    lambda inner: (
        st.lists(inner, max_size=3).map(lambda items: ("arr", items))
        | st.lists(st.tuples(_NAMES, st.integers(0, 2), inner), max_size=4).map(
            lambda members: ("obj", members)
        )
    ),
    max_leaves=24,
)


def _render(tree: tuple, level: int = 0) -> str:
    """The tree laid out as orjson's two-space indentation does, names as drawn."""
    kind, body = tree
    if kind == "lit":
        return str(body)
    pad, inner = "  " * level, "  " * (level + 1)
    if kind == "arr":
        if not body:
            return "[]"
        items = ",\n".join(inner + _render(item, level + 1) for item in body)
        return f"[\n{items}\n{pad}]"
    if not body:
        return "{}"
    members = ",\n".join(
        f"{inner}{_spelled(name, style)}: {_render(value, level + 1)}"
        for name, style, value in body
    )
    return f"{{\n{members}\n{pad}}}"


def _compact(tree: tuple) -> str:
    kind, body = tree
    if kind == "lit":
        return str(body)
    if kind == "arr":
        return "[" + ",".join(_compact(item) for item in body) + "]"
    members = ",".join(f"{_spelled(n, style)}:{_compact(v)}" for n, style, v in body)
    return "{" + members + "}"


def _outcome(text: str, limits: Limits) -> tuple[object, ...]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(strictjson, "PROVED_MIN_CHARS", 0)  # short texts take the path too
        try:
            return ("value", repr(parse_text(text, limits)))
        except JsonError as exc:
            return ("error", exc.code, exc.reason, exc.offset)


def _reference(text: str, limits: Limits) -> tuple[object, ...]:
    with fastpath.use_reference():
        return _outcome(text, limits)


def _has_duplicate(tree: tuple) -> bool:
    kind, body = tree
    if kind == "arr":
        return any(_has_duplicate(item) for item in body)
    if kind == "obj":
        names = [name for name, _, _ in body]
        return len(set(names)) != len(names) or any(_has_duplicate(v) for _, _, v in body)
    return False


@settings(max_examples=1500, deadline=None)
@given(
    _TREE,
    st.sampled_from([0, 1, 2, 3, 64]),
    st.sampled_from(["", "\n", " \r\n\t"]),
    st.booleans(),
)
def test_texts_read_as_the_hooked_decoder_reads_them(
    tree: tuple, depth: int, around: str, compact: bool
) -> None:
    text = around + (_compact(tree) if compact else _render(tree)) + around
    limits = Limits(max_depth=depth)
    with fastpath.use_reference(False):
        fast = _outcome(text, limits)
        start = len(around)
        proved = strictjson._proved(text, start, depth)
    assert fast == _reference(text, limits)
    if proved is not None:  # shown: never a repeated name, and within the depth if shallow
        assert not _has_duplicate(tree)
        assert fast[0] == "value" or proved[1] is not None


@settings(max_examples=500, deadline=None)
@given(_TREE, st.booleans())
def test_a_repeated_name_is_never_proved(tree: tuple, compact: bool) -> None:
    text = _render(tree)
    if compact:  # the same tree in one line, as orjson writes it without indentation
        text = _compact(tree)
    if _has_duplicate(tree):
        assert strictjson._proved(text, 0, 1_000) is None
        with fastpath.use_reference(False):
            outcome = _outcome(text, Limits(max_depth=1_000))
        assert outcome[:2] == ("error", "json.duplicate-member") or outcome[1] in {
            "json.lone-surrogate"  # a lone surrogate elsewhere may be found first, as before
        }


@settings(max_examples=300, deadline=None)
@given(_TREE, st.sampled_from([b"\xef\xbb\xbf", b"\xff", b"\xc3", b"\xed\xa0\x80", b""]))
def test_received_bytes_keep_their_refusals(tree: tuple, bad: bytes) -> None:
    data = _render(tree).encode("utf-8")
    for hostile in (bad + data, data[:1] + bad + data[1:], data + bad):
        with fastpath.use_reference(False):
            fast = _bytes_outcome(hostile)
        with fastpath.use_reference():
            assert fast == _bytes_outcome(hostile)


def _bytes_outcome(data: bytes) -> tuple[object, ...]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(strictjson, "PROVED_MIN_CHARS", 0)  # short texts take the path too
        try:
            return ("value", repr(parse_bytes(data)))
        except JsonError as exc:
            return ("error", exc.code, exc.reason, exc.offset)


def test_plain_indented_trees_take_the_hook_free_reading() -> None:
    """The property tests above exercise the new path: a plain tree is shown, not deferred."""
    tree = ("obj", [("a", 0, ("arr", [("lit", "1"), ("obj", [("b", 0, ("lit", "null"))])]))])
    text = _render(tree) + "\n"
    assert strictjson._proved(text, 0, 64) == (
        json.loads(text, parse_int=strictjson.JsonNumber),
        None,
    )
    assert strictjson._proved(text, 0, 2) is None  # three levels: the indentation says so
    assert _reference(text, Limits(max_depth=2))[1] == "json.too-deep"


def test_deep_indented_nesting_is_the_depth_refusal() -> None:
    tree: tuple = ("lit", "1")
    for _ in range(70):
        tree = ("arr", [tree])
    text = _render(tree)
    with fastpath.use_reference(False):
        fast = _outcome(text, strictjson.DEFAULT_LIMITS)
    assert fast == _reference(text, strictjson.DEFAULT_LIMITS)
    assert fast[1] == "json.too-deep"


def test_an_indented_receipt_is_read_without_the_member_hook(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counts the hook's calls: before this path every object of a receipt went through it."""
    raw = next(iter(mint_many(1)))
    assert raw[1:2] == b"\n"  # the testkit writes receipts indented by two spaces
    calls = []
    hooked = strictjson._pairs
    monkeypatch.setattr(
        strictjson,
        "_DECODER",
        json.JSONDecoder(
            object_pairs_hook=lambda pairs: calls.append(1) or hooked(pairs),
            parse_float=strictjson.NUMBERS.__getitem__,
            parse_int=strictjson.NUMBERS.__getitem__,
            strict=True,
        ),
    )
    monkeypatch.setattr(strictjson, "_SCAN_ONCE", strictjson._DECODER.scan_once)
    with fastpath.use_reference(False):
        assert read_document(raw).document is not None
    assert calls == []


def test_a_repeated_member_added_to_a_minted_receipt_is_refused() -> None:
    """Attacker: a minted receipt given a second ``verdict`` member, laid out as orjson would."""
    raw = next(iter(mint_many(1))).decode("utf-8")
    doc = json.loads(raw)
    lines = raw.split("\n")
    verdict = next(i for i, line in enumerate(lines) if line.startswith('  "verdict": '))
    flipped = "ALLOW" if doc["verdict"] != "ALLOW" else "BLOCK"
    lines.insert(verdict + 1, f'  "verdict": "{flipped}",')
    forged = "\n".join(lines).encode("utf-8")
    with fastpath.use_reference(False):
        read = read_document(forged)
    assert read.document is None
    assert [c.status for c in read.checks] == ["fail"]
    assert "duplicate member name" in read.checks[0].reason


@pytest.mark.parametrize(
    "text",
    [
        # past the size the proof takes: its rendering would double the peak memory
        "[" + ",".join(["1"] * (strictjson.PROVED_MAX_CHARS // 2 + 1)) + "]",
        # json.dumps's default layout, which orjson never writes: no rendering is made
        json.dumps([1] * 2000),
        json.dumps({f"k{i}": i for i in range(400)}),
    ],
)
def test_texts_the_proof_cannot_take_are_never_rendered(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered: list[object] = []
    dumps = strictjson.orjson.dumps

    def counted(*args: object, **kwargs: object) -> bytes:
        rendered.append(args[0])
        return dumps(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(strictjson.orjson, "dumps", counted)
    with fastpath.use_reference():
        expected = parse_text(text)
    assert parse_text(text) == expected
    assert rendered == []
