"""A one-pass proof that a request line passes all seven wire guards, with its parse.

``classifyLine`` runs seven character scans (:mod:`sealverify._internal.kernel.guards`) and then
``Json.parse``. For a line that is valid JSON (by the standard library's C scanner), has no
escaped member name and no surrogate escape and nests at most 128 levels, every scan reduces
to a question about the parse itself, so one C-speed decode with hooks answers all seven and
gives the parse:

* outside string literals such a line holds only structural characters, whitespace, the
  literals ``true``/``false``/``null`` and number lexemes, each lexeme ended by a character
  that resets every numeric scan; so the exponent bound, the mantissa-digit bound and the
  binary64 agreement are each a property of one lexeme (the scanner hands each lexeme to a
  hook verbatim);
* the key scan's "expect key" flag marks exactly the member names, a valid text has no stray
  closer, and a name without a backslash is its decoded text; so for a text with no escaped
  name the two key scans are "no object repeats a name" (raw, and under NFD for non-ASCII
  names);
* no surrogate escape, no unpaired one; at most 128 brackets, no deeper nesting.

Anything else (invalid JSON, an escaped name, a surrogate escape, a constant such as
``NaN``, a lexeme or object any guard would refuse, a hook or model error) is not proven, and
the caller runs the scans and ``Json.parse`` as the kernel does. The proof never refuses a
line: refusals always come from the scans.

:func:`proven_parsed` gives the same answer from a strict parse the receipt's reader already
made of the same characters (``wire.strictjson``: the same C scanner, ``strict=True``, no
constant, no repeated name), so the line is parsed once per receipt: only the number lexemes
and, for a non-ASCII text, the names under NFD are left to check, by a walk of the parse.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from sealverify._internal import fastpath
from sealverify._internal.kernel.guards import (
    MAX_EXPONENT_DIGITS,
    MAX_NESTING_DEPTH,
    MAX_SIGNIFICANT_DIGITS,
    number_literal_agreement_safe,
)
from sealverify._internal.kernel.ljson import LValue, number_of_lexeme
from sealverify._internal.kernel.unicode_nfd import nfd
from sealverify._internal.wire.leanjson import LeanNumber
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue

__all__ = ["UNPROVEN", "Unproven", "proven_parsed", "proven_request"]


class Unproven:
    """The type of :data:`UNPROVEN`: the cue could not prove the line; run the scans."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNPROVEN"


UNPROVEN = Unproven()


class _NotProven(Exception):
    """Raised from a hook: some guard might refuse this text."""


# The line read token by token from its start: a run outside literals, a literal without an
# escape, or a literal with one that no colon follows (a value). The walk stops at the first
# literal that is none of these (an escaped member name, or a literal that never closes), so it
# covers the whole of a valid text exactly when no member name holds an escape. Every token is
# possessive and each literal is read once: a search for "an escape, the rest of a literal,
# then a colon" started again from every backslash, which took quadratic time on a value of
# escaped quotes (a 64 kB argument of \" escapes took 35 s).
_UP_TO_AN_ESCAPED_NAME = re.compile(
    r'(?:[^"]++|"[^"\\]*+"|"[^"\\]*+(?:\\.[^"\\]*+)++"(?![ \t\n\r]*+:))*+', re.DOTALL
)
# A surrogate escape anywhere (paired or not): such lines go to the scans.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

# A JSON number lexeme as the C scanner hands it over: integer part, fraction, exponent.
_LEXEME = re.compile(r"-?([0-9]+)(?:\.([0-9]+))?(?:[eE][+\-]?([0-9]+))?")


def _number(lexeme: str) -> LeanNumber:
    body = lexeme[1:] if lexeme[:1] == "-" else lexeme
    if 0 < len(body) <= 15 and body.isascii() and body.isdigit() and body[0] != "0":
        # Integer syntax below 10^15 without a leading zero: no exponent, at most 15 digits,
        # exactly a binary64 (``number_literal_agreement_safe``'s own first case).
        return number_of_lexeme(lexeme)
    match = _LEXEME.fullmatch(lexeme)
    if match is None:
        raise _NotProven
    integer, fraction, exponent = match.groups()
    if exponent is not None and len(exponent) > MAX_EXPONENT_DIGITS:
        raise _NotProven  # wireNumbersSafe
    if len(integer) + (len(fraction) if fraction else 0) > MAX_SIGNIFICANT_DIGITS:
        raise _NotProven  # wireDigitsSafe
    if number_literal_agreement_safe(lexeme) is False:
        raise _NotProven  # wireNumbersAgreementSafe
    return number_of_lexeme(lexeme)


def _object(pairs: list[tuple[str, LValue]]) -> dict[str, LValue]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise _NotProven  # wireKeysSafe: a repeated name
    return value


def _object_nfd(pairs: list[tuple[str, LValue]]) -> dict[str, LValue]:
    """:func:`_object` for a text with non-ASCII characters: names distinct under NFD too."""
    value = _object(pairs)
    if len({nfd(key) for key in value}) != len(value):
        raise _NotProven  # UnicodeKeys.wireKeysSafe: two names equal under NFD
    return value


def _escaped_name_possible(text: str) -> bool:
    """False only when no member name of ``text`` holds an escape (if ``text`` is valid JSON)."""
    walked = _UP_TO_AN_ESCAPED_NAME.match(text)
    return walked is None or walked.end() != len(text)


def _constant(_name: str) -> LValue:
    raise _NotProven


def _decoder(
    object_hook: Callable[[list[tuple[str, LValue]]], dict[str, LValue]],
) -> json.JSONDecoder:
    return json.JSONDecoder(
        object_pairs_hook=object_hook,
        parse_float=_number,
        parse_int=_number,
        parse_constant=_constant,
        strict=True,
    )


# NFD is the identity on ASCII, so an ASCII text needs only the raw-name check.
_ASCII_DECODER = _decoder(_object)
_DECODER = _decoder(_object_nfd)


def proven_request(trimmed: str) -> LValue | Unproven:
    """``Json.parse`` of an ASCII-trimmed line proven to pass every guard, else UNPROVEN.

    When a value is returned, ``first_failed_guard(trimmed, g)`` is None for every guard set
    ``g`` and ``ljson.parse(trimmed)`` returns an equal value. In reference mode
    (:func:`sealverify._internal.fastpath.reference`) nothing is proven: every guard and the parse
    run.
    """
    if fastpath.reference() or trimmed.count("[") + trimmed.count("{") > MAX_NESTING_DEPTH:
        return UNPROVEN
    if "\\" in trimmed and (_escaped_name_possible(trimmed) or _SURROGATE_ESCAPE.search(trimmed)):
        return UNPROVEN
    try:
        decoder = _ASCII_DECODER if trimmed.isascii() else _DECODER
        value: LValue = decoder.decode(trimmed)
    except Exception:  # any failure leaves the line to the kernel's own scans
        return UNPROVEN
    return value


def _lean(value: JsonValue, ascii_text: bool) -> LValue:
    """A strict parse in the model's representation, checked as the decoder hooks check it.

    Numbers go through :func:`_number` (the three numeric guards), objects of a non-ASCII text
    through the NFD name test; a container holding no number is returned as it is (both
    representations spell strings, booleans and null alike), so the result may share
    containers with ``value``: neither is ever changed.
    """
    kind = type(value)
    if kind is JsonNumber:
        return _number(value.lexeme)  # type: ignore[union-attr]
    if kind is dict:
        members: dict[str, JsonValue] = value  # type: ignore[assignment]
        if not ascii_text and len({nfd(key) for key in members}) != len(members):
            raise _NotProven  # UnicodeKeys.wireKeysSafe: two names equal under NFD
        out: dict[str, LValue] | None = None
        for key, item in members.items():
            if type(item) is str or item is None or type(item) is bool:
                continue
            lean = _lean(item, ascii_text)
            if lean is not item:
                if out is None:
                    out = dict(members)  # type: ignore[arg-type]
                out[key] = lean
        return members if out is None else out  # type: ignore[return-value]
    if kind is list:
        items: list[JsonValue] = value  # type: ignore[assignment]
        copied: list[LValue] | None = None
        for index, item in enumerate(items):
            if type(item) is str or item is None or type(item) is bool:
                continue
            lean = _lean(item, ascii_text)
            if lean is not item:
                if copied is None:
                    copied = list(items)  # type: ignore[arg-type]
                copied[index] = lean
        return items if copied is None else copied  # type: ignore[return-value]
    return value  # type: ignore[return-value]  # a string, a boolean or null


def proven_parsed(trimmed: str, parsed: JsonValue) -> LValue | Unproven:
    """:func:`proven_request` of ``trimmed``, from ``parsed``, a strict parse of its characters.

    ``parsed`` must be ``wire.strictjson.parse_text`` of a text whose ASCII trim is
    ``trimmed`` (the caller checks the bytes are the same): that parse ran the decoder this
    proof runs (the C scanner, ``strict=True``) and refused constants and repeated names, so
    what is left of the proof is the bracket count, the escape tests, the number lexemes and
    the NFD names. Returns exactly what :func:`proven_request` returns (UNPROVEN in reference
    mode); the value may share containers with ``parsed``.
    """
    if fastpath.reference() or trimmed.count("[") + trimmed.count("{") > MAX_NESTING_DEPTH:
        return UNPROVEN
    if "\\" in trimmed and (_escaped_name_possible(trimmed) or _SURROGATE_ESCAPE.search(trimmed)):
        return UNPROVEN
    try:
        return _lean(parsed, trimmed.isascii())
    except Exception:  # any failure leaves the line to the kernel's own scans
        return UNPROVEN
