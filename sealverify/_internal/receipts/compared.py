"""The texts a failed receipt check compared, attached for the html report's drill-down."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, Compared, Status
from sealverify._internal.results.vocabulary import Role
from sealverify._internal.wire.spelling import unescape_token
from sealverify._internal.wire.strictjson import JsonValue

_FAIL = Status.FAIL

__all__ = ["attach_compared"]

# authority.* checks: the role whose pins the receipt's key was held against.
_AUTHORITY_ROLE = {ids.AUTHORITY_CONFIG_KEY: Role.CONFIG, ids.AUTHORITY_RECEIPT_KEY: Role.RECEIPT}


def _at(doc: JsonValue, location: str) -> JsonValue | None:
    """The value at an RFC 6901 pointer into ``doc``, or None (no such member, or not one)."""
    if not location.startswith("/"):
        return None
    value: JsonValue | None = doc
    for token in location[1:].split("/"):
        step = unescape_token(token)
        if isinstance(value, dict):
            value = value.get(step)
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            return None
    return value


def _compared(check: Check, doc: dict[str, JsonValue], trust: TrustStore) -> Compared | None:
    expected = check.data.get("expected")
    if isinstance(expected, str):
        found = _at(doc, check.location)
        if isinstance(found, str):
            return Compared(
                expected, found, "derived by sealverify", f"{check.location} in the receipt"
            )
    role = _AUTHORITY_ROLE.get(check.id)
    key = check.data.get("key")
    if role is not None and isinstance(key, str):
        pins = [pin.public_key for pin in trust.pinned(role)]
        if pins:
            return Compared("\n".join(pins), key, f"pinned {role} key(s)", "the receipt's key")
    return None


def attach_compared(
    checks: list[Check],
    doc: dict[str, JsonValue],
    trust: TrustStore,
    among: Iterable[int] | None = None,
) -> None:
    """Give each failed check that derived an expected text the text the receipt holds.

    A check's ``data.expected`` is what sealverify derived; the receipt's member at the check's
    location is what it was compared with. A pin mismatch compares the receipt's key with the
    pinned keys. Checks that already carry their comparison keep it. ``among``: the indexes
    of every check that does not pass, when the caller knows them (only these are read).
    """
    for index in range(len(checks)) if among is None else among:
        check = checks[index]
        if check.status != _FAIL or check.compared is not None:
            continue
        compared = _compared(check, doc, trust)
        if compared is not None:
            checks[index] = replace(check, compared=compared)
