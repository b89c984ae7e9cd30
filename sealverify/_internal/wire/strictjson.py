"""Strict RFC 8259 JSON parsing from received bytes: lexemes kept, ambiguity refused."""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

import orjson

from sealverify._internal import fastpath
from sealverify.errors import InputError

__all__ = [
    "DEFAULT_LIMITS",
    "JsonError",
    "JsonNumber",
    "JsonValue",
    "Limits",
    "MemberSpan",
    "display",
    "holds_u_escape",
    "member_spans",
    "parse_bytes",
    "parse_text",
    "uint_value",
]


@dataclass(frozen=True, slots=True)
class JsonNumber:
    """A JSON number kept as its exact received lexeme (never converted silently).

    Conversion to a machine number is the job of each byte rule (serde, Lean), which decide
    how a given spelling is rendered and refuse what they cannot render faithfully.
    """

    lexeme: str

    @property
    def is_integer_lexeme(self) -> bool:
        """True when the lexeme has neither a fraction nor an exponent (``-12``, ``0``)."""
        lexeme = self.lexeme  # three substring tests: a generator costs more than the scans
        return "." not in lexeme and "e" not in lexeme and "E" not in lexeme

    def as_int(self, max_digits: int = 40) -> int | None:
        """The value of an integer lexeme of at most ``max_digits`` digits, else None.

        The bound keeps hostile lexemes (thousands of digits) from ever reaching ``int()``.
        """
        if not self.is_integer_lexeme or len(self.lexeme.lstrip("-")) > max_digits:
            return None
        return int(self.lexeme)

    def as_uint(self, max_digits: int = 40) -> int | None:
        """Like :meth:`as_int`, for a bare non-negative integer lexeme (``-0`` is not one)."""
        return None if self.lexeme.startswith("-") else self.as_int(max_digits)

    def __str__(self) -> str:
        return self.lexeme


JsonValue: TypeAlias = bool | str | JsonNumber | list["JsonValue"] | dict[str, "JsonValue"] | None


def uint_value(value: JsonValue) -> int | None:
    """The value of a bare non-negative integer lexeme (at most 40 digits), else None."""
    return value.as_uint() if isinstance(value, JsonNumber) else None


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource bounds applied before any canonical work; each is configurable.

    The defaults are sealverify policy (MCP sets none); ``max_meta_bytes`` follows AttestoMCP
    Server v2.8.0 `RequestMeta`
    (65,536 bytes of raw ``_meta``). See docs/limits.md.
    """

    max_document_bytes: int = 64 * 1024 * 1024
    max_depth: int = 64
    max_members: int = 1_000_000
    max_string_bytes: int = 1_048_576
    max_meta_bytes: int = 65_536
    max_meta_depth: int = 32


DEFAULT_LIMITS = Limits()


class JsonError(InputError, ValueError):
    """A received document is not acceptable strict JSON; ``code`` is a stable finding id."""

    def __init__(self, code: str, reason: str, offset: int | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.offset = offset

    def __str__(self) -> str:
        where = f" at byte {self.offset}" if self.offset is not None else ""
        return f"{self.reason}{where}"


_BOM = b"\xef\xbb\xbf"
_WS = re.compile(r"[ \t\r\n]*")
_WS_CHARS = " \t\r\n"  # what _WS matches, one character at a time ("" is in it too)
# Strings as an unrolled loop (same language as ``"(?:[^"\\]|\\.)*"``, several times faster).
# A string left open runs to the end of the text (as the decoder reads it): every quote that
# opens a token then matches at once, so a scan is linear; requiring the closing quote made
# the engine retry from every later quote (``[``*65 + ``"`` + ``\\"``*n took quadratic time).
# The repeats are possessive: a greedy one kept backtracking state for every escape (about
# 150 bytes each: a 2 MB literal of escapes took 146 MiB), though no backtrack can match.
_STRING = r'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)'
_TOKEN = re.compile(_STRING + r"|[\[\]{}]", re.DOTALL)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Duplicate(Exception):
    def __init__(self, name: str) -> None:
        self.name = name


# Every object the strict decoder builds takes one number from this counter (a C-level
# ``next``, atomic under the interpreter lock). The numbers drawn while a text is decoded
# bound how many objects it holds from above, whatever other threads decode meanwhile.
_OBJECTS = itertools.count()
_NEXT_OBJECT = _OBJECTS.__next__


def _pairs(pairs: list[tuple[str, JsonValue]]) -> dict[str, JsonValue]:
    _NEXT_OBJECT()
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Duplicate(key)
            seen.add(key)
    return out


def _constant(name: str) -> JsonValue:
    raise ValueError(f"non-JSON constant {name}")


class _Numbers(dict[str, JsonNumber]):
    """The numbers of parsed texts, one frozen :class:`JsonNumber` per short lexeme.

    A cache: the value is immutable, so sharing it is the same as building it afresh.
    Bounded: lexemes over 64 characters are built every time, and at most 4,096 are kept; in
    reference mode (:func:`sealverify._internal.fastpath.reference`) none is kept.
    """

    limit = 4096

    def __missing__(self, lexeme: str) -> JsonNumber:
        number = JsonNumber(lexeme)
        if len(lexeme) <= 64 and len(self) < self.limit and not fastpath.reference():
            self[lexeme] = number
        return number


NUMBERS = _Numbers()


def _decoder(**hooks: Any) -> json.JSONDecoder:
    """The strict decoder: numbers as their lexemes, no NaN or Infinity, ``hooks`` for objects."""
    return json.JSONDecoder(
        parse_float=NUMBERS.__getitem__,
        parse_int=NUMBERS.__getitem__,
        parse_constant=_constant,
        strict=True,
        **hooks,
    )


_DECODER = _decoder(object_pairs_hook=_pairs)


def _byte_offset(text: str, char_index: int) -> int:
    return len(text[:char_index].encode("utf-8", "surrogatepass"))


_STRING_TOKEN = re.compile(_STRING, re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def _bracket_peak(text: str) -> int:
    """The deepest bracket nesting outside string tokens (the same tokens _TOKEN finds)."""
    depth = peak = 0
    for bracket in _BRACKET.findall(_STRING_TOKEN.sub("", text)):
        if bracket in "[{":
            depth += 1
            peak = max(peak, depth)
        else:
            depth -= 1
    return peak


def _too_deep(text: str, max_depth: int) -> JsonError | None:
    """The finding for a document nested deeper than ``max_depth`` (None when it is not).

    Fast exact pass first (strings dropped at C speed, brackets followed); only a document that
    is too deep takes the slow pass, which locates the offending bracket for the finding.
    """
    if _bracket_peak(text) <= max_depth:
        return None
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > max_depth:
                return JsonError(
                    "json.too-deep",
                    f"nesting deeper than the limit of {max_depth} levels",
                    _byte_offset(text, match.start()),
                )
        elif token in "]}":
            depth -= 1
    return None


def _check_depth(text: str, max_depth: int) -> None:
    error = _too_deep(text, max_depth)
    if error is not None:
        raise error


def _nesting_depth(value: JsonValue) -> int:
    """How many containers deep a value straight from :func:`_decode` is (0 for a scalar).

    For text that parsed as strict JSON this equals :func:`_bracket_peak`: outside strings the
    only brackets are the containers' own, so the bracket peak is the deepest container chain.
    Containers from the decoder are exactly ``dict`` (``_pairs``) and ``list`` (the scanner),
    so type identity finds them all. A host whose recursion limit is too low for this
    document gets the same number from the level walk.
    """
    kind = type(value)
    if kind is not dict and kind is not list:
        return 0
    try:
        return _container_height(value)
    except RecursionError:
        return _level_depth(value)


def _few_containers(arrays: int, objects: int, max_depth: int) -> bool:
    """Whether a decoded text provably holds at most ``max_depth`` containers in all.

    ``objects`` bounds its objects from above (counter numbers drawn while it was decoded);
    every array it holds opens with its own ``[`` outside strings, so ``arrays``, the text's
    count of ``[``, bounds its arrays. A chain of nested containers is never longer than the
    number of containers, so then the document is not too deep and no walk is needed.
    """
    return objects + arrays <= max_depth


def _brackets_up_to(text: str, bound: int) -> int:
    """How many ``[`` the text holds, counted only up to ``bound + 1`` (then it stops).

    Equal to ``min(text.count("["), bound + 1)`` (``0`` for a negative bound), by a memchr
    search per bracket: a receipt holds a few ``[`` in thousands of characters, which one
    ``count`` pass visits one by one. At most ``bound + 1`` searches, so hostile text full of
    brackets costs no more than a limit's worth.
    """
    found = 0
    index = text.find("[")
    while index >= 0 and found <= bound:
        found += 1
        index = text.find("[", index + 1)
    return found


def _container_height(value: JsonValue) -> int:
    """The nesting depth of a decoded ``dict`` or ``list``, by recursion over its containers."""
    deepest = 0
    for child in value.values() if type(value) is dict else value:  # type: ignore[union-attr]
        kind = type(child)
        if kind is dict or kind is list:
            height = _container_height(child)
            if height > deepest:
                deepest = height
    return deepest + 1


def _level_depth(value: JsonValue) -> int:
    """:func:`_nesting_depth` without recursion: one comprehension per level."""
    level = [value] if type(value) is dict or type(value) is list else []
    depth = 0
    while level:
        depth += 1
        level = [
            child
            for item in level
            for child in (item.values() if type(item) is dict else item)
            if type(child) is dict or type(child) is list
        ]
    return depth


def _walk_limits(value: JsonValue, limits: Limits) -> None:
    members = 0
    stack: list[JsonValue] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) * 4 > limits.max_string_bytes and (
                len(item.encode("utf-8", "surrogatepass")) > limits.max_string_bytes
            ):
                raise JsonError(
                    "json.string-too-long",
                    f"a string is longer than the limit of {limits.max_string_bytes} bytes",
                )
        elif isinstance(item, list):
            members += len(item)
            stack.extend(item)
        elif isinstance(item, dict):
            members += len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        if members > limits.max_members:
            raise JsonError(
                "json.too-many-members",
                f"more than {limits.max_members} object members and array elements",
            )


def _check_surrogates(value: JsonValue) -> None:
    stack: list[JsonValue] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise JsonError(
                    "json.lone-surrogate",
                    f"string {_preview(item)} holds an unpaired UTF-16 surrogate escape",
                )
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())


def _preview(text: str, width: int = 40) -> str:
    shown = text if len(text) <= width else text[:width] + "…"
    return json.dumps(shown, ensure_ascii=True)


def decode_utf8(data: bytes) -> str:
    """Decode received bytes as strict UTF-8, refusing a BOM and invalid sequences."""
    global _U_MEMO
    if data.startswith(_BOM):
        raise JsonError("json.bom", "document starts with a UTF-8 byte order mark (EF BB BF)", 0)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonError(
            "json.invalid-utf8",
            f"invalid UTF-8 ({exc.reason}): bytes {data[exc.start : exc.end].hex(' ')}",
            exc.start,
        ) from None
    if len(data) <= MEMO_BYTES and not fastpath.reference():
        _U_MEMO = (data, text, None)  # one answer now serves the bytes and their text
    return text


# Texts and bytes over this size are never kept by the memo below (a hostile document of
# megabytes is not held for the rest of the run).
MEMO_BYTES = 1 << 16
# The last document asked about: (its bytes, their text, whether they hold "\u"). Several
# checks of one receipt ask it of the same bytes or text; both spell "\u" alike, since in
# UTF-8 the bytes 5C 75 are only ever the characters "\" and "u". Kept by identity (the memo
# holds them, so no other object can take their place), replaced whole, so it never mixes
# two documents. Reference mode neither keeps nor reads it.
_U_MEMO: tuple[bytes | None, str | None, bool | None] = (None, None, None)


def holds_u_escape(data: str | bytes) -> bool:
    """Whether ``data`` holds a backslash directly followed by ``u`` (as every ``\\uXXXX`` does).

    Without one, each escape of the document is one of JSON's two-character escapes, which
    stand for ``"``, ``\\``, ``/`` and four control characters: no letter, digit,
    underscore or surrogate is then written with an escape.
    """
    global _U_MEMO
    if fastpath.reference():  # no memo: every question searches afresh
        return _search_u(data)
    memo = _U_MEMO
    if data is memo[0] or data is memo[1]:
        if memo[2] is not None:
            return memo[2]
        answer = _search_u(data)
        _U_MEMO = (memo[0], memo[1], answer)
        return answer
    answer = _search_u(data)
    if len(data) <= MEMO_BYTES:
        _U_MEMO = (data, None, answer) if isinstance(data, bytes) else (None, data, answer)
    return answer


def _search_u(data: str | bytes) -> bool:
    if isinstance(data, bytes):
        return b"\\u" in data  # a substring search, not a pattern: the same answer
    return "\\u" in data


def parse_bytes(data: bytes, limits: Limits = DEFAULT_LIMITS) -> JsonValue:
    """Parse one JSON document from its exact received bytes.

    Refuses: a BOM, invalid UTF-8, syntax outside RFC 8259 (NaN, Infinity, trailing commas...),
    trailing content, duplicate member names at any depth (after unescaping), unpaired
    surrogate escapes, and documents beyond ``limits``. Numbers keep their lexeme.
    Raises :class:`JsonError`; never returns a partially parsed value.
    """
    if len(data) > limits.max_document_bytes:
        raise JsonError(
            "json.too-large",
            f"document is {len(data)} bytes, over the limit of {limits.max_document_bytes}",
        )
    return parse_text(decode_utf8(data), limits)


# Every document is decoded first and its depth read from the parsed containers (see
# parse_text) while the C scanner's recursion stays small: the scanner counts its levels
# against a recursion limit (a RecursionError at the limit, mapped to the depth finding):
# on CPython 3.11 the interpreter's, so under a limit of at most this many levels it never
# recurses deeper; from 3.12 on CPython's own C limit. A host that raised the interpreter's
# limit above it gets the depth checked before decoding a document with more than
# _DECODE_FIRST_MAX_BRACKETS brackets, as it always was.
_DECODE_FIRST_MAX_RECURSION = 1000
_DECODE_FIRST_MAX_BRACKETS = 512


def _message(msg: str) -> str:
    """The decoder's message without its own trailing "at": the offset is appended once."""
    # json.decoder says "Invalid control character at" and then leaves the position to us.
    return msg.removesuffix(" at")


# Texts shorter than this go to the hooked decoder at once: orjson's proof costs a few
# thousand instructions however short the text, about what the hook costs a text of a few
# objects (an embedded request line of 400 characters paid 2.5 K more with it, a receipt of
# 8,000 characters 70 K less).
PROVED_MIN_CHARS = 1024
# ... and texts of at most a MiB: the proof holds orjson's rendering beside the text, so a
# document near the size cap (what ``diff`` and ``tools`` read) keeps the hooked decoder's
# peak memory rather than doubling it.
PROVED_MAX_CHARS = 1 << 20


def parse_text(text: str, limits: Limits = DEFAULT_LIMITS) -> JsonValue:
    """Parse an already strictly decoded document; see :func:`parse_bytes` for the rules."""
    if text.startswith("\ufeff"):
        raise JsonError("json.bom", "document starts with a byte order mark (U+FEFF)", 0)
    # (the pattern runs only when the text starts with whitespace, or is empty: else it
    # matches nothing)
    start = _WS.match(text).end() if text[:1] in _WS_CHARS else 0  # type: ignore[union-attr]
    if start == len(text):
        raise JsonError("json.empty", "document is empty", 0)
    # The depth finding must win over every other refusal, as when the depth was checked
    # first: a document decoded first is still checked for depth (exactly, by _too_deep)
    # before any decoding error is raised, and a document that decodes is too deep exactly
    # when its containers are (_nesting_depth equals the bracket peak for strict JSON); the
    # objects it holds are counted as they are built (_pairs), its arrays bounded by its
    # ``[`` (each array opens with one; counted only as far as the limit needs, after
    # decoding), so the walk and the string-dropping pass run only for a document with more
    # containers than the limit. The text's ``{`` are counted only for the guard below.
    deferred = True
    if (
        sys.getrecursionlimit() > _DECODE_FIRST_MAX_RECURSION
        and len(text) > _DECODE_FIRST_MAX_BRACKETS
        and text.count("[") + text.count("{") > _DECODE_FIRST_MAX_BRACKETS
    ):
        _check_depth(text, limits.max_depth)
        deferred = False
    proved = (
        None
        if not PROVED_MIN_CHARS <= len(text) <= PROVED_MAX_CHARS or fastpath.reference()
        else _proved(text, start, limits.max_depth)
    )
    drawn: int | None
    if proved is not None:
        value, drawn = proved
    else:
        drawn = _NEXT_OBJECT()
        try:
            value = _decode(text, start)
        except Exception:
            error = _too_deep(text, limits.max_depth) if deferred else None
            if error is not None:
                raise error from None
            raise
    if deferred and drawn is not None:
        objects = _NEXT_OBJECT() - drawn - 1
        arrays = _brackets_up_to(text, limits.max_depth - objects)
        if (
            not _few_containers(arrays, objects, limits.max_depth)
            and _nesting_depth(value) > limits.max_depth
        ):
            _check_depth(text, limits.max_depth)
    # Strict UTF-8 decoding never gives a surrogate: only a ``\u`` escape can write one.
    if holds_u_escape(text) and _SURROGATE_ESCAPE.search(text):
        _check_surrogates(value)
    if len(text) > limits.max_string_bytes // 4 or len(text) > limits.max_members:
        _walk_limits(value, limits)
    return value


# The decoder's C scanner (json.scanner.c_make_scanner): (text, index) -> (value, end).
_SCAN_ONCE: Callable[[str, int], tuple[JsonValue, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


def _decode(text: str, start: int) -> JsonValue:
    """``_DECODER.decode(text)`` with its errors mapped to findings, without its wrappers.

    ``start`` is where the leading whitespace ends. Mirrors ``json.JSONDecoder.decode`` and
    ``raw_decode`` (same scanner, same messages and positions).
    """
    try:
        value, end = _SCAN_ONCE(text, start)
    except StopIteration as stop:
        raise JsonError(
            "json.syntax", "not RFC 8259 JSON: Expecting value", _byte_offset(text, stop.value)
        ) from None
    except _Duplicate as dup:
        raise JsonError(
            "json.duplicate-member",
            f"duplicate member name {_preview(dup.name)} in one object",
        ) from None
    except json.JSONDecodeError as exc:
        code = "json.trailing-content" if exc.msg == "Extra data" else "json.syntax"
        raise JsonError(
            code, f"not RFC 8259 JSON: {_message(exc.msg)}", _byte_offset(text, exc.pos)
        ) from None
    except ValueError as exc:
        raise JsonError("json.syntax", f"not RFC 8259 JSON: {exc}") from None
    except RecursionError:
        raise JsonError("json.too-deep", "nesting too deep to parse") from None
    if end != len(text):  # the usual text ends with its value: no whitespace to skip
        end = _WS.match(text, end).end()  # type: ignore[union-attr]
    if end != len(text):
        raise JsonError(
            "json.trailing-content", "not RFC 8259 JSON: Extra data", _byte_offset(text, end)
        )
    return value


def _object(members: dict[str, JsonValue]) -> dict[str, JsonValue]:
    _NEXT_OBJECT()  # counted as _pairs counts it, for the depth bound
    return members


# The same scanner without the member hook: objects become dicts in C, so a repeated name
# overwrites the earlier member silently. Only _proved uses them, and it accepts a value only
# where that cannot have happened. The counting one draws a number per object (as _pairs).
_SCAN_PLAIN: Callable[[str, int], tuple[JsonValue, int]] = _decoder().scan_once  # type: ignore[attr-defined]
_SCAN_COUNTED: Callable[[str, int], tuple[JsonValue, int]] = _decoder(object_hook=_object).scan_once  # type: ignore[attr-defined]
_PRETTY = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_INDENT_2  # JsonNumber to ``default``
_COMPACT = orjson.OPT_PASSTHROUGH_DATACLASS
# What a line indented past DEFAULT_LIMITS.max_depth levels starts with (see _proved).
_DEFAULT_TOO_DEEP_LINE = "\n" + " " * (2 * DEFAULT_LIMITS.max_depth)


def _lexeme(value: object) -> orjson.Fragment:
    """The ``default`` orjson calls: a number is written as its lexeme; nothing else is JSON."""
    if type(value) is JsonNumber:
        return orjson.Fragment(value.lexeme)
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _proved(text: str, start: int, max_depth: int) -> tuple[JsonValue, int | None] | None:
    """The value of a text that is orjson's own rendering of it, and how its depth is bound.

    None whenever that is not shown; the hooked decoder then reads the text and decides
    everything, refusals included. The text is decoded from ``start`` without the member
    hook, the value rendered again by orjson (indented by two spaces when the text breaks its
    line right after its first bracket, else compact), and taken only when that rendering is
    the decoded text exactly. orjson writes each name of a dict once, and distinct names as
    distinct strings, so its rendering holds no object with a repeated name; a text equal to
    it holds none either, and the hooked decoder builds this very value from it. A text with
    a repeated name decodes to fewer members than it holds, so it never equals the rendering
    of its value.

    An indented text is taken only when it is nested at most ``max_depth`` deep (then the
    second item is None), read from the indentation: in such a rendering a container nested
    ``n`` levels deep (``n`` >= 2) opens on a line of its parent's, indented ``2 * (n - 1)``
    spaces, and no string holds a raw line break; so a text without a line break followed
    by ``2 * max_depth`` spaces is that shallow (``max_depth`` >= 1). A compact text is
    decoded counting its objects as the hooked decoder does; the second item is then the
    number drawn before, so that the caller bounds its depth as for that decoder.
    """
    pretty = text[start + 1 : start + 2] == "\n"
    if not pretty:
        for mark in (":", ","):
            at = text.find(mark, start)
            if at >= 0 and text[at + 1 : at + 2] == " ":
                return None  # laid out as orjson never writes compact text (json.dumps's)
    drawn = None if pretty else _NEXT_OBJECT()
    try:
        value, end = (_SCAN_PLAIN if pretty else _SCAN_COUNTED)(text, start)
        rendered = orjson.dumps(value, default=_lexeme, option=_PRETTY if pretty else _COMPACT)
    except Exception:  # a refusal, or a value orjson does not write: the hooked decoder's
        return None
    if not _renders(rendered, text, start, end):
        return None
    if end != len(text) and _WS.match(text, end).end() != len(text):  # type: ignore[union-attr]
        return None
    if not pretty:
        return value, drawn
    too_deep = (
        _DEFAULT_TOO_DEEP_LINE
        if max_depth == DEFAULT_LIMITS.max_depth
        else "\n" + " " * (2 * max_depth)
    )
    if max_depth < 1 or (len(too_deep) <= end - start and text.find(too_deep, start, end) >= 0):
        return None  # no object was counted: only the hooked decoder's count bounds the depth
    return value, None


def _renders(rendered: bytes, text: str, start: int, end: int) -> bool:
    """Whether ``rendered`` is the UTF-8 of ``text[start:end]``.

    Compared with the bytes :func:`decode_utf8` last decoded into ``text`` (the memo keeps
    them) when those are ASCII, so offsets are the same in both: no copy of the text is made.
    """
    data, decoded, _ = _U_MEMO
    if decoded is text and data is not None and len(data) == len(text):
        return len(rendered) == end - start and data.startswith(rendered, start)
    try:
        return rendered == text[start:end].encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in a text not decoded from bytes
        return False


def display(value: JsonValue) -> str:
    """A compact rendering for reports only: member order kept, numbers as received.

    Not a byte rule (nothing is hashed or signed over it), so it never refuses a value. It
    walks the value with its own stack, not by recursion, so any depth renders.
    """
    out: list[str] = []
    # (True, text) is output as it stands; (False, value) is a value still to render.
    todo: list[tuple[bool, Any]] = [(False, value)]
    while todo:
        literal, item = todo.pop()
        if literal:
            out.append(item)
        elif isinstance(item, JsonNumber):
            out.append(item.lexeme)
        elif isinstance(item, dict):
            out.append("{")
            todo.append((True, "}"))
            members = list(item.items())
            for index in range(len(members) - 1, -1, -1):
                name, member = members[index]
                todo.append((False, member))
                name_text = json.dumps(name, ensure_ascii=False)
                todo.append((True, f",{name_text}:" if index else f"{name_text}:"))
        elif isinstance(item, list):
            out.append("[")
            todo.append((True, "]"))
            for index in range(len(item) - 1, -1, -1):
                todo.append((False, item[index]))
                if index:
                    todo.append((True, ","))
        else:
            out.append(json.dumps(item, ensure_ascii=False))
    return "".join(out)


@dataclass(frozen=True, slots=True)
class MemberSpan:
    """Where one member of an object sits in the text: name and value character spans."""

    name: str
    name_start: int
    value_start: int
    value_end: int


_PLAIN = json.JSONDecoder(strict=True)


def member_spans(text: str, start: int) -> list[MemberSpan]:
    """List the members of the object whose ``{`` is at ``start`` with their raw value spans.

    The text must already have passed :func:`parse_text`; this only locates members so that
    raw byte sizes (for example of ``_meta``) can be measured as received.
    """
    if text[start] != "{":
        raise ValueError("not an object")
    spans: list[MemberSpan] = []
    pos = _WS.match(text, start + 1).end()  # type: ignore[union-attr]
    if text[pos] == "}":
        return spans
    while True:
        name_start = pos
        name, pos = _PLAIN.raw_decode(text, pos)
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]  # skip ':'
        value_start = pos
        _, value_end = _PLAIN.raw_decode(text, pos)
        spans.append(MemberSpan(name, name_start, value_start, value_end))
        pos = _WS.match(text, value_end).end()  # type: ignore[union-attr]
        if text[pos] == "}":
            return spans
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
