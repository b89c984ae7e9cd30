"""Decision semantics that need no replay: what an ALLOW needs, what authorises it, cert hashes.

seal-host@099be66 ``authorization_decision.rs`` ``authorization_decision_from_step``: an ALLOW
is a ``forward`` route, which the kernel emits only when every gating kernel allows
(mcp-seal-dev ``Seal/Step.lean``; a call no kernel gated is blocked); ``authorization`` is
``explicit_policy_allow`` exactly when the safety cert reason is ``explicit policy allow``,
and otherwise the ALLOW consumed the approval record whose target is that reason. A cert's
``certHash`` is the kernel's fold of its kernel, verdict and reason (``Seal/Hash.lean``), and
a ``principal`` is copied only from the kernel's output.
"""

from __future__ import annotations

from sealverify._internal.kernel.hashes import audit_hash_parts
from sealverify._internal.receipts.bindings.derived import Derivations, Doc, pointer
from sealverify._internal.receipts.bindings.guards import safety_reason
from sealverify._internal.receipts.embedded import parse_embedded
from sealverify._internal.receipts.families import hex64
from sealverify._internal.results.model import Check, fail, passed
from sealverify._internal.wire.strictjson import JsonError, JsonValue

__all__ = ["allow_certs", "audit_principal", "authorization", "cert_hashes"]

_EXPLICIT = "explicit policy allow"
# Families that carry ``authorization`` on every mediated ALLOW (schema §11, seal-host).
_AUTHORIZING = ("seal_receipt", "record_type")


def _mediated_allow(doc: Doc) -> bool:
    return doc.get("bypass") is False and doc.get("verdict") == "ALLOW"


def allow_certs(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """An ALLOW needs certs, every one allowing, among them an allowing safety cert."""
    if not _mediated_allow(doc):
        return []
    certs = doc.get("certs")
    where = pointer("certs")
    if not isinstance(certs, list) or not certs:
        return [fail("binding.allow-certs", "an ALLOW with no cert: no kernel allowed it", where)]
    verdicts = [c.get("verdict") if isinstance(c, dict) else None for c in certs]
    if any(v != "allow" for v in verdicts):
        return [fail("binding.allow-certs", "an ALLOW carries a cert that does not allow", where)]
    safety = [c for c in certs if isinstance(c, dict) and c.get("kernel") == "safety"]
    if not safety:
        return [
            fail(
                "binding.allow-certs",
                "an ALLOW without a safety cert: the safety kernel always gates a mediated call",
                where,
            )
        ]
    return [passed("binding.allow-certs", "every cert allows, the safety cert among them", where)]


def authorization(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """``authorization`` follows from the safety reason; an approval ALLOW names its target."""
    if not _mediated_allow(doc) or not any(name in doc for name in _AUTHORIZING):
        return []
    if doc.get("seal_receipt") == "v1":
        return []  # v1 has no authorization member (schema §1)
    where = pointer("authorization")
    reason = safety_reason(doc)
    value = doc.get("authorization")
    if value is None:
        return [
            fail(
                "binding.authorization",
                "an ALLOW must say what authorised it (authorization)",
                where,
            )
        ]
    if value == "explicit_policy_allow" and reason != _EXPLICIT:
        return [
            fail(
                "binding.authorization",
                f"explicit_policy_allow, but the safety cert reason is {reason!r}: an explicit "
                "policy allow beside a guard target is a contradiction",
                where,
            )
        ]
    if value == "approval" and not hex64(reason):
        return [
            fail(
                "binding.authorization",
                f"approval, but the safety cert reason {reason!r} is not a guard target: only "
                "a target can be approved",
                where,
            )
        ]
    if value == "approval" and not isinstance(doc.get("approval"), dict):
        return [
            fail(
                "binding.authorization",
                "an ALLOW by approval carries no approval block (the consumed approval)",
                where,
            )
        ]
    return [passed("binding.authorization", f"{value} follows from the safety reason", where)]


def cert_hashes(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """Each cert's ``certHash`` is the kernel's fold of its kernel, verdict and reason."""
    certs = doc.get("certs")
    if doc.get("bypass") is not False or not isinstance(certs, list) or not certs:
        return []
    bad: list[str] = []
    for index, cert in enumerate(certs):
        if not isinstance(cert, dict):
            bad.append(f"cert {index} is not an object")
            continue
        kernel, verdict, reason = cert.get("kernel"), cert.get("verdict"), cert.get("reason")
        if not (isinstance(kernel, str) and isinstance(verdict, str) and isinstance(reason, str)):
            bad.append(f"cert {index}: kernel, verdict and reason must be strings")
            continue
        expected = str(audit_hash_parts((kernel, verdict, reason)))
        if cert.get("certHash") != expected:
            bad.append(f"cert {index}: certHash is not {expected}")
    if bad:
        return [fail("binding.cert-hash", "; ".join(bad), pointer("certs"))]
    return [
        passed(
            "binding.cert-hash",
            "every certHash is the kernel's fold of its kernel, verdict and reason",
            pointer("certs"),
        )
    ]


def _kernel_principal(doc: Doc) -> tuple[bool, JsonValue]:
    emitted = doc.get("emitted_bytes")
    if not isinstance(emitted, str):
        return False, None
    try:
        outer = parse_embedded(emitted)
    except JsonError:
        return False, None
    if not isinstance(outer, dict):
        return False, None
    return "principal" in outer, outer.get("principal")


def audit_principal(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """A ``principal`` (and the effect view's) is exactly the one the kernel output names."""
    has, principal = _kernel_principal(doc)
    view = doc.get("effect_view")
    view_principal = view.get("principal") if isinstance(view, dict) else None
    if not has and "principal" not in doc and view_principal is None:
        return []
    where = pointer("principal")
    problems: list[str] = []
    if not has or doc.get("principal") != principal or not isinstance(principal, str):
        problems.append("principal is not the string the kernel output names")
    if isinstance(view, dict) and "principal" in view:
        expected = {"id": principal, "session": view.get("session")}
        if view_principal != expected:
            problems.append("effect_view.principal is not {id: principal, session: session}")
    elif isinstance(view, dict) and has:
        problems.append("effect_view lacks the principal the kernel authenticated")
    if problems:
        return [fail("binding.audit-principal", "; ".join(problems), where)]
    return [passed("binding.audit-principal", "principal is the kernel output's", where)]
