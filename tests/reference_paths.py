"""The computations verify's fast paths replaced, kept as the test oracle for them."""

from __future__ import annotations

import unicodedata

from sealverify.receipts.members import LEVELS, Doc, _join, _objects, _owners, _steps, _where
from sealverify.receipts.members import table_key as _table_key
from sealverify.reports.model import Check, fail, passed
from sealverify.wire.guards import _STRING
from sealverify.wire.strictjson import JsonValue


def member_checks(doc: Doc, family: str) -> list[Check]:
    """Every level's members, one name at a time (no set difference first)."""
    key = _table_key(doc, family)
    checks: list[Check] = []
    for level in LEVELS[key]:
        for at, here in _objects(doc, _steps(level.at), []):
            where = _where(at)
            for name in here:
                if name in level.members:
                    continue
                owners = _owners(name, key) if level.at == "/" else []
                what = (
                    f"{name} is a member of family {', '.join(owners)}, not of {key}"
                    if owners
                    else f"{name} is not a member of {level.at} in family {key}"
                )
                checks.append(
                    fail("receipt.members", what, _join(where, name), member=name, level=level.at)
                )
            for name, required in level.members.items():
                if required is not None and name not in here and required(doc, here):
                    checks.append(
                        fail(
                            "receipt.members",
                            f"{name} is missing from {level.at}: the producer always writes it "
                            "here",
                            _join(where, name),
                            member=name,
                            level=level.at,
                        )
                    )
    if checks:
        return checks
    return [passed("receipt.members", f"every level holds exactly the members of family {key}")]


def escaped_keys(text: str) -> list[str]:
    """Every string of the text followed by a colon, tested for a backslash (no cue first)."""
    found: list[str] = []
    pos = 0
    while True:
        match = _STRING.search(text, pos)
        if match is None:
            return found
        pos = match.end()
        rest = text[pos : pos + 64].lstrip(" \t\r\n")
        if rest.startswith(":") and "\\" in match.group():
            found.append(match.group()[:60])


def unicode_equivalent_keys(value: JsonValue) -> list[tuple[str, str]]:
    """Every key NFC-normalized, ASCII ones too."""
    found: list[tuple[str, str]] = []
    stack: list[JsonValue] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            seen: dict[str, str] = {}
            for key in item:
                norm = unicodedata.normalize("NFC", key)
                if norm in seen:
                    found.append((seen[norm], key))
                seen.setdefault(norm, key)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
