"""Outcome words, what a check does to them, the one exit-code table and the one decision rule.

Every command names its subjects' outcomes with an :class:`Outcome` (a ``str`` enum, so a report
holds the same bytes as the word), and takes its exit code from :data:`EXIT_CODES` through
:func:`exit_code`. A check says, where it is made, what it does to its subject's outcome (its
:class:`Effect`); :func:`decide` reads those effects. The receipt rule is seal-check@0632f31
``receipt.js`` ``verifyReceipt`` and seal-assurance-kit ``docs/VERIFY-PROFILES.md`` §4 (ENF-1..5,
invariants U1-U4): any failed check is FAIL (a bypass receipt is FAIL with the label NOT
MEDIATED); otherwise an authority that is not pinned caps the outcome at UNPINNED; otherwise a
reduced scope is REDUCED; otherwise VERIFIED. An empty check list is FAIL (the vacuity guard, U3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from types import MappingProxyType

from sealverify.reports import ids
from sealverify.reports.effects import Effect
from sealverify.reports.model import Check

__all__ = [
    "EXIT_CODES",
    "MUST_CAP",
    "NOT_MEDIATED",
    "RECEIPTS_BY_SEVERITY",
    "RECEIPT_OUTCOMES",
    "Effect",
    "Outcome",
    "capped",
    "decide",
    "exit_code",
    "severity",
    "worst_code",
]


class Outcome(StrEnum):
    """Every word a command writes as a subject's outcome (``sealverify explain WORD`` tells it).

    A ``StrEnum`` member is its word (``Outcome.FAIL == "FAIL"``, ``str()`` and JSON give the
    word), so reports hold the bytes they always held; its ``repr`` is the word's too, so a
    printed tuple of outcomes reads as it always did (docs/api.md shows them so).
    """

    def __repr__(self) -> str:
        return repr(self.value)

    # verify (receipts); VERIFIED and UNPINNED also partition verify
    VERIFIED = "VERIFIED"
    REDUCED = "REDUCED"
    UNPINNED = "UNPINNED"
    FAIL = "FAIL"
    # approval
    VALID = "VALID"
    DECLINE = "DECLINE"
    INVALID = "INVALID"
    REFUSED = "REFUSED"
    # partition verify; attestation verify (with PASSED, SLSA's verificationResult words)
    FAILED = "FAILED"
    PASSED = "PASSED"
    # chain
    INTACT = "INTACT"
    BROKEN = "BROKEN"
    UNANCHORED = "UNANCHORED"
    # frame and partition emit
    ADMISSIBLE = "ADMISSIBLE"
    REFUSE = "REFUSE"
    # skill verify, skill listing
    PASS = "PASS"
    NOT_EVALUATED = "NOT EVALUATED"
    # lint
    CLEAN = "CLEAN"
    VIOLATIONS = "VIOLATIONS"
    # tools digest: a tool (or the tool set) digested, or not (lowercase, as the report writes)
    DIGESTED = "digested"
    UNDIGESTED = "not-evaluated"
    # tools compare: each tool (the run's state follows from them and the failing findings)
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    NOT_COMPARABLE = "not-comparable"
    # diff: the verdict code (the summary's "verdict"; the subject writes it as a sentence)
    IDENTICAL_BYTES = "identical-bytes"
    SAME_INVOCATION = "same-invocation"
    SAME_ACTION = "same-action"
    DIFFERENT_ACTION = "different-action"
    RECEIPT_INTEGRITY_FAILED = "receipt-integrity-failed"


# The label of a receipt that fails bypass.not-mediated (a sub-label of FAIL, not an outcome).
NOT_MEDIATED = "NOT MEDIATED"
# The four outcomes of a receipt, in the order reports count them.
RECEIPT_OUTCOMES = (Outcome.VERIFIED, Outcome.REDUCED, Outcome.UNPINNED, Outcome.FAIL)

# The one table: each outcome's exit code. A run's code is its worst subject's, worst being
# 1 (a failure: FAIL, INVALID, BROKEN...), then 4 (REDUCED), then 3 (UNPINNED, UNANCHORED),
# then 0: ENF-3 of seal-assurance-kit docs/VERIFY-PROFILES.md for receipts, and the same
# order for every other command (the README's exit-code table says it per command).
# Keyed by Outcome members, which are their words: a subject's outcome read back from JSON (a
# plain str) finds its code too.
EXIT_CODES: Mapping[str, int] = MappingProxyType(
    {
        Outcome.VERIFIED: 0,
        Outcome.REDUCED: 4,
        Outcome.UNPINNED: 3,
        Outcome.FAIL: 1,
        Outcome.VALID: 0,
        Outcome.DECLINE: 0,
        Outcome.INVALID: 1,
        Outcome.REFUSED: 1,
        Outcome.FAILED: 1,
        Outcome.PASSED: 0,
        Outcome.INTACT: 0,
        Outcome.BROKEN: 1,
        Outcome.UNANCHORED: 3,
        Outcome.ADMISSIBLE: 0,
        Outcome.REFUSE: 1,
        Outcome.PASS: 0,
        # An unlisted skill directory whose entry status cannot be judged (pages missing): not a
        # pass (JUnit says so), and not a failure of the run either (docs/skills.md).
        Outcome.NOT_EVALUATED: 0,
        Outcome.CLEAN: 0,
        Outcome.VIOLATIONS: 1,
        Outcome.DIGESTED: 0,
        # A tool with no digest fails tools digest (docs/tool-digests.md): unlike a skill's NOT
        # EVALUATED, the listing the reader asked to digest is not digested.
        Outcome.UNDIGESTED: 1,
        Outcome.ADDED: 1,
        Outcome.REMOVED: 1,
        Outcome.CHANGED: 1,
        Outcome.UNCHANGED: 0,
        Outcome.NOT_COMPARABLE: 1,
        Outcome.IDENTICAL_BYTES: 0,
        Outcome.SAME_INVOCATION: 0,
        Outcome.SAME_ACTION: 1,
        Outcome.DIFFERENT_ACTION: 1,
        Outcome.RECEIPT_INTEGRITY_FAILED: 1,
    }
)
# How bad each exit code is, for picking the run's worst.
_CODE_RANK = {0: 0, 3: 1, 4: 2, 1: 3}


# The floor under what a creation site declares: these ids, not evaluated, cap at least so, even
# when a check was built with a weaker effect (a creation site that forgot). It can only make an
# outcome stricter; tests/test_outcomes.py holds that it names exactly what the sites declare.
MUST_CAP: Mapping[str, Effect] = MappingProxyType(
    {
        ids.APPROVAL_RECEIPT_KEY: Effect.CAPS_UNPINNED,
        ids.AUTHORITY_CONFIG_KEY: Effect.CAPS_UNPINNED,
        ids.AUTHORITY_RECEIPT_KEY: Effect.CAPS_UNPINNED,
        ids.AUTHORITY_APPROVAL_KEY: Effect.CAPS_UNPINNED,
        ids.AUTHORITY_PUBLISHED_KEY: Effect.CAPS_UNPINNED,
        ids.SCOPE_REQUEST_UNPARSEABLE: Effect.CAPS_REDUCED,
        ids.DECISION_AUTHENTICATED: Effect.CAPS_REDUCED,
        ids.REPLAY_DECISION: Effect.CAPS_REDUCED,
        ids.CLAIMS_UNBOUND: Effect.CAPS_REDUCED,
        ids.APPROVAL_TIME: Effect.CAPS_REDUCED,
    }
)
_INFORMS = Effect.INFORMS
_FAILS = Effect.FAILS
_CAPS_UNPINNED = Effect.CAPS_UNPINNED
_CAPS_REDUCED = Effect.CAPS_REDUCED
# Module globals, not ``ids.X`` attribute reads: decide runs once per receipt over ~40 checks.
_REPLAY = ids.REPLAY_DECISION
_DECISION = ids.DECISION_AUTHENTICATED
_BYPASS = ids.BYPASS_NOT_MEDIATED


def _cap(check: Check) -> Effect:
    """A not-evaluated check's effect: as declared, never weaker than :data:`MUST_CAP`."""
    effect = check.effect
    if effect is _INFORMS or effect is _FAILS:
        return MUST_CAP.get(check.id, _INFORMS)
    if effect is _CAPS_REDUCED and MUST_CAP.get(check.id) is _CAPS_UNPINNED:
        return _CAPS_UNPINNED
    return effect


def decide(checks: Sequence[Check]) -> tuple[Outcome, str]:
    """Return ``(outcome, label)`` for one receipt from its checks' statuses and effects.

    ``label`` is ``NOT MEDIATED`` for a failed ``bypass.not-mediated`` check, else "". A
    passing ``replay.decision`` lifts a not-evaluated ``decision.authenticated``: a decision is
    authenticated by re-deriving it, whatever check said it was not.
    """
    # One pass gathers every fact the rules below read (a receipt has ~40 checks; separate
    # scans per rule cost four times as much). The rules are applied in their order after it.
    passes = failed = bypass = replayed = False
    unpinned = reduced_by = reduced = False
    for check in checks:
        status = check.status
        if status == "pass":
            passes = True
            replayed = replayed or check.id == _REPLAY
        elif status == "fail":
            failed = True
            if check.id == _BYPASS:
                bypass = True
        elif status == "not-evaluated":
            effect = _cap(check)
            if effect is _CAPS_UNPINNED:
                unpinned = True
            elif effect is _CAPS_REDUCED:
                if check.id == _DECISION:
                    reduced_by = True
                else:
                    reduced = True
    if not passes:  # also the empty check list
        return Outcome.FAIL, ""
    if failed:
        return Outcome.FAIL, NOT_MEDIATED if bypass else ""
    if unpinned:
        return Outcome.UNPINNED, ""
    if reduced or (reduced_by and not replayed):
        return Outcome.REDUCED, ""
    return Outcome.VERIFIED, ""


def capped(result: Outcome, checks: Iterable[Check], top: Outcome = Outcome.VERIFIED) -> Outcome:
    """``result`` (an outcome decided elsewhere) as UNPINNED when it is ``top`` and a check caps.

    A not-evaluated check whose effect is CAPS_UNPINNED caps it, as in :func:`decide`: the spine
    checker's VERIFIED, an approval token's VALID, an attestation's VERIFIED.
    """
    if result == top and any(
        c.status == "not-evaluated" and _cap(c) is _CAPS_UNPINNED for c in checks
    ):
        return Outcome.UNPINNED
    return result


def severity(outcome: str) -> int:
    """How bad ``outcome`` is, 0 for the best: its exit code's rank (0, then 3, then 4, then 1)."""
    return _CODE_RANK[EXIT_CODES[outcome]]


# The receipt outcomes from best to worst, the order the reports that rank receipts use.
# Typed as words (str), so a dict keyed by them is found by an outcome read back from JSON.
RECEIPTS_BY_SEVERITY: tuple[str, ...] = tuple(sorted(RECEIPT_OUTCOMES, key=severity))


def worst_code(codes: Iterable[int]) -> int:
    """The worst of ``codes`` (exit codes from :data:`EXIT_CODES`): 1, then 4, then 3, then 0."""
    return max(codes, key=_CODE_RANK.__getitem__, default=0)


def exit_code(outcomes: Iterable[str], findings_failed: bool = False) -> int:
    """The run's exit code: its worst outcome's in :data:`EXIT_CODES`, 1 when a finding failed."""
    if findings_failed:
        return 1
    return worst_code(EXIT_CODES[o] for o in set(outcomes))
