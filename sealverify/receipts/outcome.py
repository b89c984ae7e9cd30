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

The rule is :func:`sealverify.reports.outcomes.decide`, shared by every command: each check
says where it is made whether it caps (``unpinned``/``reduced`` in sealverify.reports.model).
This module declares the receipt words the rule gives (:data:`VOCABULARY` for decision
receipts, :data:`SPINE` for ``seal.spine/v1`` receipts) and names them for the receipt layer.
"""

from __future__ import annotations

from types import MappingProxyType

from sealverify.reports import ids
from sealverify.reports.outcomes import (
    EXIT_CODES,
    NOT_MEDIATED,
    RECEIPT_OUTCOMES,
    Outcome,
    Vocabulary,
    decide,
    exit_code,
)
from sealverify.reports.waivers import WAIVABLE

__all__ = [
    "EXIT_CODES",
    "FAIL",
    "NOT_MEDIATED",
    "OUTCOMES",
    "REDUCED",
    "SPINE",
    "UNPINNED",
    "VERIFIED",
    "VOCABULARY",
    "WAIVABLE",
    "Outcome",
    "decide",
    "exit_code",
]

VERIFIED = Outcome.VERIFIED
REDUCED = Outcome.REDUCED
UNPINNED = Outcome.UNPINNED
FAIL = Outcome.FAIL
OUTCOMES = RECEIPT_OUTCOMES

# A decision receipt (ENF-1..5): no passing check at all is FAIL (U3), a failure FAIL (labelled
# NOT MEDIATED when the receipt is a bypass), an authority not pinned UNPINNED, a reduced scope
# REDUCED, else VERIFIED.
VOCABULARY = Vocabulary(
    passed=VERIFIED,
    failed=FAIL,
    unpinned=UNPINNED,
    reduced=REDUCED,
    empty=FAIL,
    labels=MappingProxyType({ids.BYPASS_NOT_MEDIATED: NOT_MEDIATED}),
)
# A seal.spine/v1 receipt (docs/spine.md): seal's external checker's words, a failure FAIL and a
# signer not pinned UNPINNED; it claims no scope, so nothing reduces it.
SPINE = Vocabulary(passed=VERIFIED, failed=FAIL, unpinned=UNPINNED)
