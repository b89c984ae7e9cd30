"""Issue 8 parse fast paths equal the reference computations they replace or skip.

Each reference below is the code as it was before the fast path (kept here as the oracle):
``parse_text`` checking depth before decoding through ``JSONDecoder.decode``, the document
checks tokenizing every member name and walking every container, and ``pointer`` escaping
every token. Inputs are chosen to take both the fast path and the fallback.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit.mint import mint_many
from sealverify_testkit.mintfixtures import demo_receipts

from sealverify._internal.receipts import families as receipts
from sealverify._internal.receipts.families import DISCRIMINATOR_NAMES
from sealverify._internal.results.model import Check, fail, passed
from sealverify._internal.wire import strictjson
from sealverify._internal.wire.spelling import pointer
from sealverify._internal.wire.strictjson import (
    DEFAULT_LIMITS,
    JsonError,
    JsonValue,
    Limits,
    display,
)
from tests.helpers.hostile import scalar_mutants

ROOT = Path(__file__).resolve().parents[2]

# --- parse_text -----------------------------------------------------------------------------


def _reference_parse_text(text: str, limits: Limits = DEFAULT_LIMITS) -> JsonValue:
    """parse_text before issue 8's parse round: depth checked on the text, then decode()."""
    if text.startswith("\ufeff"):
        raise JsonError("json.bom", "document starts with a byte order mark (U+FEFF)", 0)
    if not text.strip(" \t\r\n"):
        raise JsonError("json.empty", "document is empty", 0)
    if text.count("[") + text.count("{") > limits.max_depth:
        strictjson._check_depth(text, limits.max_depth)
    try:
        value: JsonValue = strictjson._DECODER.decode(text)
    except strictjson._Duplicate as dup:
        raise JsonError(
            "json.duplicate-member",
            f"duplicate member name {strictjson._preview(dup.name)} in one object",
        ) from None
    except json.JSONDecodeError as exc:
        code = "json.trailing-content" if exc.msg == "Extra data" else "json.syntax"
        raise JsonError(
            # The decoder's own trailing "at" is dropped: the offset names the place once.
            code,
            f"not RFC 8259 JSON: {exc.msg.removesuffix(' at')}",
            strictjson._byte_offset(text, exc.pos),
        ) from None
    except ValueError as exc:
        raise JsonError("json.syntax", f"not RFC 8259 JSON: {exc}") from None
    except RecursionError:
        raise JsonError("json.too-deep", "nesting too deep to parse") from None
    if strictjson._SURROGATE_ESCAPE.search(text):
        strictjson._check_surrogates(value)
    if len(text) > limits.max_string_bytes // 4 or len(text) > limits.max_members:
        strictjson._walk_limits(value, limits)
    return value


Outcome = tuple[str, str, str, int | None] | tuple[str, str, JsonValue]


def _outcome(parse: Callable[[str, Limits], JsonValue], text: str, limits: Limits) -> Outcome:
    try:
        value = parse(text, limits)
    except JsonError as exc:
        return ("error", exc.code, exc.reason, exc.offset)
    return ("value", display(value), value)


def _assert_same_parse(text: str, limits: Limits = DEFAULT_LIMITS) -> Outcome:
    fast = _outcome(strictjson.parse_text, text, limits)
    assert fast == _outcome(_reference_parse_text, text, limits), text[:200]
    return fast


_STRING_CHARS = st.sampled_from(
    ["a", "[", "]", "{", "}", '"', "\\", "/", ":", ",", "é", "\n", "\ud800", "\udc00", "😀", " "]
)
_NUMBERS = st.sampled_from(["0", "-0", "3", "3.0", "1e5", "-12.5E-3", "9" * 50, "01", "1."])


@st.composite
def _json_string(draw: st.DrawFn) -> str:
    """A string token, each character written raw or escaped (sometimes wrongly on purpose)."""
    out = ['"']
    for char in draw(st.lists(_STRING_CHARS, max_size=6)):
        style = draw(st.sampled_from(["raw", "u", "U", "short"]))
        if style == "short" and char in '"\\/\n':
            out.append({'"': '\\"', "\\": "\\\\", "/": "\\/", "\n": "\\n"}[char])
        elif style in "uU" and ord(char) < 0x10000:
            escape = f"\\u{ord(char):04x}"
            out.append(escape if style == "u" else escape.upper().replace("\\U", "\\u"))
        else:
            out.append(char)  # raw: '"', '\\' and '\n' raw make the text invalid
    out.append('"')
    return "".join(out)


_WS = st.sampled_from(["", "", " ", "\n  ", "\t"])


@st.composite
def _json_text(draw: st.DrawFn, depth: int = 0) -> str:
    kind = draw(
        st.sampled_from(["scalar", "string", "array", "object"] if depth < 12 else ["scalar"])
    )
    if kind == "scalar":
        return draw(st.one_of(_NUMBERS, st.sampled_from(["true", "false", "null", "NaN"])))
    if kind == "string":
        return draw(_json_string())
    items = draw(st.lists(_json_text(depth + 1), max_size=3))
    if kind == "array":
        return "[" + draw(_WS) + ",".join(items) + draw(_WS) + "]"
    names = [draw(st.sampled_from(['"a"', '"b"', '"\\u0061"', '"{["'])) for _ in items]
    members = [f"{n}{draw(_WS)}:{draw(_WS)}{v}" for n, v in zip(names, items, strict=True)]
    return "{" + draw(_WS) + ",".join(members) + draw(_WS) + "}"


@st.composite
def _documents(draw: st.DrawFn) -> str:
    text = draw(_WS) + draw(_json_text()) + draw(_WS)
    mutation = draw(st.sampled_from(["none", "none", "cut", "insert", "trailing", "bom"]))
    if mutation == "cut" and text:
        text = text[: draw(st.integers(0, len(text) - 1))]
    elif mutation == "insert":
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(list('[]{}",:\\ x'))) + text[at:]
    elif mutation == "trailing":
        text += draw(st.sampled_from(["[[[[", "}", " 1", '"']))
    elif mutation == "bom":
        text = "\ufeff" + text
    return text


_LIMITS = st.builds(
    Limits,
    max_depth=st.sampled_from([0, 1, 2, 3, 4, 6, 64]),
    max_members=st.sampled_from([3, 1_000_000]),
    max_string_bytes=st.sampled_from([2, 1_048_576]),
)


@settings(max_examples=1500)
@given(_documents(), _LIMITS)
def test_parse_text_equals_the_reference(text: str, limits: Limits) -> None:
    _assert_same_parse(text, limits)


@settings(max_examples=600)
@given(_json_text())
def test_container_depth_is_the_bracket_peak_for_strict_json(text: str) -> None:
    """The exactness premise of the deferred depth check, on texts that parse."""
    try:
        value = strictjson.parse_text(text, Limits(max_depth=10_000))
    except JsonError:
        return
    assert strictjson._nesting_depth(value) == strictjson._bracket_peak(text)


def test_parse_text_equals_the_reference_on_receipts_and_their_hostile_mutants() -> None:
    texts = [raw.decode() for raw in demo_receipts().values()]
    texts += [raw.decode() for raw in mint_many(5, seed=b"parse-fast")]
    mutants = [m for text in texts[:3] for m in scalar_mutants(text, every=3)]
    outcomes = {_assert_same_parse(t)[:2] for t in texts + mutants}
    deep = {o for o in outcomes if o[:2] == ("error", "json.too-deep")}
    assert deep, "no too-deep mutant: the deferred depth check was not exercised"
    assert any(o[0] == "value" for o in outcomes)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": ' + "[" * 70 + "]" * 70 + "}",  # too deep, valid: found from the containers
        '{"a": ' + "[" * 70 + "]" * 70 + "} x",  # too deep and trailing content
        '{"a": 1, "a": ' + "[" * 70 + "]" * 70 + "}",  # too deep and a duplicate
        '{"a": "\\ud800", "b": ' + "[" * 70 + "]" * 70 + "}",  # too deep and a lone surrogate
        '{"a": NaN, "b": ' + "[" * 70 + "]" * 70 + "}",  # too deep and a constant
        "[" * 70,  # too deep, unterminated
        '{"a": "' + "[" * 70 + '"}',  # brackets only inside a string: not deep
        '{"a": "' + "[" * 70 + '", "b": [[[]]]}',
        "[" * 400 + "]" * 400,  # decoded first (may hit the recursion guard)
        "[" * 600 + "]" * 600,  # many brackets: decoded first under the default recursion limit
        "[" * 600 + "1," + "]" * 600,
        "[" + "[]," * 600 + "[]]",  # many brackets, shallow: valid
        "[" * 64 + "]" * 64,
        "[" * 65 + "]" * 65,
        '["\\\\"' + ",[" * 70 + "]" * 71,  # an escaped backslash before the brackets
        ' \n{"a":[]}\t',
        " \n\t",
        "",
    ],
)
def test_depth_precedence_matches_the_reference(text: str) -> None:
    _assert_same_parse(text)
    _assert_same_parse(text, Limits(max_depth=3))


def test_depth_precedence_matches_the_reference_under_a_raised_recursion_limit() -> None:
    """A host whose recursion limit lets the scanner recurse far: the depth is checked first.

    Under the default limit every document is decoded first; above
    ``_DECODE_FIRST_MAX_RECURSION`` a text with many brackets takes the check before decoding.
    Both give the reference's outcome.
    """
    texts = [
        "[" * 600 + "]" * 600,
        "[" * 600 + "1," + "]" * 600,
        '{"a": 1, "a": ' + "[" * 600 + "]" * 600 + "}",
        "[" + "[]," * 600 + "[]]",
        '{"a": "' + "{" * 600 + '", "b": [[[]]]}',
    ]
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(strictjson._DECODE_FIRST_MAX_RECURSION + 2000)
    try:
        for text in texts:
            _assert_same_parse(text)
            _assert_same_parse(text, Limits(max_depth=3))
    finally:
        sys.setrecursionlimit(previous)


def test_deep_nesting_beyond_a_raised_depth_limit_is_the_recursion_refusal() -> None:
    # Deeper than any supported interpreter's JSON scanner recurses (CPython 3.13 parses 5,000
    # levels where 3.11 refuses them; every one refuses 100,000).
    text = "[" * 100_000 + "]" * 100_000
    outcome = _assert_same_parse(text, Limits(max_depth=1_000_000))
    assert outcome == ("error", "json.too-deep", "nesting too deep to parse", None)


def test_decode_mirrors_json_decoder_errors() -> None:
    """_decode calls the scanner directly: same values, messages and positions as decode()."""
    rng = random.Random(8)
    pieces = ["[", "]", "{", "}", '"a"', ":", ",", "1", " ", "x", "-", '"\\q"', "nul", "\n"]
    deep_enough = Limits(max_depth=1_000)
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        start = strictjson._WS.match(text).end()  # type: ignore[union-attr]
        if start == len(text):
            continue
        fast = _outcome(lambda t, _, at=start: strictjson._decode(t, at), text, deep_enough)
        assert fast == _outcome(_reference_parse_text, text, deep_enough), text


# --- document checks ------------------------------------------------------------------------


def _reference_document_checks(text: str, root: JsonValue) -> list[Check]:
    """_document_checks before the escape and record_version prefilters."""
    checks = receipts._escaped_discriminators(text)
    walk = receipts._walk(root) if receipts._nested_bad_version(root) else receipts._top(root)
    for where, obj in walk:
        value = obj.get("record_version")
        if "record_version" not in obj:
            continue
        top = where == ()
        if (top and not receipts.is_uint(value)) or (
            isinstance(value, strictjson.JsonNumber) and not receipts.is_uint(value)
        ):
            spelled = (
                value.lexeme if isinstance(value, strictjson.JsonNumber) else type(value).__name__
            )
            checks.append(
                fail(
                    "document.record-version-spelling",
                    f"record_version is written as {spelled!s}, not a bare unsigned integer "
                    "(3.0, 3e0 and -0 are refused, never read as 3)",
                    receipts.pointer(*where, "record_version"),
                )
            )
    return checks


def test_discriminator_names_use_only_characters_the_escape_prefilter_covers() -> None:
    """The prefilter's premise: such names can only be escaped as \\u005f or \\u0061..7a."""
    for name in DISCRIMINATOR_NAMES | {"record_version"}:
        assert re.fullmatch("[_a-z]+", name), name
        for char in name:
            for escape in (f"\\u{ord(char):04x}", f"\\u{ord(char):04X}"):
                assert receipts._NAME_CHAR_ESCAPE.fullmatch(escape)
                assert json.loads(f'"{escape}"') == char
    short = {json.loads(f'"\\{c}"') for c in '"\\/bfnrt'}
    assert not short & set("".join(DISCRIMINATOR_NAMES))


_MEMBER_NAME = re.compile(r'"([a-z_]+)"(\s*:)')
_OBJECT_START = re.compile(r"\{")
_VERSIONS = ["3", "3.0", "-0", "3e0", "0", '"3"', "null", "12345678901234567890"]


def _escape_one(name: str, rng: random.Random) -> str:
    at = rng.randrange(len(name))
    escape = f"\\u{ord(name[at]):04x}"
    return (
        name[:at]
        + (escape if rng.random() < 0.5 else escape.upper().replace("\\U", "\\u"))
        + name[at + 1 :]
    )


def _mutate_receipt(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(0, 3)):
        kind = rng.choice(["escape-name", "nested", "in-string", "top", "drop-top", "other-escape"])
        if kind == "escape-name":
            names = list(_MEMBER_NAME.finditer(text))
            m = rng.choice(names)
            text = text[: m.start(1)] + _escape_one(m.group(1), rng) + text[m.end(1) :]
        elif kind == "nested":
            name = "record_version" if rng.random() < 0.7 else _escape_one("record_version", rng)
            member = f'"{name}": {rng.choice(_VERSIONS)}'
            starts = [m.end() for m in _OBJECT_START.finditer(text)]
            at = rng.choice(starts)
            if text[at] != "\\":  # not an object of an escaped JSON text in a string
                text = text[:at] + f'"zz{rng.random()}": {{{member}}}, ' + text[at:]
        elif kind == "in-string":
            text = text.replace('"tool": "', '"tool": "record_version ', 1)
        elif kind == "top":
            text = re.sub(
                r'"record_version": [^,]*',
                f'"record_version": {rng.choice(_VERSIONS)}',
                text,
                count=1,
            )
        elif kind == "drop-top":
            text = text.replace('"record_version"', '"not_a_version"', 1)
        else:
            text = text.replace('"tool": "', '"tool": "\\u00e9\\u0041', 1)
    return text


_RECEIPTS = [raw.decode() for raw in mint_many(3, seed=b"doc-checks")] + [
    demo_receipts()["verified-allow.receipt.json"].decode()
]


@settings(max_examples=400)
@given(st.integers(0, 2**32), st.integers(0, 3))
def test_document_checks_equal_the_reference(seed: int, which: int) -> None:
    text = _mutate_receipt(_RECEIPTS[which], random.Random(seed))
    try:
        root = strictjson.parse_text(text)
    except JsonError:
        return
    assert receipts._document_checks(text, root) == _reference_document_checks(text, root)


def test_document_checks_mutants_reach_every_path() -> None:
    """The property test above is not vacuous: its mutants take fast paths and fallbacks."""
    seen: set[str] = set()
    for seed in range(400):
        text = _mutate_receipt(_RECEIPTS[seed % 4], random.Random(seed))
        try:
            root = strictjson.parse_text(text)
        except JsonError:
            continue
        assert isinstance(root, dict)
        checks = receipts._document_checks(text, root)
        assert checks == _reference_document_checks(text, root)
        escapes = receipts._NAME_CHAR_ESCAPE.search(text) is not None
        nested = text.count("record_version") > ("record_version" in root)
        seen.add("escape-fallback" if escapes else "escape-fast")
        seen.add("walk" if escapes or nested else "walk-skipped")
        seen.update(c.id for c in checks)
    assert seen >= {
        "escape-fallback",
        "escape-fast",
        "walk",
        "walk-skipped",
        "document.escaped-discriminator",
        "document.record-version-spelling",
    }


# --- pointer --------------------------------------------------------------------------------


def _reference_pointer(*parts: str | int) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


@given(st.lists(st.one_of(st.text(alphabet="a~/0~1é"), st.integers(), st.booleans()), max_size=4))
def test_pointer_equals_the_reference(parts: list[str | int]) -> None:
    assert pointer(*parts) == _reference_pointer(*parts)


# --- classify -------------------------------------------------------------------------------


def _reference_classify(document: dict[str, JsonValue]) -> tuple[str | None, list[Check]]:
    """classify before issue 8 (an any() per family), verbatim."""
    present = [
        name
        for name, keys in (
            ("seal_receipt", ("seal_receipt",)),
            ("record_type", ("record_type", "record_version")),
            ("seal_live_receipt", ("seal_live_receipt",)),
            ("seal_check_receipt", ("seal_check_receipt",)),
            ("receipt", ("receipt",)),
        )
        if any(k in document for k in keys)
    ]
    if len(present) > 1:
        return None, [
            fail(
                "receipt.conflicting-discriminators",
                "conflicting version discriminators: "
                + ", ".join(present)
                + " (exactly one family is allowed)",
            )
        ]
    if present == ["seal_check_receipt"]:
        return None, [
            fail(
                "receipt.legacy-schema-k",
                "legacy Schema K receipt (seal_check_receipt) is refused: regenerate it with a "
                "current producer",
                pointer("seal_check_receipt"),
            )
        ]
    family: str | None = None
    claim = ""
    if present == ["seal_receipt"]:
        claim = f"seal_receipt={receipts._show(document['seal_receipt'])}"
        family = {"v1": "v1", "v2": "v2"}.get(receipts._str(document["seal_receipt"]))
    elif present == ["record_type"]:
        version = document.get("record_version")
        claim = (
            f"record_type={receipts._show(document.get('record_type'))} "
            f"record_version={receipts._show(version)}"
        )
        if document.get("record_type") == receipts.RECORD_TYPE and receipts.is_uint(version):
            assert isinstance(version, strictjson.JsonNumber)
            family = {"2": "v2-host", "3": "v3"}.get(version.lexeme)
    elif present == ["seal_live_receipt"]:
        claim = f"seal_live_receipt={receipts._show(document['seal_live_receipt'])}"
        family = "v0-live" if document["seal_live_receipt"] == "v0" else None
    elif present == ["receipt"]:
        claim = f"receipt={receipts._show(document['receipt'])}"
        family = "spine" if document["receipt"] == receipts.SPINE else None
    if family is None:
        return None, [
            fail(
                "receipt.unknown-version",
                "no recognized version discriminator" + (f" ({claim})" if claim else ""),
            )
        ]
    return family, [passed("receipt.family", f"receipt family {family} ({claim})", family=family)]


_CLAIMS = st.sampled_from(
    [
        "v0",
        "v1",
        "v2",
        "v9",
        receipts.RECORD_TYPE,
        receipts.SPINE,
        strictjson.JsonNumber("2"),
        strictjson.JsonNumber("3"),
        strictjson.JsonNumber("3.0"),
        None,
        True,
    ]
)
_MEMBERS = st.sampled_from(
    [
        "seal_receipt",
        "record_type",
        "record_version",
        "seal_live_receipt",
        "seal_check_receipt",
        "receipt",
        "tool",
        "Receipt",
    ]
)


@settings(max_examples=500)
@given(st.dictionaries(_MEMBERS, _CLAIMS))
def test_classify_equals_the_reference(document: dict[str, JsonValue]) -> None:
    assert receipts.classify(document) == _reference_classify(document)


# --- JsonNumber -----------------------------------------------------------------------------


def _reference_as_uint(lexeme: str, max_digits: int) -> object:
    """as_uint before issue 8 (the integer-lexeme test as an any() over ".eE")."""
    if lexeme.startswith("-"):
        return None
    if any(c in lexeme for c in ".eE") or len(lexeme.lstrip("-")) > max_digits:
        return None
    try:
        return int(lexeme)
    except ValueError as exc:
        return ("error", str(exc))


def _as_uint(lexeme: str, max_digits: int) -> object:
    try:
        return strictjson.JsonNumber(lexeme).as_uint(max_digits)
    except ValueError as exc:
        return ("error", str(exc))


@settings(max_examples=1000)
@given(
    st.one_of(
        st.text(alphabet="0123456789-+.eE_ x", max_size=8),
        st.from_regex(r"-?(0|[1-9][0-9]{0,45})(\.[0-9]+)?([eE][-+]?[0-9]+)?", fullmatch=True),
    ),
    st.sampled_from([2, 40]),
)
def test_integer_lexeme_readers_equal_the_reference(lexeme: str, max_digits: int) -> None:
    number = strictjson.JsonNumber(lexeme)
    assert number.is_integer_lexeme == (not any(c in lexeme for c in ".eE"))
    assert _as_uint(lexeme, max_digits) == _reference_as_uint(lexeme, max_digits)
