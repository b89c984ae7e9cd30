"""The kernel model's fast paths, each beside the reference it must equal.

Importing this module (the package ``__init__`` does) binds them into the kernel modules, or,
under ``SEALVERIFY_REFERENCE=1``, the references (:mod:`sealverify.fastpath`): the printer by
definition, the guards scanning every literal and every number, no one-pass proof that a
request line passes every wire guard, and no per-text cache.
"""

from __future__ import annotations

import re

import orjson

from sealverify import fastpath
from sealverify.fastpath import Pair
from sealverify.kernel import gate, guards, ljson, memo, policy, session, stateless, wirecue
from sealverify.kernel.ljson import LValue, compress_reference
from sealverify.wire.leanjson import LeanNumber, number_text

__all__ = ["PAIRS", "lean_compress"]


def _number_fragment(value: object) -> orjson.Fragment:
    if isinstance(value, LeanNumber):
        return orjson.Fragment(number_text(value))
    raise TypeError(f"not a JSON value: {type(value).__name__}")


_SHORT_ESCAPE = re.compile(rb"\\[btf]")
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_SORT_KEYS


def lean_compress(value: LValue) -> str:
    """``ljson.compress`` by orjson, by the reference printer where orjson cannot say.

    orjson writes the same bytes (keys sorted by UTF-8, which is scalar order; the same string
    escapes) except that it spells TAB, BS and FF as short escapes where Lean writes
    ``\\u00xx``: any such output is left to :func:`sealverify.kernel.ljson.compress_reference`.
    """
    try:
        data = orjson.dumps(value, default=_number_fragment, option=_ORJSON_OPTIONS)
    except (orjson.JSONEncodeError, TypeError):
        return compress_reference(value)
    if _SHORT_ESCAPE.search(data) is None:
        return data.decode("utf-8")
    return compress_reference(value)


def _unproven(_trimmed: str) -> wirecue.Unproven:
    """``wirecue.proven_request`` in reference mode: nothing is proven, every guard runs."""
    return wirecue.UNPROVEN


# An empty pattern matches every text, so a cue never clears one and the scan always runs.
_EVERY_TEXT = re.compile("")

# The kernel modules this module's imports load import ``compress`` by name, so each holds a
# binding of its own; one imported later (``whatif``, for ``decide``) takes the bound name.
_COMPRESSING = (ljson, gate, policy, session, stateless)

PAIRS = (
    *(Pair(module, "compress", lean_compress, compress_reference) for module in _COMPRESSING),
    Pair(guards, "_segments", guards._segments, guards._segments_by_scan),
    Pair(guards, "_SEVEN_EXPONENT_DIGITS", guards._SEVEN_EXPONENT_DIGITS, _EVERY_TEXT),
    Pair(guards, "_NINETEEN_DIGITS", guards._NINETEEN_DIGITS, _EVERY_TEXT),
    Pair(session, "proven_request", wirecue.proven_request, _unproven),
    # A limit below every size: each call of a text_cache function is computed afresh.
    Pair(memo, "TEXT_LIMIT", memo.TEXT_LIMIT, -1),
)
fastpath.register(*PAIRS)
