"""The receipts layer's fast paths, each beside the reference it must equal.

Importing this module (the package ``__init__`` does) binds them into the receipt modules, or,
under ``SEALVERIFY_REFERENCE=1``, the references (:mod:`sealverify.fastpath`): every embedded
text and request frame parsed afresh, the member rules and envelope walks in full, and the
name-equivalence checks run on every line.
"""

from __future__ import annotations

import functools
import importlib
import unicodedata

from sealverify import fastpath
from sealverify.fastpath import Pair
from sealverify.receipts import embedded, families, members
from sealverify.receipts.bindings import signatures
from sealverify.receipts.bindings.derived import Doc
from sealverify.wire import guards as wire_guards
from sealverify.wire.strictjson import JsonValue, holds_u_escape, parse_text

__all__ = ["PAIRS"]

# the module, not the binding function the bindings package exports under the same name
object_a = importlib.import_module("sealverify.receipts.bindings.object_a")


def _holders_reference(doc: Doc) -> list[tuple[tuple[str | int, ...], Doc]]:
    """``signatures._envelope_holders`` by the iterative walk alone, in the same order."""
    found = signatures._holders_by_stack(doc)
    return sorted(found, key=lambda pair: [str(step) for step in pair[0]])


def _equivalent_keys_reference(value: JsonValue) -> list[tuple[str, str]]:
    """``unicode_equivalent_keys`` normalizing every name (no ASCII cue)."""
    return wire_guards._equivalent_keys(value, functools.partial(unicodedata.normalize, "NFC"))


def _equivalent_names_reference(line: bytes, message: JsonValue) -> list[tuple[str, str]]:
    """``object_a._equivalent_names`` without the ASCII-line proof: the walk always runs."""
    return object_a.unicode_equivalent_keys(message)  # type: ignore[no-any-return]


PAIRS = (
    Pair(embedded, "_parse", embedded._parse, parse_text),
    Pair(
        members,
        "member_checks",
        members.member_checks,
        functools.partial(members._member_checks, shortcut=False),
    ),
    Pair(signatures, "_envelope_holders", signatures._envelope_holders, _holders_reference),
    Pair(signatures, "_only_the_top_envelope", signatures._only_the_top_envelope, fastpath.never),
    Pair(object_a, "escaped_keys", object_a.escaped_keys, wire_guards._escaped_keys_by_search),
    Pair(
        object_a,
        "unicode_equivalent_keys",
        object_a.unicode_equivalent_keys,
        _equivalent_keys_reference,
    ),
    Pair(object_a, "_equivalent_names", object_a._equivalent_names, _equivalent_names_reference),
    Pair(families, "holds_u_escape", holds_u_escape, fastpath.always),
)
fastpath.register(*PAIRS)
