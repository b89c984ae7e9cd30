"""Seal's kernel byte rule: Lean 4 ``Json.compress`` over values parsed by Lean's JSON parser.

Keys sorted by Unicode scalar (Lean ``String`` ``compare``); only ``"`` ``\\`` LF CR get short
escapes, every other C0 character is ``\\u00xx`` (so TAB is ``\\u0009``); numbers are Lean
``JsonNumber`` values (mantissa, exponent) printed by ``JsonNumber.toString``. Sources:
mcp-seal-dev ``Seal/Hash.lean``; Lean ``Lean/Data/Json/{Parser,Printer,Basic}.lean``
(toolchain v4.28.0). See docs/byte-rules.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import orjson

from sealverify._internal import fastpath
from sealverify._internal.wire.strictjson import JsonNumber

__all__ = ["LeanNumber", "compress", "lean_number", "number_text", "print_value", "string_text"]

_NUMBER = re.compile(r"(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?)([0-9]+))?")
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]')
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r"}


@dataclass(frozen=True, slots=True)
class LeanNumber:
    """A Lean ``JsonNumber``: value = (-1 if negative) * int(digits) * 10^-exponent.

    Kept as a digit string so that no arbitrary-precision conversion is ever needed.
    """

    negative: bool
    digits: str  # no leading zeros; "0" for zero
    exponent: int


def lean_number(lexeme: str) -> LeanNumber:
    """Parse a JSON number lexeme as Lean's ``num`` parser does (no normalization).

    ``1.0`` is (10, 1); ``1e3`` is (1000, 0); ``-0`` loses its sign. A positive exponent
    multiplies the mantissa (``shiftl``), a negative one adds to the exponent (``shiftr``).
    """
    match = _NUMBER.fullmatch(lexeme)
    if match is None:
        raise ValueError(f"{lexeme[:40]!r} is not a JSON number")
    sign, whole, fraction, exp_sign, exp_digits = match.groups()
    digits = whole + (fraction or "")
    exponent = len(fraction or "")
    if exp_digits is not None:
        if len(exp_digits.lstrip("0")) > 6:
            raise ValueError(
                f"{lexeme[:40]}: exponent over 6 digits (seal's wire guard refuses it)"
            )
        shift = int(exp_digits)
        if exp_sign == "-":
            exponent += shift
        else:
            digits += "0" * max(shift - exponent, 0)
            exponent = max(exponent - shift, 0)
    digits = digits.lstrip("0") or "0"
    return LeanNumber(bool(sign) and digits != "0", digits, exponent)


def number_text(number: LeanNumber) -> str:
    """``JsonNumber.toString``: integers verbatim, else fixed point, tiny values with ``e-x``."""
    sign = "-" if number.negative else ""
    if number.exponent == 0:
        return sign + number.digits
    count = len(number.digits)
    shift = 9 + count - number.exponent
    shift = shift if shift < 0 else 0
    width = number.exponent - abs(shift)  # E = 10^width
    if width >= count:
        left, remainder = "0", number.digits.rjust(width, "0")
    else:
        left, remainder = number.digits[: count - width], number.digits[count - width :]
    if shift == 0 and not remainder.strip("0"):
        return sign + left
    right = remainder.rstrip("0")
    suffix = "" if shift == 0 else f"e{shift}"
    return f"{sign}{left}.{right}{suffix}"


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _ESCAPES.get(char) or f"\\u{ord(char):04x}"


def string_text(value: str) -> str:
    """A string as Lean's printer writes it (``escapeAux``)."""
    return '"' + _NEEDS_ESCAPE.sub(_escape, value) + '"'


def compress(value: object) -> str:
    """Lean ``Json.compress``: :func:`print_value`, by orjson where it writes the same text.

    Numbers are received lexemes (:class:`JsonNumber`) or the kernel model's
    :class:`LeanNumber` values.
    """
    if not fastpath.reference():
        text = _orjson_text(value)
        if text is not None:
            return text
    return print_value(value)


# orjson's spelling of TAB, BS and FF (Lean writes ``\u0009``, ``\u0008``, ``\u000c``).
_SHORT_ESCAPE = re.compile(rb"\\[btf]")


def _orjson_text(value: object) -> str | None:
    """:func:`print_value` by orjson, or None where only the definition can say."""
    # orjson sorts keys by UTF-8 bytes (= scalar order, as ``sorted``) and escapes strings as
    # Lean does (tests/perf/test_bindings_perf.py compares every code point), except that it
    # writes TAB, BS and FF as ``\t`` ``\b`` ``\f`` where Lean writes ``\u00xx``. Any such
    # character leaves that two-character escape in the output; the check below also trips on
    # an escaped backslash before ``t``, ``b`` or ``f``, which only costs the definition's pass.
    # A refused number, a lone surrogate or deep nesting is left to the definition too.
    try:
        data = orjson.dumps(value, default=_number_fragment, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return None
    if b"\\" in data and _SHORT_ESCAPE.search(data):
        return None
    return data.decode("utf-8")


_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_SORT_KEYS


def _number_fragment(value: object) -> orjson.Fragment:
    if isinstance(value, JsonNumber):
        return _lexeme_fragment(value.lexeme)
    if isinstance(value, LeanNumber):
        return orjson.Fragment(number_text(value))
    raise TypeError(f"not a JSON value: {type(value).__name__}")


@fastpath.cache(maxsize=4096)
def _lexeme_fragment(lexeme: str) -> orjson.Fragment:
    # Pure in the lexeme; a refusal (ValueError) is not cached and raises afresh.
    return orjson.Fragment(number_text(lean_number(lexeme)))


def print_value(value: object) -> str:
    """``Json.compress`` by definition, over any parsed value.

    Numbers are either received lexemes (:class:`JsonNumber`) or Lean numbers
    (:class:`LeanNumber`, as the kernel model holds them).
    """
    out: list[str] = []
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            out.append(item[0])
        elif item is None:
            out.append("null")
        elif item is True:
            out.append("true")
        elif item is False:
            out.append("false")
        elif isinstance(item, str):
            out.append(string_text(item))
        elif isinstance(item, JsonNumber):
            out.append(number_text(lean_number(item.lexeme)))
        elif isinstance(item, LeanNumber):
            out.append(number_text(item))
        elif isinstance(item, list):
            pending: list[object] = [("[",)]
            for index, element in enumerate(item):
                if index:
                    pending.append((",",))
                pending.append(element)
            pending.append(("]",))
            stack.extend(reversed(pending))
        elif isinstance(item, dict):
            pending = [("{",)]
            for index, key in enumerate(sorted(item)):
                if index:
                    pending.append((",",))
                pending.append((string_text(key) + ":",))
                pending.append(item[key])
            pending.append(("}",))
            stack.extend(reversed(pending))
        else:
            raise TypeError(f"not a JSON value: {type(item).__name__}")
    return "".join(out)
