"""Mutations: bytes, and structure-aware edits inside JSON, embedded JSON and base64 frames."""

from __future__ import annotations

import base64
import binascii
import json
import random
from collections.abc import Callable

from sealverify_testkit.records import render_pretty

from sealverify._internal.wire.strictjson import JsonError, JsonNumber, JsonValue, parse_bytes

__all__ = ["mutate_bytes", "mutate_json", "render_compact"]

_TOKENS = [
    *(bytes([c]) for c in b'"\\[]{},:\n\r\x00\xff'),
    b"\xef\xbb\xbf", b"1e400", b"-0", b"null", b"true", b'"\\u0000"', b'"\\ud800"', b'"\\"',
    b'"id":1,', b'"_meta":{}', b'"params":', b"[" * 70, b"9007199254740993",
    b"0.1000000000000000055", b"\xc3\xa9", b"e\xcc\x81", b"!!int []", b"&a ", b"*a", b"<<: ",
    b"---\n",
]  # fmt: skip
_STRINGS = ["", "\u0000", "\ud800", "é", "e\u0301", "a" * 300, "[" * 80, "-", "../x", "00" * 32]
_NUMBERS = [
    "0", "-0", "1", "-1", "1.0", "1e400", "-1e400", "1e-400", "9007199254740993",
    "123456789012345678901234567890", "0.1000000000000000055", "1E+2", "4294967296",
]  # fmt: skip


def mutate_bytes(data: bytes, rng: random.Random, others: list[bytes] | None = None) -> bytes:
    """One to four byte-level edits: flips, inserts of telling tokens, cuts, copies, splices."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        pos = rng.randint(0, len(out))
        if op == 0 and out:
            i = rng.randrange(len(out))
            out[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            out[pos:pos] = rng.choice(_TOKENS)
        elif op == 2 and out:
            end = min(len(out), pos + rng.randint(1, 64))
            del out[pos:end]
        elif op == 3 and out:
            start = rng.randrange(len(out))
            chunk = out[start : start + rng.randint(1, 64)]
            out[pos:pos] = chunk * rng.randint(1, 8)
        elif op == 4:
            out[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 5 and others:
            other = rng.choice(others)
            cut = rng.randint(0, len(other))
            out[pos:] = other[cut:]
    return bytes(out)


def render_compact(value: JsonValue) -> str:
    """Compact JSON with member order and number lexemes kept (a mutant, not a byte rule)."""
    if isinstance(value, JsonNumber):
        return value.lexeme
    if isinstance(value, dict):
        return "{" + ",".join(f"{_string(k)}:{render_compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(render_compact(v) for v in value) + "]"
    return _string(value) if isinstance(value, str) else json.dumps(value)


def _string(text: str) -> str:
    return (
        json.dumps(text, ensure_ascii=False)
        .encode("utf-8", "surrogatepass")
        .decode("utf-8", "replace")
    )


def _embedded(text: str) -> tuple[JsonValue, Callable[[JsonValue], str]] | None:
    """A document carried in a string: JSON text, or base64 of a JSON line (a frame)."""
    if text[:1] in "{[":
        try:
            return parse_bytes(text.encode("utf-8")), render_compact
        except (JsonError, UnicodeEncodeError):
            return None
    if len(text) >= 8:
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return None
        body = raw.rstrip(b"\r\n")
        if body[:1] == b"{":
            try:
                inner = parse_bytes(body)
            except JsonError:
                return None
            tail = raw[len(body) :]

            def encode(value: JsonValue) -> str:
                data = render_compact(value).encode("utf-8") + tail
                return base64.b64encode(data).decode("ascii")

            return inner, encode
    return None


def _leaf(value: JsonValue, rng: random.Random) -> JsonValue:
    if isinstance(value, str):
        carried = _embedded(value)
        if carried is not None and rng.random() < 0.7:
            inner, encode = carried
            return encode(_edit(inner, rng))
        op = rng.randrange(4)
        if op == 0:
            return rng.choice(_STRINGS)
        if op == 1 and value:
            return value[: rng.randrange(len(value))]
        if op == 2 and value:
            i = rng.randrange(len(value))
            return value[:i] + chr(ord(value[i]) ^ 1) + value[i + 1 :]
        return value + rng.choice(_STRINGS)
    if isinstance(value, JsonNumber):
        return JsonNumber(rng.choice(_NUMBERS))
    return rng.choice([None, True, False, JsonNumber("0"), "", [], {}])


def _long(value: JsonValue) -> bool:
    return isinstance(value, str) and len(value) > 40


def _edit(value: JsonValue, rng: random.Random) -> JsonValue:
    """``value`` with one random place changed (the tree is copied on the path down)."""
    if isinstance(value, dict) and value and rng.random() < 0.85:
        names = list(value)
        # Containers and long strings (where carried documents sit) are picked more often.
        weights = [4 if isinstance(v, (dict, list)) or _long(v) else 1 for v in value.values()]
        key = rng.choices(names, weights)[0]
        op = rng.randrange(10)
        out = dict(value)
        if op == 0:
            del out[key]
        elif op == 1:
            out[key + rng.choice(["x", "\u0301", ""])] = out.pop(key)
        elif op == 2:
            out[rng.choice(["id", "_meta", "x", "signature", "params"])] = _leaf(None, rng)
        else:
            out[key] = _edit(out[key], rng)
        return out
    if isinstance(value, list) and value and rng.random() < 0.85:
        i = rng.randrange(len(value))
        op = rng.randrange(8)
        items = list(value)
        if op == 0:
            del items[i]
        elif op == 1:
            items.insert(i, items[i])
        else:
            items[i] = _edit(items[i], rng)
        return items
    return _leaf(value, rng)


def mutate_json(data: bytes, rng: random.Random) -> bytes | None:
    """A structural mutant of a JSON document (or of each line of NDJSON), else None.

    Pretty documents (a receipt as seal writes it) stay pretty; others are written compact.
    """
    lines = data.split(b"\n")
    parsed: list[tuple[int, JsonValue]] = []
    for index, line in enumerate(lines):
        try:
            parsed.append((index, parse_bytes(line)))
        except JsonError:
            if line.strip():
                parsed = []
                break
    if len(parsed) > 1:  # JSON lines: one line is changed
        index, value = rng.choice(parsed)
        lines[index] = render_compact(_edit(value, rng)).encode("utf-8", "replace")
        return b"\n".join(lines)
    try:
        value = parse_bytes(data)
    except JsonError:
        return None
    mutant = _edit(value, rng)
    if b"\n  " in data and isinstance(mutant, dict):
        try:
            return render_pretty(mutant)
        except (TypeError, ValueError):
            pass
    return render_compact(mutant).encode("utf-8", "replace")
