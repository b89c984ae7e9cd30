"""Approval bindings: policy hash, expiry, the signed approval statement and the effect view."""

from __future__ import annotations

from collections.abc import Sequence

from sealverify._internal.approvals import record as approval_record
from sealverify._internal.receipts.bindings.derived import (
    Derivations,
    Doc,
    pointer,
    sha256_of,
)
from sealverify._internal.receipts.bindings.guards import (
    safety_reason,
)
from sealverify._internal.receipts.families import hex64
from sealverify._internal.receipts.view import Decoded, decode
from sealverify._internal.results.model import Check, fail, passed
from sealverify._internal.wire.framing import sha256_hex
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonValue,
    parse_bytes,
    uint_value,
)

__all__ = [
    "approval_expiry",
    "approval_policy_hash",
    "approval_statement",
    "effect_view",
]


def approval_policy_hash(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """``approval.policy_hash == sha256(compact kernel_config) == sha256(signed payload)``."""
    approval = doc.get("approval")
    if not isinstance(approval, dict):
        return []
    expected, error = (derived or Derivations(doc)).policy_hash()
    config = doc.get("signed_config")
    payload = config.get("payload") if isinstance(config, dict) else None
    value = approval.get("policy_hash")
    ok = (
        expected is not None
        and value == expected
        and (not isinstance(payload, str) or value == sha256_of(payload))
    )
    if ok:
        return [
            passed(
                "binding.approval-policy-hash",
                "approval.policy_hash = sha256(compact kernel_config) = sha256(payload)",
                pointer("approval", "policy_hash"),
            )
        ]
    return [
        fail(
            "binding.approval-policy-hash",
            error or f"approval.policy_hash is not sha256 of the policy ({expected})",
            pointer("approval", "policy_hash"),
        )
    ]


def approval_expiry(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """``approval.expiry == issued_at + safety.approval.ttl_seconds * 1000`` (host producer)."""
    approval = doc.get("approval")
    if not isinstance(approval, dict) or "expiry" not in approval:
        return []
    if "issued_at" not in approval:
        # The host writes expiry only as issued_at + ttl: an expiry alone derives from nothing.
        return [
            fail(
                "binding.approval-expiry",
                "approval.expiry without issued_at: the host derives expiry from issued_at",
                pointer("approval", "expiry"),
            )
        ]
    issued, expiry = uint_value(approval.get("issued_at")), uint_value(approval.get("expiry"))
    config = doc.get("kernel_config")
    safety = config.get("safety") if isinstance(config, dict) else None
    approval_cfg = safety.get("approval") if isinstance(safety, dict) else None
    ttl = uint_value(approval_cfg.get("ttl_seconds")) if isinstance(approval_cfg, dict) else None
    if issued is None or expiry is None or ttl is None:
        return [
            fail(
                "binding.approval-expiry",
                "issued_at, expiry and safety.approval.ttl_seconds must be integers",
                pointer("approval", "expiry"),
            )
        ]
    if expiry == issued + ttl * 1000:
        return [
            passed(
                "binding.approval-expiry",
                "approval.expiry = issued_at + ttl",
                pointer("approval", "expiry"),
            )
        ]
    return [
        fail(
            "binding.approval-expiry",
            f"approval.expiry is not issued_at + ttl_seconds*1000 = {issued + ttl * 1000}",
            pointer("approval", "expiry"),
        )
    ]


_STATEMENT = "binding.approval-statement"


def _statement_payload(
    text: JsonValue, decoded: Decoded | None
) -> tuple[dict[str, JsonValue] | None, list[str]]:
    """Decode and judge an approval statement: (payload, problems as ``"member: why"``)."""
    if not isinstance(text, str):
        return None, ["approval_statement: must be a base64 string or null"]
    decoded = decoded or decode(text)
    statement = decoded.canonical
    if statement is None:
        return None, [f"approval_statement: {decoded.error}"]
    try:
        payload = parse_bytes(statement)
    except JsonError as exc:
        return None, [f"approval_statement: not strict JSON: {exc}"]
    if not isinstance(payload, dict):
        return None, ["approval_statement: not a JSON object"]
    problems = [
        f"{name}: not an ApprovalRecord v2 payload member"
        for name in sorted(payload.keys() - approval_record.PAYLOAD_MEMBERS)
    ]
    problems += [
        f"{name}: missing" for name in sorted(approval_record.PAYLOAD_MEMBERS - payload.keys())
    ]
    for name in sorted(approval_record.PAYLOAD_MEMBERS & payload.keys()):
        problem = approval_record.PAYLOAD_RULES[name](payload[name])
        if problem:
            problems.append(f"{name}: {problem}")
    renderer = payload.get("renderer")
    if isinstance(renderer, dict):
        if set(renderer) != approval_record.RENDERER_MEMBERS:
            problems.append("renderer: members must be exactly name, version, manifest_sha256")
        for name in sorted(approval_record.RENDERER_MEMBERS & renderer.keys()):
            problem = approval_record.RENDERER_RULES[name](renderer[name])
            if problem:
                problems.append(f"renderer.{name}: {problem}")
    try:
        canonical = approval_record.render(payload) == statement
    except approval_record.NotRenderable as exc:
        problems.append(f"approval_statement: cannot be re-rendered: {exc}")
    else:
        if not canonical:
            problems.append(
                "approval_statement: not byte-equal to its re-render (keys sorted by UTF-8 "
                "bytes, no whitespace, C0 as \\u00xx)"
            )
    return payload, problems


def approval_statement(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """Object B v2 ``approval_statement``: the consumed ApprovalRecord v2 payload, bound.

    seal-host@099be66 ``authorization_decision.rs`` signs the canonical payload of the consumed
    ApprovalRecord v2 (``providers.rs`` ``canonical_approval_v2_payload``) under Object B v2,
    and builds the approval block from the same record (``from_v2``: ``nonce``,
    ``issued_at = authorized_at``; ``key_id`` = sha256 of the pinned approver key). Only the
    ``ed25519`` channel admits v2 records, and it admits nothing else, so a statement goes with
    exactly that channel: a null statement on an ``ed25519`` approval, or a statement on any
    other receipt, fails. Each payload member that disagrees with the receipt fails by name.
    """
    artifacts = doc.get("signed_artifacts")
    if not isinstance(artifacts, dict):
        return []
    where = pointer("signed_artifacts", "approval_statement")
    text = artifacts.get("approval_statement")
    approval = doc.get("approval")
    approval = approval if isinstance(approval, dict) else {}
    identity = approval.get("approval_identity")
    identity = identity if isinstance(identity, dict) else {}
    channel = identity.get("channel")
    if text is None:
        if channel != "ed25519":
            return []
        return [
            fail(
                _STATEMENT,
                "approval_statement is null but the approval channel is ed25519: seal-host "
                "admits only ApprovalRecord v2 on that channel and signs its payload here",
                where,
                member="approval_statement",
            )
        ]
    derived = derived or Derivations(doc)
    payload, problems = _statement_payload(text, derived.view.statement)
    if payload is not None:
        problems += _statement_bindings(doc, payload, approval, identity, derived)
    if channel != "ed25519":
        problems.append(
            f"approval.approval_identity.channel: {channel!r}, but a statement is only carried "
            "for a consumed ed25519 (ApprovalRecord v2) approval"
        )
    if not problems:
        return [
            passed(
                _STATEMENT,
                "approval_statement is a canonical ApprovalRecord v2 payload bound to the "
                "safety target, Object A, approval nonce, issued_at and key_id",
                where,
            )
        ]
    return [
        fail(_STATEMENT, problem, where, member=problem.split(":", 1)[0]) for problem in problems
    ]


def _statement_bindings(
    doc: Doc, payload: dict[str, JsonValue], approval: Doc, identity: Doc, derived: Derivations
) -> list[str]:
    frame, _ = derived.object_a()
    subject_sha = [doc.get("framed_subject_sha256")]
    subject_len = [uint_value(doc.get("framed_subject_length"))]
    if frame is not None:
        subject_sha.append(sha256_hex(frame))
        subject_len.append(len(frame))
    expected: list[tuple[str, object, Sequence[object], str]] = [
        ("target", payload.get("target"), [safety_reason(doc)], "the safety cert reason"),
        (
            "subject_sha256",
            payload.get("subject_sha256"),
            subject_sha,
            "framed_subject_sha256 and sha256(Object A)",
        ),
        (
            "subject_length",
            uint_value(payload.get("subject_length")),
            subject_len,
            "framed_subject_length and the length of Object A",
        ),
        ("nonce", payload.get("nonce"), [approval.get("nonce")], "approval.nonce"),
        (
            "authorized_at",
            uint_value(payload.get("authorized_at")),
            [uint_value(approval.get("issued_at"))],
            "approval.issued_at",
        ),
        (
            "authorization_signer_key_id",
            payload.get("authorization_signer_key_id"),
            [identity.get("key_id")],
            "approval.approval_identity.key_id",
        ),
    ]
    problems: list[str] = []
    for member, value, wanted, what in expected:
        if value is None or any(value != w for w in wanted):
            problems.append(f"{member}: {value!s} is not {what} ({', '.join(map(str, wanted))})")
    return problems


def effect_view(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """Host ``effect_view``: raw preimage hash, policy hash, idempotency key and the effect."""
    view = doc.get("effect_view")
    if not isinstance(view, dict):
        return []
    checks: list[Check] = []
    request = doc.get("request_sha256")

    def check(name: str, ok: bool, what: str) -> None:
        cid, where = _VIEW_SITES[name]
        checks.append(passed(cid, what, where) if ok else fail(cid, f"not: {what}", where))

    check(
        "raw_preimage_sha256",
        hex64(request) and view.get("raw_preimage_sha256") == request,
        "effect_view.raw_preimage_sha256 = request_sha256",
    )
    expected, _ = (derived or Derivations(doc)).policy_hash()
    check(
        "policy_hash",
        expected is not None and view.get("policy_hash") == expected,
        "effect_view.policy_hash = sha256(compact kernel_config)",
    )
    session = view.get("session")
    check(
        "idempotency_key",
        isinstance(session, str)
        and isinstance(request, str)
        and view.get("idempotency_key") == f"{session}:{request}",
        "effect_view.idempotency_key = session:request_sha256",
    )
    effect = view.get("effect")
    same = (
        isinstance(effect, dict)
        and effect.get("resource") == doc.get("tool")
        and (effect.get("action") == "call")
        and all(
            (m in effect) == (m in doc) and effect.get(m) == doc.get(m)
            for m in ("arguments", "_meta", "requestState", "inputResponses")
        )
    )
    check("effect", same, "effect_view.effect = {resource: tool, action: call, arguments, ...}")
    config = doc.get("kernel_config")
    if (isinstance(config, dict) and "epoch" in config) or "policy_version" in view:
        epoch = config.get("epoch") if isinstance(config, dict) else None
        check(
            "policy_version",
            epoch is not None and view.get("policy_version") == epoch,
            "effect_view.policy_version = kernel_config.epoch",
        )
    checks.extend(_effect_view_constants(view))
    return checks


# Each effect_view member checked: its check id and location, spelled once per process.
_VIEW_SITES: dict[str, tuple[str, str]] = {
    name: (f"binding.effect-view.{name.replace('_', '-')}", pointer("effect_view", name))
    for name in (
        "raw_preimage_sha256",
        "policy_hash",
        "idempotency_key",
        "effect",
        "policy_version",
    )
}


# The values seal-host@099be66 authorization_decision.rs ``effect_view`` always writes.
_VIEW_CONSTANTS: tuple[tuple[tuple[str, ...], JsonValue], ...] = (
    (("schema",), "seal.effect-view/v0"),
    (("source",), "mcp-jsonrpc/tools-call@1"),
    (("adapter", "type"), "mcp-jsonrpc/tools-call"),
    (("adapter", "version"), "1"),
    (("authoritative",), False),
)


def _effect_view_constants(view: Doc) -> list[Check]:
    adapter = view.get("adapter")
    if (
        # The view every host writes, told at once: each value of its exact type (a bool is
        # not a str, and ``False`` is not ``0``), so no check below would fail.
        type(adapter) is dict
        and type(view.get("schema")) is str
        and view["schema"] == "seal.effect-view/v0"
        and type(view.get("source")) is str
        and view["source"] == "mcp-jsonrpc/tools-call@1"
        and type(adapter.get("type")) is str
        and adapter["type"] == "mcp-jsonrpc/tools-call"
        and type(adapter.get("version")) is str
        and adapter["version"] == "1"
        and view.get("authoritative") is False
        and (
            ("policy_version" not in view and "policy_version_enforced" not in view)
            or view.get("policy_version_enforced") is False
        )
    ):
        return []
    return _constant_checks(view)


def _constant_checks(view: Doc) -> list[Check]:
    """The rule-by-rule definition of :func:`_effect_view_constants` (the test oracle)."""
    checks: list[Check] = []
    wanted = list(_VIEW_CONSTANTS)
    if "policy_version" in view or "policy_version_enforced" in view:
        wanted.append((("policy_version_enforced",), False))
    for path, value in wanted:
        found: JsonValue = view
        for step in path:
            found = found.get(step) if isinstance(found, dict) else None
        if not (type(found) is type(value) and found == value):
            checks.append(
                fail(
                    "format.fields",
                    f"effect_view.{'.'.join(path)} must be {value!r} (the host writes no other)",
                    pointer("effect_view", *path),
                )
            )
    return checks
