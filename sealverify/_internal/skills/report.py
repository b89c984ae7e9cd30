"""The ``skill verify`` report: a SEP-2640 listing against a skills directory or one skill.

``sealverify skill verify`` only reads the listing, the directory or the fetched files, calls
:func:`skill_report`, and writes the report: the library and the command give one answer,
the choice of the listing entry a SKILL.md belongs to included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sealverify._internal.results.model import Report
from sealverify._internal.skills.identity import ResourceFile, verify_skill
from sealverify._internal.skills.listing import (
    DEFAULT_BASE,
    SkillTree,
    read_listing_entries,
    verify_listing,
)
from sealverify._internal.wire.strictjson import JsonError, JsonValue, parse_bytes
from sealverify.errors import InputError, OptionError

__all__ = ["DEFAULT_SKILL_BASE", "FetchedSkill", "ResourceFile", "SkillTree", "skill_report"]

# The uri prefix that names the root of a skills directory (SEP-2640's skill:// scheme).
DEFAULT_SKILL_BASE = DEFAULT_BASE


@dataclass(frozen=True, slots=True)
class FetchedSkill:
    """One skill as fetched: its SKILL.md bytes, the name the report gives it, its other files.

    Each :class:`~sealverify._internal.skills.identity.ResourceFile` is at its ``/``-separated path
    relative to the SKILL.md's directory.
    """

    skill_md: bytes
    name: str = "SKILL.md"
    resources: tuple[ResourceFile, ...] = ()


def _entry(doc: JsonValue, wanted: str | None) -> JsonValue:
    """The one entry a SKILL.md is checked against: the only one, or the one ``wanted`` names."""
    entries = [value for _, value in read_listing_entries(doc).entries]
    if wanted is not None:
        chosen = [v for v in entries if isinstance(v, dict) and v.get("uri") == wanted]
        if not chosen:
            raise OptionError(f"--entry {wanted}: no entry with that uri in the listing")
        return chosen[0]
    if len(entries) != 1:
        raise OptionError(
            f"the listing has {len(entries)} entries: pass --entry URI to choose the one "
            "SKILL.md belongs to, or --dir to verify them all"
        )
    return entries[0]


def skill_report(
    listing: bytes,
    *,
    tree: SkillTree | None = None,
    skill: FetchedSkill | None = None,
    entry: str | None = None,
    base: str = DEFAULT_SKILL_BASE,
    partial: bool = False,
    listing_name: str = "listing",
) -> Report:
    """The report ``sealverify skill verify`` writes for ``listing`` (its bytes, strict JSON).

    With ``tree`` (a skills directory as read), every entry against the directory and every
    skill directory against the listing (``partial``: a directory without an entry is
    reported, not failed). With ``skill``, one entry (the only one, or the one whose uri is
    ``entry``) against the fetched files. With neither, the listing alone. Exit 0 when
    everything matches, 1 on any mismatch. Raises :class:`InputError` for a listing that is
    not strict JSON, :class:`OptionError` for both ``tree`` and ``skill`` or no such entry.
    """
    try:
        doc = parse_bytes(listing)
    except JsonError as exc:
        raise InputError(f"--listing {listing_name}: not strict JSON: {exc}") from None
    if tree is not None and skill is not None:
        raise OptionError("give either --dir or SKILL.md [FILES], not both")
    if skill is not None:
        resources: Sequence[ResourceFile] = skill.resources
        return verify_skill(_entry(doc, entry), skill.skill_md, list(resources), skill.name)
    return verify_listing(doc, tree, base=base, partial=partial)
