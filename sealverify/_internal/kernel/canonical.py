"""The config's canonical-format gate: mcp-seal-dev ``SealV2.parse`` as an acceptance test.

seal-host ``Host/Config.lean`` ``parseCanonicalConfigPayload`` refuses a signed payload that
``SealV2.parse`` (``SealV2/Parser.lean`` with ``SealV2/Escape.lean``) rejects, before reading a
single key: ``config payload is not canonical (SealV2 parse rejected it)``. The grammar is a
strict subset of JSON with one byte form per string and number, but it does not require sorted
keys or compact spacing:

* whitespace (space, LF, CR, TAB) is allowed between tokens;
* numbers are ``-?(0|[1-9][0-9]*)(.[0-9]*[1-9])?``: no exponent, no trailing fraction zero,
  no ``-0``;
* string content is printable ASCII except ``"`` and ``\\``, the short escapes
  ``\\" \\\\ \\n \\t \\r \\b \\f``, and ``\\u`` with four *lowercase* hex digits only where no
  shorter form exists (other controls, DEL, non-ASCII BMP scalars, and astral scalars as a
  lowercase surrogate pair); a literal non-ASCII character, ``\\/`` and uppercase hex refuse;
* no object repeats a (decoded) key; no trailing commas; nothing after the value.
"""

from __future__ import annotations

from sealverify._internal.kernel.memo import text_cache

__all__ = ["escape_string", "is_canonical"]

_WS = " \n\r\t"
_SHORT = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
_LOWER_HEX = frozenset("0123456789abcdef")


class _Reject(Exception):
    pass


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _hex4(text: str, i: int) -> int:
    chunk = text[i : i + 4]
    if len(chunk) != 4 or not _LOWER_HEX.issuperset(chunk):
        raise _Reject
    return int(chunk, 16)


def _u_escape_ok(n: int) -> bool:
    """``uEscapeScalarOk``: a scalar whose canonical form is the ``\\uxxxx`` escape."""
    if n < 0x20:
        return n not in (0x8, 0x9, 0xA, 0xC, 0xD)
    return n == 0x7F or 0x80 <= n < 0xD800 or 0xE000 <= n <= 0xFFFF


def _string(text: str, i: int) -> tuple[str, int]:
    """Parse the content after an opening quote; return (decoded value, index after quote)."""
    out: list[str] = []
    end = len(text)
    while True:
        if i >= end:
            raise _Reject
        char = text[i]
        if char == '"':
            return "".join(out), i + 1
        if char == "\\":
            if text.startswith("u", i + 1) and i + 6 <= end:
                n = _hex4(text, i + 2)
                if _u_escape_ok(n):
                    out.append(chr(n))
                    i += 6
                    continue
                if 0xD800 <= n <= 0xDBFF and text.startswith("\\u", i + 6) and i + 12 <= end:
                    m = _hex4(text, i + 8)
                    if 0xDC00 <= m <= 0xDFFF:
                        out.append(chr(0x10000 + (n - 0xD800) * 1024 + (m - 0xDC00)))
                        i += 12
                        continue
                raise _Reject
            short = _SHORT.get(text[i + 1 : i + 2])
            if short is None:
                raise _Reject
            out.append(short)
            i += 2
            continue
        if not (" " <= char <= "~"):
            raise _Reject
        out.append(char)
        i += 1


def _number(text: str, i: int) -> int:
    end = len(text)
    negative = text.startswith("-", i)
    if negative:
        i += 1
    if i >= end or not "0" <= text[i] <= "9":
        raise _Reject
    if text[i] == "0":
        i += 1
        if i < end and "0" <= text[i] <= "9":
            raise _Reject
        integer_zero = True
    else:
        integer_zero = False
        while i < end and "0" <= text[i] <= "9":
            i += 1
    has_fraction = False
    if text.startswith(".", i):
        start = i + 1
        i = start
        while i < end and "0" <= text[i] <= "9":
            i += 1
        if i == start or text[i - 1] == "0":
            raise _Reject
        has_fraction = True
    if i < end and text[i] in "eE":
        raise _Reject
    if negative and integer_zero and not has_fraction:
        raise _Reject
    return i


def _value(text: str, i: int) -> int:
    """Parse one value starting at ``i`` (after optional whitespace); return the end index.

    Containers are walked with an explicit stack, so nesting depth costs no recursion.
    """
    # Stack entries: ("arr", None) or ("obj", set of decoded keys seen so far).
    stack: list[tuple[str, set[str] | None]] = []
    while True:
        i = _skip_ws(text, i)
        if i >= len(text):
            raise _Reject
        char = text[i]
        if char == "[":
            i = _skip_ws(text, i + 1)
            if text.startswith("]", i):
                i += 1
            else:
                stack.append(("arr", None))
                continue
        elif char == "{":
            i = _skip_ws(text, i + 1)
            if text.startswith("}", i):
                i += 1
            else:
                seen: set[str] = set()
                stack.append(("obj", seen))
                i = _key(text, i, seen)
                continue
        elif char == '"':
            _, i = _string(text, i + 1)
        elif char in "nft":
            word = {"n": "null", "f": "false", "t": "true"}[char]
            if not text.startswith(word, i):
                raise _Reject
            i += len(word)
        elif char == "-" or "0" <= char <= "9":
            i = _number(text, i)
        else:
            raise _Reject
        # A value is complete: close containers or move to the next element.
        while True:
            if not stack:
                return i
            kind, keys = stack[-1]
            i = _skip_ws(text, i)
            closer = "]" if kind == "arr" else "}"
            if text.startswith(",", i):
                i = _skip_ws(text, i + 1)
                if text.startswith(closer, i):
                    raise _Reject  # trailing comma
                if keys is not None:
                    i = _key(text, i, keys)
                break
            if text.startswith(closer, i):
                stack.pop()
                i += 1
                continue
            raise _Reject


def _key(text: str, i: int, seen: set[str]) -> int:
    """Parse ``"key"`` ``:`` (whitespace around the colon); refuse a repeated key."""
    if not text.startswith('"', i):
        raise _Reject
    key, i = _string(text, i + 1)
    if key in seen:
        raise _Reject
    seen.add(key)
    i = _skip_ws(text, i)
    if not text.startswith(":", i):
        raise _Reject
    return i + 1


@text_cache(256)
def is_canonical(text: str) -> bool:
    """Whether ``SealV2.parse`` accepts ``text`` (one value, optional surrounding whitespace)."""
    try:
        end = _value(text, 0)
    except _Reject:
        return False
    return _skip_ws(text, end) == len(text)


def _escape_char(char: str) -> str:
    """``SealV2.escapeChar``: the one canonical spelling of a scalar inside a string."""
    if char == '"':
        return '\\"'
    if char == "\\":
        return "\\\\"
    code = ord(char)
    if 0x20 <= code <= 0x7E:
        return char
    short = {0xA: "\\n", 0x9: "\\t", 0xD: "\\r", 0x8: "\\b", 0xC: "\\f"}.get(code)
    if short is not None:
        return short
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + code // 1024:04x}\\u{0xDC00 + code % 1024:04x}"


def escape_string(text: str) -> str:
    """``SealV2.escapeString``: the canonical content of a string literal (no quotes)."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return text
    return "".join(_escape_char(char) for char in text)
