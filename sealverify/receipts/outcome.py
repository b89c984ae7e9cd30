"""The P-ENFORCE outcome of one receipt, computed from its checks alone.

seal-check@0632f31 ``receipt.js`` ``verifyReceipt`` and seal-assurance-kit
``docs/VERIFY-PROFILES.md`` §4 (ENF-1..5, invariants U1-U4): any failed check is FAIL (a bypass
receipt is FAIL with the sub-label NOT MEDIATED); otherwise an authority that is not pinned
caps the outcome at UNPINNED; otherwise a reduced scope is REDUCED: a request the host could
not parse, a kernel decision that was not re-derived (``replay.decision`` not evaluated: a
signature says who stated a decision, not that the kernel decided it), a claim nothing binds
(docs/claims.md); otherwise VERIFIED. seal-check@0632f31 README states the same rule:
``verify-file.cjs`` "exits 0 only when signature, replay, bindings, and the relying-party pin
all agree". An empty check list is FAIL (the vacuity guard, U3).
"""

from __future__ import annotations

from collections.abc import Sequence

from sealverify.reports.model import Check
from sealverify.reports.waivers import WAIVABLE

__all__ = [
    "EXIT_CODES",
    "FAIL",
    "NOT_MEDIATED",
    "OUTCOMES",
    "REDUCED",
    "UNPINNED",
    "VERIFIED",
    "WAIVABLE",
    "capped",
    "decide",
    "exit_code",
]

VERIFIED = "VERIFIED"
REDUCED = "REDUCED"
UNPINNED = "UNPINNED"
FAIL = "FAIL"
NOT_MEDIATED = "NOT MEDIATED"
OUTCOMES = (VERIFIED, REDUCED, UNPINNED, FAIL)
# ENF-3 exit codes; the run's code is the worst receipt's (FAIL > REDUCED > UNPINNED > VERIFIED).
EXIT_CODES = {VERIFIED: 0, UNPINNED: 3, REDUCED: 4, FAIL: 1}
_SEVERITY = {VERIFIED: 0, UNPINNED: 1, REDUCED: 2, FAIL: 3}

# Checks that say "authority is not established" when not-evaluated, and "reduced scope".
# authority.published-key is not-evaluated for a signature under a published key: a pin on
# such a key establishes nothing, since anyone can sign with it (docs/trust.md).
# approval.receipt-key is not-evaluated when --approvals was given and no approval key is
# pinned: the approver is a role with no pin (docs/verify.md), so the receipt is UNPINNED.
UNPINNED_IDS = frozenset(
    {
        "approval.receipt-key",
        "authority.config-key",
        "authority.receipt-key",
        "authority.approval-key",
        "authority.published-key",
    }
)
# replay.decision is one of them: every subject this rule judges carries a kernel decision (a
# seal.spine/v1 receipt, which records none, is judged by the spine checker and `capped`).
REDUCED_IDS = frozenset(
    {
        "scope.request-unparseable",
        "decision.authenticated",
        "replay.decision",
        "claims.unbound",
        "approval.time",
    }
)
# The only checks a user may waive (verify --waive, approval --waive, a trust file's "waive"),
# declared once with the waiving rule itself (sealverify.reports.waivers).
# A decision is authenticated by re-deriving it: a passing replay.decision lifts
# decision.authenticated, whatever set that check.
_REPLAY = "replay.decision"
_DECISION = "decision.authenticated"


def decide(checks: Sequence[Check]) -> tuple[str, str]:
    """Return ``(outcome, label)`` for one receipt from its checks.

    ``label`` is ``NOT MEDIATED`` for a failed ``bypass.not-mediated`` check, else "".
    ``not-evaluated`` checks other than the authority, scope and re-derivation ones ("cannot be
    told") never change the outcome; they are reported, not hidden.
    """
    # One pass gathers every fact the rules below read (a receipt has ~40 checks; separate
    # scans per rule cost four times as much). The rules are applied in their order after it.
    passes = failed = bypass = replayed = False
    unevaluated: set[str] = set()
    for check in checks:
        status = check.status
        if status == "pass":
            passes = True
            replayed = replayed or check.id == _REPLAY
        elif status == "fail":
            failed = True
            if check.id == "bypass.not-mediated":
                bypass = True
        elif status == "not-evaluated":
            unevaluated.add(check.id)
    if not passes:  # also the empty check list
        return FAIL, ""
    if replayed:
        unevaluated.discard(_DECISION)
    if failed:
        return FAIL, NOT_MEDIATED if bypass else ""
    if not unevaluated.isdisjoint(UNPINNED_IDS):
        return UNPINNED, ""
    if not unevaluated.isdisjoint(REDUCED_IDS):
        return REDUCED, ""
    return VERIFIED, ""


def capped(result: str, checks: Sequence[Check]) -> str:
    """``result`` (an outcome computed elsewhere, as the spine checker does) capped at UNPINNED.

    VERIFIED becomes UNPINNED when an authority check is not-evaluated, as in :func:`decide`.
    """
    if result == VERIFIED and any(
        c.status == "not-evaluated" and c.id in UNPINNED_IDS for c in checks
    ):
        return UNPINNED
    return result


def exit_code(outcomes: Sequence[str], findings_failed: bool = False) -> int:
    """The run's exit code: 1 any FAIL, else 4 any REDUCED, else 3 any UNPINNED, else 0."""
    worst = max((_SEVERITY[o] for o in outcomes), default=0)
    if findings_failed:
        worst = _SEVERITY[FAIL]
    name = next(o for o, s in _SEVERITY.items() if s == worst)
    return EXIT_CODES[name]
