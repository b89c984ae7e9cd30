"""The kernel's seven raw-wire guards (``Host.JsonWire.safe``), scanner for scanner.

seal-host ``Host/JsonWire.lean`` runs, in this order, over the ASCII-trimmed request line and
before ``Json.parse``: the exponent-length bound and the duplicate/escaped-key scan and the
significant-digit bound and the binary64-agreement scan (mcp-seal-dev ``Seal/JsonUtil.lean``),
the Unicode-canonical key scan (``Host/UnicodeKeys.lean``), the unpaired-surrogate scan
(``Host/SurrogateEscapes.lean``) and the nesting bound (``Host/NestingDepth.lean``). Any failure
is the ``refuse`` route. Each Lean scanner is a left fold over characters that tracks whether it
is inside a string literal; here the string literals are cut out by one regular expression with
the same escape rule (a backslash hides the next character, an unterminated string runs to the
end), and each scanner steps only through the text between them, which is where it acts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sealverify._internal import fastpath
from sealverify._internal.kernel.memo import text_cache
from sealverify._internal.kernel.unicode_nfd import nfd

__all__ = [
    "GUARD_ORDER",
    "MAX_EXPONENT_DIGITS",
    "MAX_NESTING_DEPTH",
    "MAX_SIGNIFICANT_DIGITS",
    "agreement_safe",
    "depth_safe",
    "digits_safe",
    "first_agreement_unsafe_number",
    "first_failed_guard",
    "keys_safe",
    "number_literal_agreement_safe",
    "numbers_safe",
    "surrogates_safe",
    "unicode_keys_safe",
]

MAX_EXPONENT_DIGITS = 6
MAX_SIGNIFICANT_DIGITS = 18
MAX_NESTING_DEPTH = 128

# One string literal: the opening quote, escape-aware content, and the closing quote if any.
# The content is written as runs of plain characters between escapes ("unrolled"): the same
# language as ``(?:[^"\\]|\\.)*`` and the same greedy match, without a step per character.
# The repeats are possessive: no backtrack can match more, and a greedy repeat kept state for
# every escape (about 150 bytes each: a 2 MB literal of escapes took 146 MiB).
_STRING = re.compile(r'"([^"\\]*+(?:\\.[^"\\]*+)*+)("?)', re.DOTALL)


Segment = tuple[str, str | None, bool]


@text_cache(64)
def _segments(text: str) -> tuple[Segment, ...]:
    """(outside run, string content or None, string closed) triples in text order.

    The final triple has content None when the text ends outside a string. An unterminated
    string (no closing quote, or a trailing lone backslash) is the whole rest of the text.
    Every guard reads the same cut, so it is made once per text.
    """
    out: list[Segment] = []
    pos = 0
    while True:
        start = text.find('"', pos)
        if start < 0:
            out.append((text[pos:], None, False))
            return tuple(out)
        match = _STRING.match(text, start)
        assert match is not None  # a quote always starts a (possibly empty) literal
        if not match.group(2):
            out.append((text[pos:start], text[start + 1 :], False))
            return tuple(out)
        out.append((text[pos:start], match.group(1), True))
        pos = match.end()


# --- wireNumbersSafe: no unquoted exponent longer than 6 digits --------------------------------


def numbers_safe(text: str) -> bool:
    """``Seal.JsonUtil.wireNumbersSafe`` (``numberScanStep``)."""
    if "e" not in text and "E" not in text:
        return True  # no exponent at all
    worst = 0
    for outside, _content, _closed in _segments(text):
        # Entering a string resets the exponent state, so each outside run starts clean.
        in_exp = False
        run = 0
        for char in outside:
            if in_exp:
                if "0" <= char <= "9":
                    run += 1
                    worst = max(worst, run)
                elif char in "+-":
                    pass
                else:
                    in_exp = False
                    run = 0
            elif char in "eE":
                in_exp = True
                run = 0
    return worst <= MAX_EXPONENT_DIGITS


# --- wireKeysSafe / UnicodeKeys.wireKeysSafe: keys unique (raw or under NFD), none escaped ------


def _keys_safe(text: str, identity: Callable[[str], str]) -> bool:
    # Frames: the set of seen key identities with the expect-key flag, or None for an array
    # (a set: a list made an object of n keys cost n*n/2 comparisons).
    stack: list[tuple[set[str], bool] | None] = []
    for outside, content, closed in _segments(text):
        for char in outside:
            if char == "{":
                stack.append((set(), True))
            elif char == "[":
                stack.append(None)
            elif char == "}":
                if not stack or stack[-1] is None:
                    return False
                stack.pop()
            elif char == "]":
                if not stack or stack[-1] is not None:
                    return False
                stack.pop()
            elif char == ",":
                top = stack[-1] if stack else None
                if top is not None:
                    stack[-1] = (top[0], True)
        if content is None:
            break
        top = stack[-1] if stack else None
        if top is None or not top[1]:
            continue  # a value string: inert to this scan
        if "\\" in content:
            return False  # an escape inside an object key is refused outright
        if not closed:
            break  # the key never ends: nothing further is decided
        key = identity(content)
        if key in top[0]:
            return False
        top[0].add(key)
        stack[-1] = (top[0], False)
    return True


@text_cache(256)
def keys_safe(text: str) -> bool:
    """``Seal.JsonUtil.wireKeysSafe``: no duplicate or escaped key, no stray closer."""
    return _keys_safe(text, _same)


def unicode_keys_safe(text: str) -> bool:
    """``Host.UnicodeKeys.wireKeysSafe``: no two keys of one object equal under NFD (Unicode 17)."""
    if text.isascii():
        # NFD is the identity on ASCII, so the scan is the raw-key scan.
        return keys_safe(text)
    return _keys_safe(text, nfd)


def _same(key: str) -> str:
    return key


# --- wireDigitsSafe: at most 18 mantissa digits in any unquoted number -------------------------


def digits_safe(text: str) -> bool:
    """``Seal.JsonUtil.wireDigitsSafe`` (``digitScanStep``)."""
    worst = 0
    for outside, _content, _closed in _segments(text):
        in_exp = False
        run = 0
        for char in outside:
            if char in "eE":
                in_exp = True
            elif char in "+-":
                pass
            elif "0" <= char <= "9":
                if not in_exp:
                    run += 1
                    worst = max(worst, run)
            elif char != ".":
                in_exp = False
                run = 0
    return worst <= MAX_SIGNIFICANT_DIGITS


# --- wireNumbersAgreementSafe: every unquoted number agrees with binary64 -----------------------

_NUMERIC = frozenset("0123456789-+.eE")


def first_agreement_unsafe_number(text: str) -> str | None:
    """``firstAgreementUnsafeNumber?``: the first numeric run a binary64 reader would misread."""
    for outside, _content, _closed in _segments(text):
        buf: list[str] | None = None
        for char in outside:
            if buf is not None:
                if char in _NUMERIC:
                    buf.append(char)
                    continue
                literal = "".join(buf)
                buf = None
                if number_literal_agreement_safe(literal) is False:
                    return literal
            if char == "-" or "0" <= char <= "9":
                buf = [char]
        if buf is not None:
            literal = "".join(buf)
            if number_literal_agreement_safe(literal) is False:
                return literal
    return None


def agreement_safe(text: str) -> bool:
    """``Seal.JsonUtil.wireNumbersAgreementSafe``."""
    return first_agreement_unsafe_number(text) is None


def _strip_leading_zeroes(digits: str) -> str:
    return digits.lstrip("0")


def _parse_wire_decimal(literal: str) -> tuple[str, int, bool] | None:
    """``parseWireDecimal?``: (significant digits, exp10, integer syntax), or None."""
    body = literal[1:] if literal.startswith("-") else literal
    cut = min((i for i in (body.find("e"), body.find("E")) if i >= 0), default=len(body))
    mantissa, exponent_part = body[:cut], body[cut:]
    exponent = 0
    if exponent_part:
        rest = exponent_part[1:]
        negative = rest.startswith("-")
        if rest[:1] in ("+", "-"):
            rest = rest[1:]
        if not rest or not rest.isascii() or not rest.isdigit():
            return None
        significant = _strip_leading_zeroes(rest)
        if len(significant) > MAX_EXPONENT_DIGITS:
            magnitude = 1_000_000
        else:
            magnitude = int(significant) if significant else 0
        exponent = -magnitude if negative else magnitude
    dot = mantissa.find(".")
    integer_part, fraction_part = (mantissa, "") if dot < 0 else (mantissa[:dot], mantissa[dot:])
    if not _valid_integer_part(integer_part):
        return None
    fraction_digits = fraction_part[1:]
    if fraction_part and not (fraction_digits and _all_digits(fraction_digits)):
        return None
    raw = _strip_leading_zeroes(integer_part + fraction_digits)
    stripped = raw.rstrip("0")
    trailing = len(raw) - len(stripped)
    exp10 = exponent - len(fraction_digits) + trailing
    return stripped, (exp10 if stripped else 0), not fraction_part and not exponent_part


def _all_digits(text: str) -> bool:
    # Every character "0".."9" (vacuously for ""): for an ASCII text, what isdigit() says.
    return not text or (text.isascii() and text.isdigit())


def _valid_integer_part(part: str) -> bool:
    if part == "0":
        return True
    return bool(part) and part[0] != "0" and _all_digits(part)


# A binary64 value is (significand, exp2), zero as (0, 0); None is overflow (infinity).
_Binary = tuple[int, int]


def _round_div_even(numerator: int, denominator: int) -> int:
    quotient, remainder = divmod(numerator, denominator)
    twice = 2 * remainder
    if twice < denominator:
        return quotient
    if twice > denominator:
        return quotient + 1
    return quotient if quotient % 2 == 0 else quotient + 1


def _scale2(numerator: int, denominator: int, shift: int) -> int:
    if shift >= 0:
        return _round_div_even(numerator << shift, denominator)
    return _round_div_even(numerator, denominator << -shift)


def _rational_to_binary(numerator: int, denominator: int) -> _Binary | None:
    """``rationalToBinary64?``: nearest-even binary64 of a positive rational; None overflows."""
    if numerator == 0:
        return (0, 0)
    guess = (numerator.bit_length() - 1) - (denominator.bit_length() - 1)
    below = numerator < denominator << guess if guess >= 0 else numerator << -guess < denominator
    exponent = guess - 1 if below else guess
    if exponent > 1023:
        return None
    if exponent >= -1022:
        significand = _scale2(numerator, denominator, 52 - exponent)
        if significand == 1 << 53:
            if exponent + 1 > 1023:
                return None
            return (1 << 52, exponent + 1 - 52)
        return (significand, exponent - 52)
    significand = _scale2(numerator, denominator, 1074)
    return (0, 0) if significand == 0 else (significand, -1074)


def _decimal_to_binary(coeff: int, exp10: int) -> _Binary | None:
    """``decimalToBinary64?``."""
    if coeff == 0:
        return (0, 0)
    if exp10 > 400:
        return None
    if exp10 < -400:
        return (0, 0)
    if exp10 >= 0:
        return _rational_to_binary(coeff * 10**exp10, 1)
    return _rational_to_binary(coeff, 10**-exp10)


def _ratio(binary: _Binary) -> tuple[int, int]:
    significand, exp2 = binary
    return (significand << exp2, 1) if exp2 >= 0 else (significand, 1 << -exp2)


def _decimal_equals(coeff: int, exp10: int, binary: _Binary) -> bool:
    numerator, denominator = _ratio(binary)
    if exp10 >= 0:
        return bool(coeff * 10**exp10 * denominator == numerator)
    return bool(coeff * denominator == numerator * 10**-exp10)


def _normalize(coeff: int, exp10: int) -> tuple[int, int]:
    if coeff == 0:
        return (0, 0)
    while coeff % 10 == 0:
        coeff //= 10
        exp10 += 1
    return (coeff, exp10)


def _decimal_exponent(binary: _Binary) -> int | None:
    """``binaryDecimalExponent?``: floor(log10 b), searched down to 10^-400."""
    numerator, denominator = _ratio(binary)
    if numerator >= denominator:
        return len(str(numerator // denominator)) - 1
    for k in range(1, 401):
        if numerator * 10**k >= denominator:
            return -k
    return None


def _shortest_decimal(binary: _Binary) -> tuple[int, int] | None:
    """``shortestDecimal?``: the nearest decimal with the fewest digits that round-trips."""
    if binary[0] == 0:
        return (0, 0)
    exponent = _decimal_exponent(binary)
    if exponent is None:
        return None
    numerator, denominator = _ratio(binary)
    for digits in range(1, 18):
        candidate_exp = exponent - (digits - 1)
        if candidate_exp >= 0:
            coeff = _round_div_even(numerator, denominator * 10**candidate_exp)
        else:
            coeff = _round_div_even(numerator * 10**-candidate_exp, denominator)
        candidate = _normalize(coeff, candidate_exp)
        if _decimal_to_binary(*candidate) == binary:
            return candidate
    return None


@fastpath.cache(maxsize=8192)
def number_literal_agreement_safe(literal: str) -> bool | None:
    """``numberLiteralAgreementSafe?``: None when the run is not a JSON number at all.

    Integer syntax: at most 16 significant digits and exactly representable in binary64.
    Fraction or exponent syntax: at most 17 significant digits and exactly the shortest
    decimal that round-trips through binary64.
    """
    body = literal[1:] if literal[:1] == "-" else literal
    if 0 < len(body) <= 15 and body.isascii() and body.isdigit() and body[0] != "0":
        # Integer syntax below 10^15 < 2^53: at most 15 significant digits, exactly a binary64.
        return True
    parsed = _parse_wire_decimal(literal)
    if parsed is None:
        return None
    digits, exp10, integer_syntax = parsed
    if integer_syntax:
        if len(digits) > 16:
            return False
        coeff = int(digits) if digits else 0
        binary = _decimal_to_binary(coeff, exp10)
        return binary is not None and _decimal_equals(coeff, exp10, binary)
    if len(digits) > 17:
        return False
    coeff = int(digits) if digits else 0
    value = (coeff, exp10 if coeff else 0)
    binary = _decimal_to_binary(*value)
    if binary is None:
        return False
    return _shortest_decimal(binary) == value


# --- wireSurrogatesSafe: no unpaired \uD800-\uDFFF escape inside a string -----------------------


def _hex4(text: str, at: int) -> int | None:
    chunk = text[at : at + 4]
    if len(chunk) == 4 and all(c in "0123456789abcdefABCDEF" for c in chunk):
        return int(chunk, 16)
    return None


def _string_has_unpaired_surrogate(content: str) -> bool:
    """``SurrogateEscapes.scan true`` over one literal's content (closing quote excluded)."""
    i = content.find("\\")
    end = len(content)
    while 0 <= i < end:
        if content.startswith("u", i + 1):
            # Four non-hex characters (or too few) leave the ``\u`` as an ordinary escape.
            value = _hex4(content, i + 2)
            if value is None:
                i = content.find("\\", i + 2)
                continue
            if 0xD800 <= value <= 0xDBFF:
                if content.startswith("\\u", i + 6):
                    low = _hex4(content, i + 8)
                    if low is None or not 0xDC00 <= low <= 0xDFFF:
                        return True
                    i = content.find("\\", i + 12)
                    continue
                return True
            if 0xDC00 <= value <= 0xDFFF:
                return True
            i = content.find("\\", i + 6)
            continue
        i = content.find("\\", i + 2)
    return False


def surrogates_safe(text: str) -> bool:
    """``Host.SurrogateEscapes.wireSurrogatesSafe``."""
    if "\\" not in text:
        return True
    for _outside, content, closed in _segments(text):
        if content is None:
            break
        # The scan sees the closing quote as a character; it matters only when a high
        # surrogate escape ends the string (then there is no low escape: unsafe either way).
        if _string_has_unpaired_surrogate(content + ('"' if closed else "")):
            return False
    return True


# --- wireDepthSafe: nesting at most 128 outside strings ----------------------------------------


def depth_safe(text: str) -> bool:
    """``Host.NestingDepth.wireDepthSafe`` (``Nat`` subtraction: a stray closer floors at 0)."""
    if text.count("[") + text.count("{") <= MAX_NESTING_DEPTH:
        return True
    depth = worst = 0
    for outside, _content, _closed in _segments(text):
        for char in outside:
            if char in "{[":
                depth += 1
                worst = max(worst, depth)
            elif char in "}]":
                depth = max(depth - 1, 0)
    return worst <= MAX_NESTING_DEPTH


GUARD_ORDER: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("numbers", numbers_safe),
    ("keys", keys_safe),
    ("unicode-keys", unicode_keys_safe),
    ("digits", digits_safe),
    ("agreement", agreement_safe),
    ("surrogates", surrogates_safe),
    ("depth", depth_safe),
)


@text_cache(256)
def first_failed_guard(text: str, enabled: frozenset[str] | None = None) -> str | None:
    """The name of the first guard (in perimeter order) that refuses ``text``, or None."""
    for name, guard in GUARD_ORDER:
        if (enabled is None or name in enabled) and not guard(text):
            return name
    return None
