"""Seal's producer byte rule: compact serde_json output in producer member order.

seal-host serializes with serde_json (``preserve_order``; no ``arbitrary_precision``), so a
parsed value is written back compactly, members in insertion order, non-ASCII raw, and numbers
through serde's own number model: u64/i64 integers, everything else an f64 written by ryu.
See docs/byte-rules.md for the upstream files this mirrors.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from json.encoder import encode_basestring

import orjson

from sealverify._internal import fastpath
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue
from sealverify.errors import InputError

__all__ = [
    "NumberNotRepresentable",
    "compact",
    "compact_bytes",
    "float_text",
    "number_default",
    "number_text",
    "parse_number",
    "string_text",
]

_U64_MAX = 2**64 - 1
_I64_MIN = -(2**63)
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]')


class NumberNotRepresentable(InputError, ValueError):
    """serde_json would refuse this number, or would not write it back with the same spelling."""


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _ESCAPES.get(char) or f"\\u{ord(char):04x}"


def string_text(value: str) -> str:
    """A JSON string as serde_json writes it: only ``"``, ``\\`` and C0 escaped."""
    return '"' + _NEEDS_ESCAPE.sub(_escape, value) + '"'


# CPython's C string encoder (``json`` with ensure_ascii off) escapes exactly ``"``, ``\\``
# and C0, with serde's short forms and lowercase ``\u00xx``, and writes everything else raw:
# the same text as :func:`string_text` for every code point (tests/test_serdejson_fast.py
# checks all of them). It is the hot path of byte reconstruction.
_string = encode_basestring


_POW10 = [float(f"1e{i}") for i in range(309)]
_I32_MAX = 2**31 - 1
_NUMBER = re.compile(r"(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?)([0-9]+))?")


def _overflows(acc: int, digit: int, limit: int) -> bool:
    return acc >= limit // 10 and (acc > limit // 10 or digit > limit % 10)


def _f64_from_parts(significand: int, exponent: int, lexeme: str) -> float:
    """serde_json's default (not ``float_roundtrip``) f64 assembly: not correctly rounded."""
    value = float(significand)
    while True:
        if abs(exponent) <= 308:
            if exponent >= 0:
                value *= _POW10[exponent]
                if math.isinf(value):
                    raise NumberNotRepresentable(f"number {lexeme[:40]} is out of range (f64)")
            else:
                value /= _POW10[-exponent]
            return value
        if value == 0.0:
            return value
        if exponent >= 0:
            raise NumberNotRepresentable(f"number {lexeme[:40]} is out of range (f64)")
        value /= 1e308
        exponent += 308


def parse_number(lexeme: str) -> int | float:
    """The value serde_json (1.0.151, default features) parses from a JSON number lexeme.

    Mirrors serde-rs/json ``src/de.rs`` ``parse_integer`` .. ``f64_from_parts``: u64 for
    non-negative integers that fit, i64 for negative ones, f64 otherwise (``-0`` included),
    assembled as ``significand * 10^exp`` without correct rounding. Raises
    :class:`NumberNotRepresentable` where serde reports "number out of range".
    """
    match = _NUMBER.fullmatch(lexeme)
    if match is None:
        raise NumberNotRepresentable(f"{lexeme[:40]!r} is not a JSON number")
    negative, whole, fraction, exp_sign, exp_digits = match.groups()
    if fraction is None and exp_digits is None and len(whole) <= 19:
        # Below 10^19 < 2^64: the digit loop would never overflow, so it reads int(whole).
        significand = int(whole)
        if not negative:
            return significand
        if 0 < significand <= 2**63:
            return -significand
        return -float(significand)
    significand = 0
    exponent = 0
    overflowed = False
    for char in whole:
        digit = ord(char) - 48
        if overflowed or _overflows(significand, digit, _U64_MAX):
            overflowed = True
            exponent += 1
        else:
            significand = significand * 10 + digit
    if fraction is None and exp_digits is None and not overflowed:
        if not negative:
            return significand
        if 0 < significand <= 2**63:
            return -significand
        return -float(significand)
    if fraction is not None:
        for char in fraction:
            digit = ord(char) - 48
            if _overflows(significand, digit, _U64_MAX):
                break
            significand = significand * 10 + digit
            exponent -= 1
    if exp_digits is not None:
        exp_value = 0
        for char in exp_digits:
            digit = ord(char) - 48
            if _overflows(exp_value, digit, _I32_MAX):
                if significand != 0 and exp_sign != "-":
                    raise NumberNotRepresentable(f"number {lexeme[:40]} is out of range (f64)")
                return -0.0 if negative else 0.0
            exp_value = exp_value * 10 + digit
        exponent = exponent - exp_value if exp_sign == "-" else exponent + exp_value
        exponent = max(-(2**31), min(_I32_MAX, exponent))
    value = _f64_from_parts(significand, exponent, lexeme)
    return -value if negative else value


def float_text(value: float) -> str:
    """Format a finite f64 as serde_json 1.0.151 does (zmij ``format_finite``).

    Shortest round-trip digits; fixed notation when the first digit's decimal exponent k is
    in [-5, 15] (integers get ``.0``); otherwise ``d.ddde+k`` / ``d.ddde-k``.
    """
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    point = (int(exp_text) if exp_text else 0) + len(whole.lstrip("0") or "")
    if not whole.strip("0"):
        point = (int(exp_text) if exp_text else 0) - (len(frac) - len(frac.lstrip("0")))
    k = point - 1
    digits = digits.rstrip("0")
    n = len(digits)
    if -5 <= k <= 15:
        if n - 1 <= k:
            return sign + digits + "0" * (k - n + 1) + ".0"
        if k >= 0:
            return sign + digits[: k + 1] + "." + digits[k + 1 :]
        return sign + "0." + "0" * (-k - 1) + digits
    body = digits[0] + ("." + digits[1:] if n > 1 else "")
    return f"{sign}{body}e{'+' if k >= 0 else '-'}{abs(k)}"


def number_text(number: JsonNumber) -> str:
    """The text serde_json writes for the number it parses from ``number.lexeme``."""
    return _lexeme_text(number.lexeme)


@fastpath.cache(maxsize=4096)
def _lexeme_text(lexeme: str) -> str:
    # Pure in the lexeme; receipts repeat the same few numbers (epochs, versions, lengths).
    value = parse_number(lexeme)
    return str(value) if isinstance(value, int) else float_text(value)


def compact(
    value: JsonValue, *, exact: bool = False, sort_keys: bool = False, renumber: bool = False
) -> str:
    """Serialize ``value`` compactly in producer member order, as serde_json would.

    With ``exact``, every number must already be spelled as serde writes it (we are rebuilding
    bytes that serde produced and someone signed); otherwise :class:`NumberNotRepresentable`.
    With ``sort_keys``, every object's members are written in Unicode scalar (= UTF-8 byte)
    order instead, arrays kept: the same text as compacting ``identities.sort_keys(value)``.
    With ``renumber`` (not with ``exact``), each number is rendered twice, the text of the
    text: the same as compacting ``identities.sort_keys(value, renumber=True)`` when sorted.
    """
    if fastpath.reference():
        return _reference(value, exact, sort_keys, renumber)
    data = _orjson_bytes(value, exact, sort_keys, renumber)
    if data is None:
        return _reference(value, exact, sort_keys, renumber)
    return data.decode("utf-8")


def compact_bytes(value: JsonValue, *, exact: bool = False, sort_keys: bool = False) -> bytes:
    """``compact(...).encode("utf-8")`` (what gets hashed or signed), without the str trip."""
    data = None if fastpath.reference() else _orjson_bytes(value, exact, sort_keys)
    return data if data is not None else _reference(value, exact, sort_keys).encode("utf-8")


def _reference(value: JsonValue, exact: bool, sort_keys: bool, renumber: bool = False) -> str:
    parts: list[str] = []
    _write(
        value,
        parts,
        _rendered_twice if renumber else _exact_text if exact else number_text,
        sort_keys,
    )
    return "".join(parts)


def number_default(
    lexeme_fragment: Callable[[str], orjson.Fragment],
) -> Callable[[object], orjson.Fragment]:
    """An orjson ``default`` hook: a JsonNumber becomes ``lexeme_fragment(lexeme)``.

    orjson calls it for every value it cannot write itself; anything but a JsonNumber is not
    a JSON value and is refused (TypeError), so orjson gives up and callers fall back.
    """

    def default(value: object) -> orjson.Fragment:
        if isinstance(value, JsonNumber):
            return lexeme_fragment(value.lexeme)
        raise TypeError(f"not a JSON value: {type(value).__name__}")

    return default


# A Fragment is an immutable wrapper of its text, so one per lexeme serves every document;
# the bound matches _lexeme_text's. A refusal is never cached (it raises afresh).
@fastpath.cache(maxsize=4096)
def _lexeme_fragment(lexeme: str) -> orjson.Fragment:
    return orjson.Fragment(_lexeme_text(lexeme))


@fastpath.cache(maxsize=4096)
def _exact_lexeme_fragment(lexeme: str) -> orjson.Fragment:
    return orjson.Fragment(_exact_text(JsonNumber(lexeme)))


def _rendered_twice(number: JsonNumber) -> str:
    # The host renders _meta, parses that text and renders it again (identities._renumber).
    return _lexeme_text(_lexeme_text(number.lexeme))


@fastpath.cache(maxsize=4096)
def _twice_lexeme_fragment(lexeme: str) -> orjson.Fragment:
    return orjson.Fragment(_rendered_twice(JsonNumber(lexeme)))


_DEFAULT = number_default(_lexeme_fragment)
_EXACT_DEFAULT = number_default(_exact_lexeme_fragment)
_TWICE_DEFAULT = number_default(_twice_lexeme_fragment)


def _orjson_bytes(
    value: JsonValue, exact: bool, sort_keys: bool, renumber: bool = False
) -> bytes | None:
    """:func:`compact_bytes` by orjson, or None where only :func:`_reference` can say."""
    # orjson writes strings exactly as serde does (only ``"``, ``\\`` and C0 escaped, the
    # rest raw; tests/perf/test_verify_perf.py compares every code point) and keeps dict order;
    # numbers go through our serde number model as pre-rendered fragments. Its OPT_SORT_KEYS
    # compares keys as UTF-8 bytes, which is scalar order (tests/perf/test_bindings_perf.py checks
    # it against ``sorted``). Values orjson refuses (lone surrogates, nesting past its limit)
    # take the reference writer.
    option = orjson.OPT_PASSTHROUGH_DATACLASS  # JsonNumber goes to ``default``
    try:
        return orjson.dumps(
            value,
            default=_TWICE_DEFAULT if renumber else _EXACT_DEFAULT if exact else _DEFAULT,
            option=option | orjson.OPT_SORT_KEYS if sort_keys else option,
        )
    except orjson.JSONEncodeError as exc:
        if isinstance(exc.__cause__, NumberNotRepresentable):
            raise exc.__cause__ from None
    return None


def _exact_text(value: JsonNumber) -> str:
    text = _lexeme_text(value.lexeme)
    if text != value.lexeme:
        raise NumberNotRepresentable(
            f"number {value.lexeme[:40]} is not spelled as serde_json writes it ({text[:40]})"
        )
    return text


def _write(
    value: JsonValue, out: list[str], number: Callable[[JsonNumber], str], sort_keys: bool
) -> None:
    # Most frequent types first; the output is the same as testing them in any order.
    if isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for key in sorted(value) if sort_keys else value:
            if first:
                first = False
            else:
                out.append(",")
            out.append(_string(key))
            out.append(":")
            _write(value[key], out, number, sort_keys)
        out.append("}")
    elif isinstance(value, JsonNumber):
        out.append(number(value))
    elif isinstance(value, list):
        out.append("[")
        first = True
        for item in value:
            if first:
                first = False
            else:
                out.append(",")
            _write(item, out, number, sort_keys)
        out.append("]")
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    else:
        out.append("false")
