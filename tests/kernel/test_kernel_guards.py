"""The seven raw-wire guards against character-by-character transcriptions of the Lean folds.

``sealverify._internal.kernel.guards`` cuts string literals out with a regular expression and steps
only through the text between them. The references below step through every character, exactly as
the Lean ``List.foldl`` state machines do (seal-host ``Host/*.lean`` and mcp-seal-dev
``Seal/JsonUtil.lean`` at the pinned commits), and hypothesis compares the two on JSON-shaped
and hostile text.
"""

from __future__ import annotations

import json
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from sealverify._internal.kernel import guards
from sealverify._internal.kernel.unicode_nfd import nfd


def ref_numbers(text: str) -> bool:
    in_string = escaped = in_exp = False
    run = worst = 0
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string, in_exp, run = True, False, 0
        elif in_exp:
            if "0" <= c <= "9":
                run += 1
                worst = max(worst, run)
            elif c in "+-":
                pass
            else:
                in_exp, run = False, 0
        elif c in "eE":
            in_exp, run = True, 0
    return worst <= 6


def ref_keys(text: str, identity=lambda k: k) -> bool:
    stack: list = []
    in_string = escaped = is_key = False
    buf: list[str] = []
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                if is_key:
                    return False
                escaped = True
            elif c == '"':
                if is_key:
                    key = identity("".join(buf))
                    seen, _ = stack[-1]
                    if key in seen:
                        return False
                    stack[-1] = ([key, *seen], False)
                    in_string = is_key = False
                    buf = []
                else:
                    in_string = False
            elif is_key:
                buf.append(c)
        elif c == '"':
            is_key = bool(stack) and stack[-1] is not None and stack[-1][1]
            in_string, buf = True, []
        elif c == "{":
            stack.append(([], True))
        elif c == "[":
            stack.append(None)
        elif c == "}":
            if not stack or stack[-1] is None:
                return False
            stack.pop()
        elif c == "]":
            if not stack or stack[-1] is not None:
                return False
            stack.pop()
        elif c == "," and stack and stack[-1] is not None:
            stack[-1] = (stack[-1][0], True)
    return True


def ref_digits(text: str) -> bool:
    in_string = escaped = in_exp = False
    run = worst = 0
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string, in_exp, run = True, False, 0
        elif c in "eE":
            in_exp = True
        elif c in "+-":
            pass
        elif "0" <= c <= "9":
            if not in_exp:
                run += 1
                worst = max(worst, run)
        elif c != ".":
            in_exp, run = False, 0
    return worst <= 18


def ref_agreement(text: str) -> str | None:
    in_string = escaped = False
    buf: list[str] | None = None
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
            continue
        if buf is not None:
            if c in "0123456789-+.eE":
                buf.append(c)
                continue
            literal = "".join(buf)
            buf = None
            if guards.number_literal_agreement_safe(literal) is False:
                return literal
        if c == '"':
            in_string = True
        elif c == "-" or "0" <= c <= "9":
            buf = [c]
    if buf is not None and guards.number_literal_agreement_safe("".join(buf)) is False:
        return "".join(buf)
    return None


def _hex4(chars: list[str]) -> int | None:
    if len(chars) == 4 and all(c in "0123456789abcdefABCDEF" for c in chars):
        return int("".join(chars), 16)
    return None


def ref_surrogates(text: str) -> bool:
    """``SurrogateEscapes.scan`` as its equations read."""
    chars = list(text)
    i, inside = 0, False
    while i < len(chars):
        c = chars[i]
        if not inside:
            inside = c == '"'
            i += 1
            continue
        if c == "\\" and i + 5 < len(chars) and chars[i + 1] == "u":
            value = _hex4(chars[i + 2 : i + 6])
            if value is None:
                i += 2
                continue
            if 0xD800 <= value <= 0xDBFF:
                rest = chars[i + 6 :]
                if len(rest) >= 6 and rest[0] == "\\" and rest[1] == "u":
                    low = _hex4(rest[2:6])
                    if low is not None and 0xDC00 <= low <= 0xDFFF:
                        i += 12
                        continue
                return False
            if 0xDC00 <= value <= 0xDFFF:
                return False
            i += 6
        elif c == "\\" and i + 1 < len(chars):
            i += 2
        else:
            inside = c != '"'
            i += 1
    return True


def ref_depth(text: str) -> bool:
    in_string = escaped = False
    depth = worst = 0
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            depth += 1
            worst = max(worst, depth)
        elif c in "}]":
            depth = max(depth - 1, 0)
    return worst <= 128


ALPHABET = '{}[]",:\\ u0123456789abcdefABCDEF.eE+-xyé\u0301\u00e9Dd8cntrue\x00'
texts = st.text(alphabet=ALPHABET, max_size=80)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=20,
)


def _all(text: str) -> tuple:
    return (
        guards.numbers_safe(text),
        guards.keys_safe(text),
        guards.unicode_keys_safe(text),
        guards.digits_safe(text),
        guards.first_agreement_unsafe_number(text),
        guards.surrogates_safe(text),
        guards.depth_safe(text),
    )


def _ref(text: str) -> tuple:
    return (
        ref_numbers(text),
        ref_keys(text),
        ref_keys(text, nfd),
        ref_digits(text),
        ref_agreement(text),
        ref_surrogates(text),
        ref_depth(text),
    )


@given(texts)
def test_guards_equal_the_character_folds_on_hostile_text(text: str) -> None:
    assert _all(text) == _ref(text)


@given(json_values)
def test_guards_equal_the_character_folds_on_json(value: object) -> None:
    text = json.dumps(value, ensure_ascii=False)
    assert _all(text) == _ref(text)


def test_depth_bound_is_128() -> None:
    # Host/NestingDepth.lean #guard: 128 accepted, 129 refused, strings do not nest.
    assert guards.depth_safe("[" * 128 + "]" * 128)
    assert not guards.depth_safe("[" * 129 + "]" * 129)
    assert guards.depth_safe('{"a":"' + "[" * 500 + '"}')


def test_exponent_and_digit_bounds() -> None:
    assert guards.numbers_safe('{"v":1e999999}') and not guards.numbers_safe('{"v":1e1000000}')
    assert guards.numbers_safe('{"v":"1e99999999"}')  # quoted: inert
    assert guards.digits_safe("[" + "1" * 18 + "]") and not guards.digits_safe("[" + "1" * 19 + "]")


def test_binary64_agreement() -> None:
    safe = ["0", "-0", "1", "1E+02", "0.1", "1e-309", "9007199254740992", "-0.0", "1.5e300"]
    unsafe = ["1e309", "-1e309", "1e-999999", "9007199254740993", "0.1000000000000000055"]
    for literal in safe:
        assert guards.number_literal_agreement_safe(literal) is True, literal
    for literal in unsafe:
        assert guards.number_literal_agreement_safe(literal) is False, literal
    assert guards.number_literal_agreement_safe("1-2") is None  # not a number: left to parse
    # Integer syntax is bounded at 16 significant digits before any conversion.
    assert guards.number_literal_agreement_safe("18446744073709551616") is False


def _integer_agrees(literal: str) -> bool | None:
    """The rule for integer syntax, from its statement: None off the JSON integer grammar,
    else at most 16 significant digits and exactly a binary64."""
    body = literal.removeprefix("-")
    if not (body.isascii() and body.isdigit()) or (body[0] == "0" and body != "0"):
        return None
    significant = body.lstrip("0").rstrip("0")
    return len(significant) <= 16 and Fraction(float(int(literal))) == int(literal)


@given(
    st.integers(-(10**17), 10**17).map(str)
    | st.from_regex(r"-?[0-9\uff10\u0660]{1,18}", fullmatch=True)
)
def test_integer_literals_agree_as_the_rule_says(literal: str) -> None:
    # Short integers are answered without the decimal-to-binary conversion; the answer is
    # the rule's for every integer spelling, and None for what is not one (other digits,
    # leading zeros).
    expected = _integer_agrees(literal)
    got = guards.number_literal_agreement_safe(literal)
    assert got is expected or (expected is None and got is None), (literal, got, expected)


def test_keys_escaped_duplicate_and_unicode_equivalent() -> None:
    assert not guards.keys_safe('{"a":1,"a":2}')
    assert guards.keys_safe('{"a":{"a":1}}')  # one per object
    assert not guards.keys_safe('{"\\u0061":1}')  # any escape in a key refuses
    assert guards.keys_safe('{"a":"\\u0061"}')  # escapes in values are inert
    assert not guards.keys_safe("]")  # stray closer
    composed, decomposed = "\u00e9", "e\u0301"
    line = json.dumps({composed: 1, decomposed: 2}, ensure_ascii=False)
    assert guards.keys_safe(line) and not guards.unicode_keys_safe(line)


def test_unicode_17_marks_outside_python_14() -> None:
    # U+1E4EF is a combining mark (class 230) assigned after Unicode 14: Python 3.11's tables
    # would not reorder it, the kernel's Unicode 17 tables do.
    a, b = "a\u0316\U0001e4ef", "a\U0001e4ef\u0316"
    assert nfd(a) == nfd(b)
    line = json.dumps({a: 1, b: 2}, ensure_ascii=False)
    assert not guards.unicode_keys_safe(line)


def test_surrogate_escapes() -> None:
    assert not guards.surrogates_safe('["\\ud800"]')
    assert not guards.surrogates_safe('["\\udc00\\ud800"]')
    assert guards.surrogates_safe('["\\ud83d\\ude00"]')
    assert guards.surrogates_safe('["\\u12"]')  # incomplete escape: not this class
    assert not guards.surrogates_safe('"\\ud800')  # a high escape ends the text


def test_first_failed_guard_order() -> None:
    line = '{"a":1,"a":1e9999999}'
    assert guards.first_failed_guard(line) == "numbers"
    assert guards.first_failed_guard(line, frozenset({"keys"})) == "keys"
    assert guards.first_failed_guard('{"a":1}') is None
