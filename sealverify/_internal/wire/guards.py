"""seal-host's pre-parse wire guards on a request line, reproduced as refusals.

seal-host refuses a line before its kernel sees it when a number literal has an exponent of
more than 6 digits or more than 18 significant digits, when a literal does not agree with
binary64 (``Seal/JsonUtil.lean`` ``numberLiteralAgreementSafe?``), when an object key is
written with a backslash escape, or when two keys of one object are canonically equivalent
under Unicode (seal-host ``Host/JsonWire.lean``; mcp-seal-dev ``Seal/JsonUtil.lean``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from sealverify._internal.wire.strictjson import JsonNumber, JsonValue

__all__ = ["escaped_keys", "number_refusal", "number_refusals", "unicode_equivalent_keys"]

_PARTS = re.compile(r"-?(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE][+-]?([0-9]+))?")
# A string literal of text that already parsed as strict JSON (every literal closes, so the
# token's closing quote is always found). Possessive: the engine keeps no backtracking state
# per escape (a greedy repeat kept about 150 bytes per escape: 2 MB of escapes took 146 MiB).
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL)


def number_refusal(lexeme: str) -> str | None:
    """Why seal-host would refuse this number literal, or None when it is admitted.

    Integer syntax: at most 16 significant digits and exactly representable in binary64.
    Fraction or exponent syntax: the value must be exactly the shortest decimal that
    round-trips through binary64 (so ``0.10`` and ``1.0`` pass, ``0.1000000000000000055``
    does not). Exponents over 6 digits and over 18 significant digits are refused first.
    """
    match = _PARTS.fullmatch(lexeme)
    if match is None:
        return "not a JSON number"
    whole, fraction, exp_digits = match.groups()
    if exp_digits is not None and len(exp_digits) > 6:
        return "exponent has more than 6 digits"
    significant = (whole + (fraction or "")).strip("0")
    if len(significant) > 18:
        return f"{len(significant)} significant digits (more than 18)"
    integer_syntax = fraction is None and exp_digits is None
    if integer_syntax and len(whole.lstrip("0")) > 16:
        return "integer with more than 16 significant digits"
    from decimal import Decimal, InvalidOperation  # loaded with the first number judged here

    try:
        exact = Decimal(lexeme)
        as_float = float(lexeme)
    except (InvalidOperation, ValueError):
        return "not a JSON number"
    if as_float in (float("inf"), float("-inf")):
        return "out of binary64 range"
    if integer_syntax:
        if Decimal(as_float) != exact:
            return "integer is not exactly representable in binary64"
        return None
    if Decimal(repr(as_float)) != exact:
        return "not the shortest decimal that round-trips through binary64"
    return None


def number_refusals(value: JsonValue) -> list[tuple[str, str]]:
    """Every (lexeme, reason) in ``value`` that seal-host's number guards refuse."""
    found: list[tuple[str, str]] = []
    stack: list[JsonValue] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, JsonNumber):
            reason = number_refusal(item.lexeme)
            if reason:
                found.append((item.lexeme, reason))
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return found


def escaped_keys(text: str) -> list[str]:
    """Object member names written with a backslash escape in the received text."""
    if "\\" not in text:  # every name found holds a backslash of the text: none to find
        return []
    return _escaped_keys_by_search(text)


def _escaped_keys_by_search(text: str) -> list[str]:
    """:func:`escaped_keys` string by string: for a text with a backslash, and the oracle."""
    found: list[str] = []
    pos = 0
    while True:
        match = _STRING.search(text, pos)
        if match is None:
            return found
        pos = match.end()
        rest = text[pos : pos + 64].lstrip(" \t\r\n")
        if rest.startswith(":") and "\\" in match.group():
            found.append(match.group()[:60])


def unicode_equivalent_keys(value: JsonValue) -> list[tuple[str, str]]:
    """Pairs of distinct keys of one object that are equal after NFC normalization."""
    return _equivalent_keys(value, _nfc)


def _nfc(key: str) -> str:
    # NFC leaves ASCII as it is; the test is far cheaper than the normalization
    return key if key.isascii() else unicodedata.normalize("NFC", key)


def _equivalent_keys(value: JsonValue, norm: Callable[[str], str]) -> list[tuple[str, str]]:
    """:func:`unicode_equivalent_keys` under ``norm`` (the oracle normalizes every key)."""
    found: list[tuple[str, str]] = []
    stack: list[JsonValue] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            seen: dict[str, str] = {}
            for key in item:
                normal = norm(key)
                if normal in seen:
                    found.append((seen[normal], key))
                seen.setdefault(normal, key)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
