"""Check ids the code makes decisions on, as constants: one spelling, checked against the catalogue.

The catalogue (sealverify/_internal/catalogue/checks.toml) stays the one source of what each id
means; these names exist so that code that compares, caps or waives by id names a constant rather
than re-typing the string (tests/results/test_outcomes.py holds that each is a catalogue id). An id
the code only emits may stay a literal at the one place that emits it.
"""

from __future__ import annotations

__all__ = [
    "APPROVAL_RECEIPT_KEY",
    "APPROVAL_SIGNATURE",
    "APPROVAL_TIME",
    "AUTHORITY_APPROVAL_KEY",
    "AUTHORITY_CONFIG_KEY",
    "AUTHORITY_PIN_UNMATCHED",
    "AUTHORITY_PUBLISHED_KEY",
    "AUTHORITY_RECEIPT_KEY",
    "BYPASS_NOT_MEDIATED",
    "CHAIN_RECORD_MALFORMED",
    "CHAIN_START",
    "CHAIN_TRUNCATED",
    "CLAIMS_UNBOUND",
    "DECISION_AUTHENTICATED",
    "DOCUMENT_ROOT_NOT_OBJECT",
    "LEGACY_CANONICAL_REQUEST_OMITS_META",
    "LEGACY_GUARD_TARGET_OMITS_META",
    "REPLAY_DECISION",
    "SCOPE_REQUEST_UNPARSEABLE",
    "TOOLS_COMPARE_INCOMPLETE",
    "TOOLS_PAGES_CURSOR_MISMATCH",
]

# Authority: whether a signer's key is one the user pinned (docs/trust.md).
AUTHORITY_CONFIG_KEY = "authority.config-key"
AUTHORITY_RECEIPT_KEY = "authority.receipt-key"
AUTHORITY_APPROVAL_KEY = "authority.approval-key"
AUTHORITY_PUBLISHED_KEY = "authority.published-key"
AUTHORITY_PIN_UNMATCHED = "authority.pin-unmatched"  # a run note: a pin no subject named
# Approvals a receipt consumed, and approval tokens (docs/approvals.md).
APPROVAL_RECEIPT_KEY = "approval.receipt-key"
APPROVAL_SIGNATURE = "approval.signature"
APPROVAL_TIME = "approval.time"
# The scope of what a receipt proves (docs/claims.md, docs/replay.md).
SCOPE_REQUEST_UNPARSEABLE = "scope.request-unparseable"
DECISION_AUTHENTICATED = "decision.authenticated"
REPLAY_DECISION = "replay.decision"
CLAIMS_UNBOUND = "claims.unbound"
BYPASS_NOT_MEDIATED = "bypass.not-mediated"
DOCUMENT_ROOT_NOT_OBJECT = "document.root-not-object"
# The only waivable checks: legacy projections of hosts that predate the meta-partition ruling.
LEGACY_CANONICAL_REQUEST_OMITS_META = "legacy.canonical-request-omits-meta"
LEGACY_GUARD_TARGET_OMITS_META = "legacy.guard-target-omits-meta"
# The audit chain (docs/chain.md).
CHAIN_START = "chain.start"
CHAIN_RECORD_MALFORMED = "chain.record-malformed"
CHAIN_TRUNCATED = "chain.truncated"
# Tool listings (docs/tool-digests.md).
TOOLS_COMPARE_INCOMPLETE = "tools.compare.incomplete"
TOOLS_PAGES_CURSOR_MISMATCH = "tools.pages.cursor-mismatch"
