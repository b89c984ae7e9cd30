"""docs/claims.md read as data: one table per family, one row per member pointer."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sealverify._internal.wire.strictjson import JsonValue

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ROOT / "docs" / "claims.md"

KINDS = ("document", "recomputed", "signed", "replay", "asserted", "unbound")
# What each kind demands of a changed value that was re-signed under the pinned keys.
_DEMAND = {
    "document": "FAIL",
    "recomputed": "FAIL",
    "replay": "NOT_VERIFIED",
    "unbound": "NOT_VERIFIED",
    "signed": "ANY",
    "asserted": "ANY",
}
_STRENGTH = {"FAIL": 2, "NOT_VERIFIED": 1, "ANY": 0}
_HEADING = re.compile(r"^## Family `([^`]+)`(?: \(Object B (v[12])\))?\s*$")
_ROW = re.compile(r"^\| `([^`]+)` \|")


@dataclass(frozen=True, slots=True)
class Row:
    """One member row: its pointer pattern, presence, member-set rule, binding and kinds."""

    member: str
    present: str
    members: str
    binds: str
    kinds: tuple[str, ...]

    @property
    def demand(self) -> str:
        """The weakest outcome demand among the row's kinds (FAIL, NOT_VERIFIED, ANY)."""
        return min((_DEMAND[k] for k in self.kinds), key=_STRENGTH.__getitem__)

    @property
    def optional(self) -> bool:
        return self.present.startswith("optional")

    @property
    def subtree(self) -> bool:
        return self.member.endswith("/**")

    @property
    def prefix(self) -> str:
        return self.member[:-3] if self.subtree else self.member


def table_key(family: str, domain: str | None = None) -> str:
    """``v3-b2``/``v3-b1`` for v3 by Object B domain, else the family name."""
    if family != "v3":
        return family
    return "v3-b1" if domain == "seal.object-b/v1" else "v3-b2"


@cache
def tables() -> dict[str, dict[str, Row]]:
    """Every family table of docs/claims.md, keyed by :func:`table_key`, rows by pointer."""
    out: dict[str, dict[str, Row]] = {}
    current: dict[str, Row] | None = None
    for line in CLAIMS.read_text(encoding="utf-8").splitlines():
        heading = _HEADING.match(line)
        if heading:
            family, version = heading.groups()
            key = f"{family}-b{version[1]}" if family == "v3" and version else family
            current = out.setdefault(key, {})
            continue
        if line.startswith("## "):
            current = None
            continue
        if current is None or not _ROW.match(line):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        member = cells[0].strip("`")
        kinds = tuple(k.strip() for k in cells[4].split("/"))
        assert all(k in KINDS for k in kinds), f"{key}: {member}: unknown kind {cells[4]!r}"
        assert member not in current, f"{key}: {member} has two rows"
        current[member] = Row(member, cells[1], cells[2], cells[3], kinds)
    return out


def lookup(table: dict[str, Row], path: str) -> Row | None:
    """The row for a normalized member path: its own row, else the nearest ``**`` above it."""
    pointer = path or "/"
    if pointer in table:
        return table[pointer]
    best: Row | None = None
    for row in table.values():
        if not row.subtree:
            continue
        prefix = row.prefix
        below = pointer == prefix or pointer.startswith((prefix + "/", prefix + "#"))
        if below and (best is None or len(prefix) > len(best.prefix)):
            best = row
    return best


def receipt_table(document: dict[str, JsonValue]) -> str | None:
    """The table key for a parsed receipt (None for a document no family claims)."""
    if document.get("receipt") == "seal.spine/v1":
        return "spine"
    if "seal_live_receipt" in document:
        return "v0-live"
    if document.get("seal_receipt") in ("v1", "v2"):
        return str(document["seal_receipt"])
    if document.get("record_type") == "seal.authorization-decision":
        version = document.get("record_version")
        lexeme = getattr(version, "lexeme", None)
        if lexeme == "2":
            return "v2-host"
        if lexeme == "3":
            signature = document.get("signature")
            domain = signature.get("domain") if isinstance(signature, dict) else None
            return table_key("v3", domain if isinstance(domain, str) else None)
    return None
