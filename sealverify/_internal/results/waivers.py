"""Waivers of legacy checks: which ids a user may waive, and how a waived failure is shown.

One rule for every command that reports a ``legacy.*`` finding (``verify``, ``approval``):
only the legacy projections of hosts that predate the meta-partition ruling (seal
docs/archive/META-PARTITION-SPEC.md) can be waived; a signature or binding check never is. A
waived check keeps its id, location and data, with status ``waived``: shown, never a pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, Status, waived
from sealverify.errors import OptionError

_FAIL, _WAIVED = Status.FAIL, Status.WAIVED

__all__ = ["WAIVABLE", "WAIVER_REASON", "apply_waivers", "waivable", "waived_ids"]

# The only checks a user may waive (--waive, a trust file's "waive").
WAIVABLE = frozenset({ids.LEGACY_CANONICAL_REQUEST_OMITS_META, ids.LEGACY_GUARD_TARGET_OMITS_META})
WAIVER_REASON = "the fleet runs a host that predates the ruling"


def waivable(ids: Iterable[str]) -> frozenset[str]:
    """``ids`` as a set, or :class:`OptionError` naming those that can never be waived."""
    wanted = frozenset(ids)
    refused = sorted(wanted - WAIVABLE)
    if refused:
        raise OptionError(
            "only these checks can be waived: "
            + ", ".join(sorted(WAIVABLE))
            + f"; not {', '.join(refused)} (signature and binding checks never are)"
        )
    return wanted


def apply_waivers(
    checks: Sequence[Check], waivers: frozenset[str], among: Iterable[int] | None = None
) -> list[Check]:
    """``checks`` with each failure in ``waivers`` shown as waived (never as a pass).

    ``among``: the indexes of every check that does not pass, when the caller knows them (a
    receipt's ~40 checks mostly pass, and only these are read).
    """
    if not waivers:
        return list(checks)
    if among is None:
        return [
            waived(c, WAIVER_REASON) if c.status == _FAIL and c.id in waivers else c for c in checks
        ]
    out = list(checks)
    for index in among:
        check = out[index]
        if check.status == _FAIL and check.id in waivers:
            out[index] = waived(check, WAIVER_REASON)
    return out


def waived_ids(checks: Iterable[Check]) -> list[str]:
    """The sorted, distinct ids of the waived checks (a subject's ``waived`` fact)."""
    return sorted({c.id for c in checks if c.status == _WAIVED})
