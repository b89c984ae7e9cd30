"""Every binding a seal decision receipt claims, recomputed from its bytes, never trusted.

One function per binding; each returns the ``Check`` values it establishes, with stable ids
(``binding.*``, ``signature.*``, ``legacy.*``), or an empty list when the binding does not
apply to this receipt. Byte rules come from the core (serdejson, leanjson, identities,
framing); the upstream sources each binding mirrors are cited in docs/verify.md.
"""

from __future__ import annotations

from sealverify._internal.receipts.bindings.approvals import (
    approval_expiry,
    approval_policy_hash,
    approval_statement,
    effect_view,
)
from sealverify._internal.receipts.bindings.decision import (
    allow_certs,
    audit_principal,
    authorization,
    cert_hashes,
)
from sealverify._internal.receipts.bindings.derived import (
    CANNOT_RECONSTRUCT,
    Binding,
    Derivations,
    frame_params,
)
from sealverify._internal.receipts.bindings.guards import grants, guard_target
from sealverify._internal.receipts.bindings.kernel_audit import audit, verdict_reason
from sealverify._internal.receipts.bindings.object_a import object_a
from sealverify._internal.receipts.bindings.releases import release, release_companions
from sealverify._internal.receipts.bindings.request import args_hash, canonical_request, legacy_meta
from sealverify._internal.receipts.bindings.signatures import (
    config_binding,
    config_signature,
    object_b_signature,
)

__all__ = [
    "ALL_BINDINGS",
    "CANNOT_RECONSTRUCT",
    "V3_BINDINGS",
    "Binding",
    "Derivations",
    "allow_certs",
    "approval_expiry",
    "approval_policy_hash",
    "approval_statement",
    "args_hash",
    "audit",
    "audit_principal",
    "authorization",
    "canonical_request",
    "cert_hashes",
    "config_binding",
    "config_signature",
    "effect_view",
    "frame_params",
    "grants",
    "guard_target",
    "legacy_meta",
    "object_a",
    "object_b_signature",
    "release",
    "release_companions",
    "verdict_reason",
]


ALL_BINDINGS: tuple[Binding, ...] = (
    args_hash,
    canonical_request,
    object_a,
    legacy_meta,
    audit,
    verdict_reason,
    allow_certs,
    authorization,
    cert_hashes,
    audit_principal,
    guard_target,
    grants,
    approval_policy_hash,
    approval_expiry,
    effect_view,
    config_binding,
    config_signature,
)


"""Bindings of every decision-receipt family (each returns [] where it does not apply)."""


V3_BINDINGS: tuple[Binding, ...] = (
    release_companions,
    release,
    approval_statement,
    object_b_signature,
)


"""Bindings only a ``record_version: 3`` receipt carries (release authority, Object B)."""
