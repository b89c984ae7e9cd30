"""Strict parses of the JSON texts a receipt embeds, one parse per distinct text."""

from __future__ import annotations

from sealverify._internal import fastpath
from sealverify._internal.wire.strictjson import JsonValue, parse_text

__all__ = ["TEXT_LIMIT", "parse_embedded"]

# Texts longer than this are parsed afresh: a cache of hostile megabyte texts would keep every
# one of them alive for the rest of the run.
TEXT_LIMIT = 1 << 16

# ``emitted_bytes`` is read by the member-set check, the audit binding and the kernel principal
# binding, its audit string by two of them: a strict parse is pure in the text, so each reader
# gets the one parse. The tree is shared, so every reader only reads it. A refusal raises
# afresh each time (lru_cache stores no exception), with the same message.
_parse = fastpath.cache(maxsize=32)(parse_text)


def parse_embedded(text: str) -> JsonValue:
    """``parse_text(text)`` with the default limits, shared by every reader of one text.

    The caller must not change the returned value.
    """
    if len(text) > TEXT_LIMIT:
        return parse_text(text)
    return _parse(text)
