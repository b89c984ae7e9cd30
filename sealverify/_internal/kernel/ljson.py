"""Lean 4 ``Json`` as the kernel sees it: ``Json.parse``, ``Json.compress`` and the accessors.

The kernel reads every request line, step envelope and config payload through Lean core's
``Lean.Json.parse`` (toolchain v4.28.0, ``Lean/Data/Json/Parser.lean``) and the accessors of
``Lean/Data/Json/Basic.lean``. What matters for a re-derivation:

* numbers are exact ``JsonNumber`` values (mantissa, decimal exponent), never floats;
* objects keep the *last* of duplicate members (``TreeMap.insert``) and print keys sorted by
  Unicode scalar;
* an unpaired UTF-16 surrogate escape decodes to U+FFFD instead of failing;
* ``getNat?`` accepts only a number whose exponent is 0 and mantissa is not negative, so
  ``1e2`` is the natural 100 while ``1.0`` is not a natural at all.

Values are plain Python: ``None`` (null), ``bool``, ``str``, :class:`LeanNumber`, ``list`` and
``dict``. Parsing uses the standard library's C scanner with hooks (the grammar is the same
RFC 8259 grammar Lean parses), then fixes the two places where the result differs.
"""

from __future__ import annotations

import json
import re
from typing import TypeAlias

from sealverify._internal import fastpath
from sealverify._internal.wire.leanjson import LeanNumber, compress, lean_number
from sealverify.errors import InputError

__all__ = [
    "ABSENT",
    "Absent",
    "LValue",
    "LeanError",
    "ModelLimit",
    "compress",
    "get_arr",
    "get_bool",
    "get_nat",
    "get_obj",
    "get_obj_val",
    "get_obj_val_opt",
    "get_str",
    "is_nat",
    "nat_json",
    "number_of_lexeme",
    "parse",
    "parse_or_none",
]

LValue: TypeAlias = bool | str | LeanNumber | list["LValue"] | dict[str, "LValue"] | None


class LeanError(InputError, ValueError):
    """A Lean ``Except.error``: the message is the exact text Lean would carry."""


class ModelLimit(InputError):
    """An input this model declines to evaluate (the kernel would, at a cost we refuse).

    Raised for numbers whose exact value would need more than :data:`MAX_DIGITS` digits and for
    nesting deeper than :data:`MAX_PARSE_DEPTH` outside the kernel's own depth guard. The
    re-derivation reports such a case as not evaluated, never as a pass or a failure.
    """


# A mantissa past this many digits is refused by every current build's wire guards (18
# significant digits, 6 exponent digits, binary64 agreement); only an unguarded legacy build
# or a host-authored envelope could carry one, and none does honestly.
MAX_DIGITS = 4000
MAX_PARSE_DEPTH = 512

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# A string token may be left open: it then runs to the end of the text (or stops before a lone
# trailing backslash), so a quote that opens no closed string is found in one pass, where a
# token that needs its closing quote was retried from every later quote (quadratic time). The
# repeats are possessive: a greedy one kept backtracking state for every escape.
_BRACKET_OR_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:(")|\\?\Z)|[\[\]{}]', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


_NEW = object.__new__
# The slots' own setters (a frozen dataclass's ``__init__`` sets each by name, at twice the cost).
_SET_NEGATIVE, _SET_DIGITS, _SET_EXPONENT = (
    LeanNumber.__dict__[name].__set__ for name in LeanNumber.__slots__
)


@fastpath.cache(maxsize=4096)
def number_of_lexeme(lexeme: str) -> LeanNumber:
    """One number lexeme as the model's exact number (:class:`ModelLimit` past the limits)."""
    body = lexeme[1:] if lexeme[:1] == "-" else lexeme
    if 0 < len(body) <= 18 and body.isascii() and body.isdigit() and body[0] != "0":
        # Plain digits without a leading zero: ``lean_number`` gives exactly these digits,
        # exponent 0, the sign kept (the number is not zero); built without its parse.
        number: LeanNumber = _NEW(LeanNumber)
        _SET_NEGATIVE(number, body is not lexeme)
        _SET_DIGITS(number, body)
        _SET_EXPONENT(number, 0)
        return number
    try:
        number = lean_number(lexeme)
    except ValueError as exc:
        raise ModelLimit(f"number {lexeme[:40]!r}: {exc}") from None
    if len(number.digits) > MAX_DIGITS:
        raise ModelLimit(f"number {lexeme[:40]!r} has more than {MAX_DIGITS} digits")
    return number


def _no_constant(name: str) -> LValue:
    raise ValueError(f"unexpected input {name}")


_DECODER = json.JSONDecoder(
    parse_float=number_of_lexeme,
    parse_int=number_of_lexeme,
    parse_constant=_no_constant,
    strict=True,
)


def _peak_depth(text: str) -> int:
    """The deepest bracket nesting, counting brackets outside closed string literals.

    A quote that opens no closed string is not a string: the brackets after it count. Every
    later quote then fails to close too (the scan from the first one passed each of them as
    the second character of an escape), so the rest of the text is counted as brackets alone.
    """
    depth = peak = 0
    for match in _BRACKET_OR_STRING.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            peak = max(peak, depth)
        elif token in "]}":
            depth -= 1
        elif match.group(1) is None:  # a string left open
            for bracket in _BRACKET.findall(text, match.start() + 1):
                if bracket in "[{":
                    depth += 1
                    peak = max(peak, depth)
                else:
                    depth -= 1
            break
    return peak


def _replace_lone_surrogates(value: LValue) -> LValue:
    # Lean decodes an unpaired surrogate escape to U+FFFD and joins a valid pair exactly as
    # Python does, so only the lone halves Python keeps need replacing (keys and values).
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_replace_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {
            _SURROGATE.sub("\ufffd", key): _replace_lone_surrogates(item)
            for key, item in value.items()
        }
    return value


def parse(text: str) -> LValue:
    """``Json.parse``: the value, or :class:`LeanError` when Lean would return an error.

    The error text is not Lean's (``offset N: ...``); no re-derived output carries it, because
    every caller whose output would show it is reached only after a stricter gate.
    """
    if text.count("[") + text.count("{") > MAX_PARSE_DEPTH and _peak_depth(text) > (
        MAX_PARSE_DEPTH
    ):
        raise ModelLimit(f"nesting deeper than {MAX_PARSE_DEPTH} levels")
    try:
        value: LValue = _DECODER.decode(text)
    except ModelLimit:
        raise
    except (ValueError, RecursionError) as exc:
        raise LeanError(f"invalid JSON: {exc}") from None
    if _SURROGATE_ESCAPE.search(text):
        value = _replace_lone_surrogates(value)
    return value


def parse_or_none(text: str) -> LValue | LeanError:
    """:func:`parse`, with the error returned instead of raised (``ModelLimit`` still raises)."""
    try:
        return parse(text)
    except LeanError as exc:
        return exc


@fastpath.cache(maxsize=256, typed=True)
def nat_json(value: int) -> LeanNumber:
    """``toJson (n : Nat)``: the number ``⟨n, 0⟩``."""
    return LeanNumber(False, str(value), 0)


# --- accessors (Lean/Data/Json/Basic.lean), with Lean's error texts ---------------------------


def get_obj(value: LValue) -> dict[str, LValue]:
    if isinstance(value, dict):
        return value
    raise LeanError("object expected")


def get_obj_val(value: LValue, key: str) -> LValue:
    """``getObjVal?``: the member, else ``property not found: k`` / ``object expected``."""
    if isinstance(value, dict):
        if key in value:
            return value[key]
        raise LeanError(f"property not found: {key}")
    raise LeanError("object expected")


class Absent:
    """The type of :data:`ABSENT`: a member that is not there (``None`` is JSON null)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = Absent()


def get_obj_val_opt(value: LValue, key: str) -> LValue | Absent:
    """``getObjValOpt`` (mcp-seal ``Seal/JsonUtil.lean``): object required, member optional."""
    return get_obj(value).get(key, ABSENT)


def get_str(value: LValue) -> str:
    if isinstance(value, str):
        return value
    raise LeanError("String expected")


def get_bool(value: LValue) -> bool:
    if isinstance(value, bool):
        return value
    raise LeanError("Bool expected")


def get_arr(value: LValue) -> list[LValue]:
    if isinstance(value, list):
        return value
    raise LeanError("array expected")


def is_nat(value: LValue) -> bool:
    """Whether ``getNat?`` succeeds: exponent 0 and mantissa not negative."""
    return isinstance(value, LeanNumber) and value.exponent == 0 and not value.negative


def get_nat(value: LValue) -> int:
    """``getNat?``: ``1e2`` is 100, ``1.0`` and ``-1`` are errors (``Natural number expected``)."""
    if isinstance(value, LeanNumber) and value.exponent == 0 and not value.negative:
        return int(value.digits)
    raise LeanError("Natural number expected")
