"""What a receipt claims that no signature and no recomputation binds, named, never passed.

docs/claims.md is the map. Three checks come from it: ``decision.authenticated`` (a decision
is authenticated only by re-deriving it, ``replay.decision``, whatever signs the receipt),
``claims.unbound`` (a member nothing binds: REDUCED) and ``claims.asserted`` (members the
producer states and nothing verifies: reported, never part of what VERIFIED vouches for).
"""

from __future__ import annotations

from collections.abc import Iterator

from sealverify._internal.receipts.bindings.guards import safety_reason
from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, Status, info, passed, reduced
from sealverify._internal.results.vocabulary import Family
from sealverify._internal.wire.spelling import pointer
from sealverify._internal.wire.strictjson import JsonValue

_PASS, _FAIL = Status.PASS, Status.FAIL

__all__ = [
    "ASSERTED",
    "DECISION_CHECK",
    "UNBOUND",
    "UNSIGNED_FAMILIES",
    "asserted_check",
    "decision_check",
    "unbound_check",
]

Doc = dict[str, JsonValue]
DECISION_CHECK = ids.DECISION_AUTHENTICATED
# Families whose decision no receipt signature covers (docs/claims.md).
UNSIGNED_FAMILIES = frozenset({Family.V2_HOST, Family.V2, Family.V1, Family.V0_LIVE})

_FLEET_ASSERTED = (
    "/now",
    "/kernel_identity/self_verified",
    "/kernel_identity/note",
    "/asserted_provenance/lean_toolchain",
    "/asserted_provenance/axioms/**",
    "/asserted_provenance/note",
    "/granted_capabilities/*/note",
    "/policy_id",
    "/execution/**",
    "/gateway/**",
)
_HOST_IDENTITY = (
    "/host_identity/native_executable_sha256",
    "/host_identity/lean_ffi_sha256",
)
_UNSIGNED_APPROVAL = (
    "/approval/approval_identity/channel",
    "/approval/approval_identity/key_id",
    "/approval/nonce",
)
# Members the producer states and nothing verifies, per family (kind `asserted`).
ASSERTED: dict[str, tuple[str, ...]] = {
    Family.V2_HOST: (
        "/now",
        "/effect_view/session",
        "/request_parse_error",
        *_UNSIGNED_APPROVAL,
        "/kernel_identity/self_verified",
        "/kernel_identity/note",
        *_HOST_IDENTITY,
        "/asserted_provenance/lean_toolchain",
        "/asserted_provenance/axioms/**",
        "/asserted_provenance/note",
    ),
    Family.V2: (*_FLEET_ASSERTED, "/request_parse_error", *_UNSIGNED_APPROVAL, *_HOST_IDENTITY),
    Family.V1: _FLEET_ASSERTED,
    Family.V0_LIVE: (
        *_FLEET_ASSERTED,
        "/kernel_identity/lean_toolchain",
        "/kernel_identity/axioms/**",
    ),
}
# Members nothing binds, per family (kind `unbound`): each caps the receipt at REDUCED. The
# approval block is the one exception a proof can lift: an ed25519 approval whose token
# verifies under a pinned approver key (`--approvals`) binds the consent it records.
UNBOUND: dict[str, tuple[str, ...]] = {
    Family.V2_HOST: ("/framed_subject_sha256", "/framed_subject_length", "/approval"),
    Family.V2: ("/action", "/approval"),
}
_EXPLICIT = "explicit policy allow"


def _present(value: JsonValue, steps: list[str], at: str = "") -> Iterator[str]:
    if not steps or steps == ["**"]:
        yield at
        return
    step, rest = steps[0], steps[1:]
    if step == "*" and isinstance(value, list):
        for index, item in enumerate(value):
            yield from _present(item, rest, f"{at}/{index}")
    elif isinstance(value, dict) and step in value:
        yield from _present(value[step], rest, at + pointer(step))


def _found(doc: Doc, patterns: tuple[str, ...]) -> list[str]:
    return [where for pattern in patterns for where in _present(doc, pattern.split("/")[1:])]


def decision_check(family: str, replay: Check) -> Check:
    """Whether a receipt's decision is authenticated: only by re-deriving it (``replay.decision``).

    A receipt signature (v3's Object B) says who stated the decision, not that the kernel
    decided it: seal-check@0632f31 README, ``verify-file.cjs`` "exits 0 only when signature,
    replay, bindings, and the relying-party pin all agree". So in every family that carries a
    kernel decision this check passes only with ``replay.decision`` pass, and otherwise carries
    the re-derivation's own reason (REDUCED at best; a failed re-derivation is FAIL there).
    """
    where = pointer("verdict")
    signed = family not in UNSIGNED_FAMILIES
    if replay.status == _PASS:
        return _AUTHENTICATED[signed]
    cover = (
        "a receipt signature says who stated the decision, not that the kernel decided it"
        if signed
        else f"no receipt signature covers the verdict, certs, emitted_bytes, authorization, "
        f"approval or grants of a {family} receipt"
    )
    return reduced(
        DECISION_CHECK,
        f"{replay.reason}; decision not authenticated: {cover}; REDUCED at best",
        where,
    )


def _authenticated(signed: bool) -> Check:
    cover = (
        "a receipt signature covers the decision and "
        if signed
        else "no receipt signature covers the decision; "
    )
    return passed(
        DECISION_CHECK,
        f"{cover}re-deriving it (replay.decision) shows the named kernel build's rules produce it",
        pointer("verdict"),
    )


# The two passes of decision_check, made once (a check is immutable), by whether it is signed.
_AUTHENTICATED = {signed: _authenticated(signed) for signed in (False, True)}


def _consent_proven(checks: list[Check]) -> bool:
    """An approval token verified under a pinned approver key, and bound to this receipt."""
    verified = any(c.id == ids.APPROVAL_SIGNATURE and c.status == _PASS for c in checks)
    return verified and not any(c.id.startswith("approval.") and c.status == _FAIL for c in checks)


def _consent(doc: Doc, family: str, checks: list[Check]) -> list[str]:
    """Where an unsigned ALLOW states a consent nothing authenticates (the grant it used)."""
    if family not in UNSIGNED_FAMILIES or "approval" in doc or _consent_proven(checks):
        return []
    if doc.get("bypass") is not False or doc.get("verdict") != "ALLOW":
        return []
    reason = safety_reason(doc)
    return [] if reason in (None, _EXPLICIT) else ["/granted_capabilities"]


def unbound_check(doc: Doc, family: str, checks: list[Check]) -> list[Check]:
    """``claims.unbound``: the members of this receipt nothing binds (REDUCED), if any.

    ``checks`` are the receipt's checks so far: a verified approval token lifts the approval.
    """
    patterns = UNBOUND.get(family, ())
    # Only a family that lists the approval, or an unsigned one, asks whether consent is
    # proven (a scan of every check): a v3 receipt has neither, and never pays for it.
    if "/approval" in patterns and _consent_proven(checks):
        patterns = tuple(p for p in patterns if p != "/approval")
    found = _found(doc, patterns) + _consent(doc, family, checks)
    if not found:
        return []
    return [
        reduced(
            ids.CLAIMS_UNBOUND,
            f"claims nothing binds (no receipt signature, nothing to recompute them from): "
            f"{', '.join(found)}; REDUCED at best",
            found[0],
            members=found,
        )
    ]


def asserted_check(doc: Doc, family: str) -> list[Check]:
    """``claims.asserted``: what the producer states and nothing verifies (info), if any."""
    found = _found(doc, ASSERTED.get(family, ()))
    if not found:
        return []
    return [
        info(
            "claims.asserted",
            f"stated by the producer, not verified (VERIFIED does not cover them): "
            f"{', '.join(found)}",
            found[0],
            members=found,
        )
    ]
