"""The wire layer's fast paths, each beside the reference it must equal byte for byte.

orjson writes the serde and Lean byte rules several times faster than the reference writers
(:func:`sealverify.wire.serdejson._write`, :func:`sealverify.wire.leanjson.print_value`), and
the strict parser's cues skip work that cannot find anything. Importing this module (the
package ``__init__`` does) binds them, or, under ``SEALVERIFY_REFERENCE=1``, the references
(:mod:`sealverify.fastpath`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import orjson

from sealverify import fastpath
from sealverify.fastpath import Pair
from sealverify.wire import leanjson, serdejson, strictjson
from sealverify.wire.strictjson import JsonNumber, JsonValue

__all__ = ["PAIRS", "lean_compress", "number_default", "serde_bytes"]


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
# the bound matches serdejson._lexeme_text's. A refusal is never cached (it raises afresh).
@functools.lru_cache(maxsize=4096)
def _lexeme_fragment(lexeme: str) -> orjson.Fragment:
    return orjson.Fragment(serdejson._lexeme_text(lexeme))


@functools.lru_cache(maxsize=4096)
def _exact_lexeme_fragment(lexeme: str) -> orjson.Fragment:
    return orjson.Fragment(serdejson._exact_text(JsonNumber(lexeme)))


_DEFAULT = number_default(_lexeme_fragment)
_EXACT_DEFAULT = number_default(_exact_lexeme_fragment)


def serde_bytes(value: JsonValue, exact: bool, sort_keys: bool) -> bytes | None:
    """``serdejson.compact_bytes`` by orjson, or None where only the reference writer can say."""
    # orjson writes strings exactly as serde does (only ``"``, ``\\`` and C0 escaped, the
    # rest raw; tests/test_verify_perf.py compares every code point) and keeps dict order;
    # numbers go through our serde number model as pre-rendered fragments. Its OPT_SORT_KEYS
    # compares keys as UTF-8 bytes, which is scalar order (tests/test_bindings_perf.py checks
    # it against ``sorted``). Values orjson refuses (lone surrogates, nesting past its limit)
    # take the reference writer (serdejson._write).
    option = orjson.OPT_PASSTHROUGH_DATACLASS  # JsonNumber goes to ``default``
    try:
        return orjson.dumps(
            value,
            default=_EXACT_DEFAULT if exact else _DEFAULT,
            option=option | orjson.OPT_SORT_KEYS if sort_keys else option,
        )
    except orjson.JSONEncodeError as exc:
        if isinstance(exc.__cause__, serdejson.NumberNotRepresentable):
            raise exc.__cause__ from None
    return None


_SHORT_ESCAPE = re.compile(rb"\\[btf]")


@functools.lru_cache(maxsize=4096)
def _lean_number_fragment(lexeme: str) -> orjson.Fragment:
    # Pure in the lexeme; a refusal (ValueError) is not cached and raises afresh.
    return orjson.Fragment(leanjson.number_text(leanjson.lean_number(lexeme)))


_LEAN_DEFAULT = number_default(_lean_number_fragment)


def lean_compress(value: JsonValue) -> str:
    """``leanjson.compress`` by orjson, by the reference printer where orjson cannot say."""
    # orjson sorts keys by UTF-8 bytes (= scalar order, as ``sorted``) and escapes strings as
    # Lean does (tests/test_bindings_perf.py compares every code point), except that it
    # writes TAB, BS and FF as ``\t`` ``\b`` ``\f`` where Lean writes ``\u00xx``. Any such
    # character leaves that two-character escape in the output; the check below also trips on
    # an escaped backslash before ``t``, ``b`` or ``f``, which only costs the reference pass.
    try:
        data = orjson.dumps(
            value,
            default=_LEAN_DEFAULT,
            option=orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_SORT_KEYS,
        )
    except orjson.JSONEncodeError:  # a refused number, a lone surrogate, deep nesting
        return leanjson._compress_reference(value)
    if _SHORT_ESCAPE.search(data) is None:
        return data.decode("utf-8")
    return leanjson._compress_reference(value)


PAIRS = (
    Pair(serdejson, "_fast_bytes", serde_bytes, fastpath.declined),
    Pair(leanjson, "compress", lean_compress, leanjson._compress_reference),
    # The strict parser's cues (strictjson.py says what each proves): the reference walks
    # every document for depth and searches every text for surrogate escapes.
    Pair(strictjson, "_few_containers", strictjson._few_containers, fastpath.never),
    Pair(strictjson, "_surrogates_possible", strictjson._surrogates_possible, fastpath.always),
    # The memos keep nothing in reference mode: the "\\u" answer and the parsed numbers are
    # worked out afresh for every document.
    Pair(strictjson, "MEMO_BYTES", strictjson.MEMO_BYTES, -1),
    Pair(strictjson.NUMBERS, "limit", strictjson.NUMBERS.limit, 0),
)
fastpath.register(*PAIRS)
