"""Outcome words, what a check does to them, the one exit-code table and the one verdict rule.

Every command names its subjects' outcomes with an :class:`Outcome` (a ``str`` enum, so a report
holds the same bytes as the word), and takes its exit code from :data:`EXIT_CODES` through
:func:`exit_code`. A check says, where it is made, what it does to its subject's outcome (its
:class:`Effect`); :func:`decide` reads those effects, never a check's id, and names the result
in the words of the command's :class:`Vocabulary`, declared beside its report
(docs/architecture.md, "One verdict rule"). The receipt rule is seal-check@0632f31
``receipt.js`` ``verifyReceipt`` and seal-assurance-kit ``docs/VERIFY-PROFILES.md`` §4 (ENF-1..5,
invariants U1-U4): any failed check is FAIL (a bypass receipt is FAIL with the label NOT
MEDIATED); otherwise an authority that is not pinned caps the outcome at UNPINNED; otherwise a
reduced scope is REDUCED; otherwise VERIFIED. An empty check list is FAIL (the vacuity guard, U3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Final, NamedTuple, assert_never

from sealverify._internal.results.effects import Effect
from sealverify._internal.results.model import Check, Status

__all__ = [
    "EXIT_CODES",
    "NOT_MEDIATED",
    "RECEIPTS_BY_SEVERITY",
    "RECEIPT_OUTCOMES",
    "Effect",
    "Outcome",
    "Verdict",
    "Vocabulary",
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
    NOT_A_CHAIN = "NOT A CHAIN"  # the input holds no chain record: nothing to call intact
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
        Outcome.NOT_A_CHAIN: 1,
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


_NO_LABELS: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """What one command calls its subjects under :func:`decide`, declared beside its report.

    ``failed`` is the word for a subject with a failed check and ``passed`` for one whose
    checks neither fail nor cap. A not-evaluated check caps by the effect it declares where it
    is made: CAPS_UNPINNED gives ``unpinned``, CAPS_REDUCED ``reduced``, and any not-evaluated
    check at all ``not_evaluated``; a cap the command has no word for (None) leaves the
    outcome as it is. ``empty`` is the word for a subject with no passing check (the receipt
    rule's vacuity guard), None where a command has none. ``labels`` names a sub-label for a
    failed check (a bypass receipt's NOT MEDIATED): the id it is keyed by is the command's, not
    the rule's.
    """

    passed: Outcome
    failed: Outcome
    unpinned: Outcome | None = None
    reduced: Outcome | None = None
    not_evaluated: Outcome | None = None
    empty: Outcome | None = None
    labels: Mapping[str, str] = field(default_factory=lambda: _NO_LABELS)


class Verdict(NamedTuple):
    """A subject's outcome and the sub-label of its failure ("" when there is none)."""

    outcome: Outcome
    label: str


_PASS, _FAIL, _NOT_EVALUATED = Status.PASS, Status.FAIL, Status.NOT_EVALUATED
# Final: mypy reads each as its member, so the branches on an effect below are exhaustive.
_CAPS_UNPINNED: Final = Effect.CAPS_UNPINNED
_CAPS_REDUCED: Final = Effect.CAPS_REDUCED
_INFORMS: Final = Effect.INFORMS
_FAILS: Final = Effect.FAILS


def decide(checks: Iterable[Check], vocabulary: Vocabulary) -> Verdict:
    """The one verdict rule: a subject's outcome from its checks, in ``vocabulary``'s words.

    In this order: no passing check is ``empty`` (when the command has that guard); a failed
    check is ``failed`` (whatever effect it declares: fail closed), with the label
    ``vocabulary.labels`` gives the first failed check that has one; a not-evaluated check that
    declares CAPS_UNPINNED is ``unpinned``; one that declares CAPS_REDUCED is ``reduced``; then
    any not-evaluated check at all is ``not_evaluated``; otherwise ``passed``. A cap the
    vocabulary has no word for is passed over. The rule reads statuses and effects, never a
    check's id.
    """
    # One pass gathers every fact the rules below read (a receipt has ~40 checks; separate
    # scans per rule cost four times as much). The rules are applied in their order after it.
    labels = vocabulary.labels
    passes = failed = unpinned = reduced = unevaluated = False
    label = ""
    for check in checks:
        status = check.status
        if status == _PASS:
            passes = True
        elif status == _FAIL:
            if labels and not label:
                label = labels.get(check.id, "")
            failed = True
        elif status == _NOT_EVALUATED:
            unevaluated = True
            effect = check.effect
            if effect is _CAPS_UNPINNED:
                unpinned = True
            elif effect is _CAPS_REDUCED:
                reduced = True
            elif effect is _INFORMS or effect is _FAILS:  # not a failure: it was not evaluated
                pass
            else:
                assert_never(effect)
    if not passes and vocabulary.empty is not None:  # also the empty check list
        return Verdict(vocabulary.empty, "")
    if failed:
        return Verdict(vocabulary.failed, label)
    for capped, word in (
        (unpinned, vocabulary.unpinned),
        (reduced, vocabulary.reduced),
        (unevaluated, vocabulary.not_evaluated),
    ):
        if capped and word is not None:
            return Verdict(word, "")
    return Verdict(vocabulary.passed, "")


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
