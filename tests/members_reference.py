"""The member-set check as it was before its set-difference fast path: the test oracle."""

from __future__ import annotations

from sealverify.receipts.members import LEVELS, Doc, _join, _objects, _owners, _steps, _where
from sealverify.receipts.members import table_key as _table_key
from sealverify.reports.model import Check, fail, passed


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
