"""The seal layer's fast paths, each beside the reference it must equal byte for byte.

Importing this module (the package ``__init__`` does) binds them into the seal modules, or,
under ``SEALVERIFY_REFERENCE=1``, leaves the references there (:mod:`sealverify.fastpath`).
"""

from __future__ import annotations

import functools

import orjson

from sealverify import fastpath
from sealverify.fastpath import Pair
from sealverify.seal import identities, objectb
from sealverify.wire import serdejson
from sealverify.wire.fast import number_default
from sealverify.wire.strictjson import JsonNumber, JsonValue

__all__ = ["PAIRS", "canonical_line", "interleaved"]


def interleaved(data: bytes) -> bytes:
    """``objectb._interleaved_reference`` (``0x00 b`` per byte) at C codec speed."""
    # Latin-1 maps each byte b to the code point b (< 0x100), and UTF-16-BE writes such a code
    # point as the two bytes 00 b (no BOM): ``0x00 b`` per byte. tests/test_bindings_perf.py
    # checks blob against _blob_reference on every byte value.
    return data.decode("latin-1").encode("utf-16-be")


_LINE_HEAD = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":'


def canonical_line(name: str, arguments: dict[str, JsonValue], params: dict[str, JsonValue]) -> str:
    """``identities._canonical_request_reference``'s line, written member by member.

    Exact: compact writes an object as ``{`` + ``"key":`` + compact(member) ... + ``}``, so
    writing the fixed members literally and compacting each wire member gives the same text;
    only ``_meta`` differs in how it is produced (:func:`_meta_text`).
    """
    pieces = [_LINE_HEAD, serdejson.compact(name), ',"arguments":', serdejson.compact(arguments)]
    if "_meta" in params:
        pieces += [',"_meta":', _meta_text(params["_meta"])]
    for member in ("requestState", "inputResponses"):
        if member in params:
            pieces += [f',"{member}":', serdejson.compact(params[member])]
    pieces.append("}}")
    return "".join(pieces)


def _meta_text(meta: JsonValue) -> str:
    """``compact(sort_keys(meta, renumber=True))`` in one orjson pass, else that very call.

    orjson sorts keys by UTF-8 bytes (= scalar order, as ``sorted``; serdejson.compact relies
    on the same) and each number is written as the reference writes its renumbered lexeme.
    """
    try:
        return orjson.dumps(
            meta,
            default=_RENUMBERED_DEFAULT,
            option=orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_SORT_KEYS,
        ).decode("utf-8")
    except orjson.JSONEncodeError:
        return serdejson.compact(identities.sort_keys(meta, renumber=True))


@functools.lru_cache(maxsize=1024)
def _renumbered_lexeme_fragment(lexeme: str) -> orjson.Fragment:
    # What compact writes for the number sort_keys(renumber=True) leaves: the same rounds of
    # rendering as the reference. Pure in the lexeme; a refusal is not cached (raises afresh).
    return orjson.Fragment(serdejson.number_text(identities._renumber(JsonNumber(lexeme))))


_RENUMBERED_DEFAULT = number_default(_renumbered_lexeme_fragment)


PAIRS = (
    Pair(objectb, "_interleaved", interleaved, objectb._interleaved_reference),
    Pair(identities, "_canonical_line", canonical_line, identities._canonical_request_reference),
)
fastpath.register(*PAIRS)
