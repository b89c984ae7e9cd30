"""Deterministic minting of seal decision receipts under the project's own public test keys.

Everything here is for tests, fixtures and benchmarks. The keys are derived from public seeds
(see :func:`demo_key`), so anyone can mint under them: never pin them outside tests. Byte rules
follow docs/minting.md: seal-host@099be66 ``rust/src/authorization_decision.rs`` (record member
order, canonical_request, args_hash, effect_view, approval block), ``rust/src/providers.rs``
(ApprovalRecord v2 payload and token), ``rust/src/release.rs`` (release frame, Object B v2),
Lean ``Host/Audit.lean`` / ``Ffi.lean`` / mcp-seal-dev ``Seal/Block.lean`` (``emitted_bytes``),
``Kernels/Safety.lean`` (cert hash, guard target), serde pretty output.
Every function is pure: bytes in, bytes out, no clock and no randomness.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from sealverify._internal.approvals import record as approval_record
from sealverify._internal.kernel.profiles import CURRENT
from sealverify._internal.primitives import identities
from sealverify._internal.primitives.objectb import (
    OBJECT_B_V1,
    OBJECT_B_V2,
    preimage_v1,
    preimage_v2,
)
from sealverify._internal.primitives.releaseframe import splice_operation_id
from sealverify._internal.primitives.signatures import key_id
from sealverify._internal.wire import serdejson, strictjson
from sealverify._internal.wire.framing import raw_line, sha256_hex
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue
from sealverify_testkit.kernel_model import (
    decide,
    overall_verdict,
    policy_server,
)
from sealverify_testkit.keys import (
    APPROVER_KEY,
    CONFIG_KEY,
    OTHER_CONFIG_KEY,
    OTHER_RECEIPT_KEY,
    RECEIPT_KEY,
    RFC8032_TEST1_KEY,
    TestKey,
    demo_key,
    demo_operation_id,
)
from sealverify_testkit.records import (
    Cert,
    Record,
    cert_hash,
    emitted_bytes,
    json_int,
    parse_record,
    post_state_hash,
    render_compact,
    render_pretty,
    sign_config,
)
from sealverify_testkit.tokens import approval_v1_token

__all__ = [
    "APPROVER_KEY",
    "CONFIG_KEY",
    "DEMO_KERNEL_CONFIG",
    "DEMO_WASM_SHA256",
    "KERNEL_VALID_CONFIG",
    "OTHER_CONFIG_KEY",
    "OTHER_RECEIPT_KEY",
    "RECEIPT_KEY",
    "RFC8032_TEST1_KEY",
    "Cert",
    "FleetContext",
    "HostContext",
    "TestKey",
    "approval_statement",
    "approval_token",
    "approval_v1_token",
    "cert_hash",
    "demo_key",
    "demo_operation_id",
    "emitted_bytes",
    "guard_target_of",
    "mint_fleet_bypass",
    "mint_fleet_v2",
    "mint_host_v3",
    "mint_many",
    "mint_unparseable_v3",
    "parse_record",
    "post_state_hash",
    "render_compact",
    "render_pretty",
    "resign_v3",
    "sign_config",
    "splice_operation_id",
    "tools_call_frame",
]


# Contexts

# A made-up kernel build, ``sha256(b"sealverify-demo-wasm")``: no seal kernel has it and the
# kernel model has no profile for it, so a receipt naming it is never re-derived (REDUCED at
# best). Tests that need an unknown build name it; the contexts below default to the real
# audited build (seal-host@099be66 VERIFIED_WASM_SHA256), whose decisions the model re-derives.
DEMO_WASM_SHA256 = hashlib.sha256(b"sealverify-demo-wasm").hexdigest()


@dataclass(frozen=True, slots=True)
class HostContext:
    """The producer-side facts a host receipt carries that do not follow from the request.

    Defaults are fixed demo values; ``operation_id`` None derives one from
    ``operation_seed`` (the host draws 32 random bytes).
    """

    now: int = 1_786_000_000_000
    session: str = "seal-host-rs/stdio:4242:1785999990000"
    operation_seed: bytes = b"demo"
    operation_id: str | None = None
    config_key: TestKey = CONFIG_KEY
    receipt_key: TestKey = RECEIPT_KEY
    domain: str = OBJECT_B_V2
    durability_class: str = "asserted_local_fsync"
    temporal_events: int = 1
    wasm_sha256: str = CURRENT.wasm_sha256
    native_executable_sha256: str = hashlib.sha256(b"sealverify-demo-native").hexdigest()
    lean_ffi_sha256: str = hashlib.sha256(b"sealverify-demo-lean-ffi").hexdigest()
    approval_channel: str = "file"
    approver_key: TestKey = APPROVER_KEY
    approver: str = "approver@sealverify.test"
    approval_session: str = "sealverify-demo-approval-session"
    approval_nonce: str | None = None
    # The guard target form: the ruled one over the call's complete context (True), or the
    # deployed host's, context pairs "absent" (False; verify flags it as legacy).
    ruled_target: bool = True

    @property
    def op_id(self) -> str:
        """Return the operation id this context stamps on a receipt."""
        return self.operation_id or demo_operation_id(self.operation_seed)

    @property
    def nonce(self) -> str:
        """The approver's nonce: ``approval_nonce``, or 32 hex derived from ``operation_seed``."""
        if self.approval_nonce is not None:
            return self.approval_nonce
        digest = hashlib.sha256(b"sealverify-demo-approval-nonce\x00" + self.operation_seed)
        return digest.hexdigest()[:32]

    @property
    def authorized_at(self) -> int:
        """When the approver signed: five seconds before ``now`` (the host's ``issued_at``)."""
        return self.now - 5000


@dataclass(frozen=True, slots=True)
class FleetContext:
    """Producer facts for a fleet ``seal_receipt: "v2"`` receipt (seal-check style)."""

    now: int = 1000
    config_key: TestKey = CONFIG_KEY
    temporal_events: int = 1
    wasm_sha256: str = CURRENT.wasm_sha256
    kernel_note: str = (
        "Binary identity of the evaluator actually executed. Hashed in your browser from the "
        "loaded bytes and compared to a pinned constant. This is the ONLY thing verified here."
    )
    provenance_note: str = (
        "What the public Lean proofs ASSERT about the kernel source. NOT verified in your "
        "browser and NOT part of the hash above."
    )
    approval_channel: str = "interactive"
    extra_certs: tuple[Cert, ...] = field(default=())


_HOST_KERNEL_NOTE = (
    "Re-derive against this wasm; the native executor is identified separately, not proven "
    "equivalent."
)


_HOST_PROVENANCE_NOTE = (
    "Source-level provenance asserted by the producer; not established by this authorization "
    "decision."
)


_AXIOMS: list[JsonValue] = ["propext", "Classical.choice", "Quot.sound"]


_TOOLCHAIN = "leanprover/lean4:v4.28.0"


def _host_identity_blocks(ctx: HostContext) -> Record:
    return {
        "kernel_identity": {
            "wasm_sha256": ctx.wasm_sha256,
            "self_verified": True,
            "note": _HOST_KERNEL_NOTE,
        },
        "host_identity": {
            "native_executable_sha256": ctx.native_executable_sha256,
            "lean_ffi_sha256": ctx.lean_ffi_sha256,
            "equivalence": "not_proven",
        },
        "asserted_provenance": {
            "verified_in_browser": False,
            "lean_toolchain": _TOOLCHAIN,
            "axioms": list(_AXIOMS),
            "note": _HOST_PROVENANCE_NOTE,
        },
    }


# Requests


def tools_call_frame(
    name: str,
    arguments: str,
    *,
    request_id: int = 1,
    meta: str | None = None,
    terminator: bytes = b"\n",
) -> bytes:
    """A compact ``tools/call`` request frame; ``arguments``/``meta`` are JSON texts."""
    params = f'"name":{serdejson.string_text(name)},"arguments":{arguments}'
    if meta is not None:
        params = f'"_meta":{meta},' + params
    text = f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{{params}}}}}'
    return text.encode("utf-8") + terminator


_NUMBER_OR_STRING = re.compile(
    r'"(?:[^"\\]|\\.)*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?'
)


def _serde_parse_error(line: str) -> str | None:
    """Serde's error for a line strict JSON accepts: only "number out of range" is emulated."""
    for token in _NUMBER_OR_STRING.finditer(line):
        if token.group().startswith('"'):
            continue
        try:
            serdejson.parse_number(token.group())
        except serdejson.NumberNotRepresentable:
            column = len(line[: token.end()].encode("utf-8"))
            return f"number out of range at line 1 column {column}"
    return None


@dataclass(frozen=True, slots=True)
class _Request:
    frame: bytes
    message: Record
    params: Record
    tool: str
    parse_error: str | None


def _request(frame: bytes) -> _Request:
    line = raw_line(frame)
    message = strictjson.parse_bytes(line)
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        raise ValueError("minting needs a tools/call request the kernel can parse")
    params = message.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("name"), str):
        raise ValueError("minting needs params.name")
    error = _serde_parse_error(line.decode("utf-8"))
    if error is None and not isinstance(params.get("arguments"), dict):
        error = "params.arguments is not an object"
    if error is not None:
        error = f"cannot parse mediated request for receipt: {error}"
    return _Request(frame, message, params, str(params["name"]), error)


def _config(kernel_config: str) -> Record:
    value = strictjson.parse_text(kernel_config)
    if not isinstance(value, dict):
        raise ValueError("kernel_config must be a JSON object")
    return value


def _ttl_ms(config: Record) -> int:
    safety = config.get("safety")
    approval = safety.get("approval") if isinstance(safety, dict) else None
    ttl = approval.get("ttl_seconds") if isinstance(approval, dict) else None
    return int(ttl.lexeme) * 1000 if isinstance(ttl, JsonNumber) else 0


# Host v3


def resign_v3(record: Record, key: TestKey, domain: str = OBJECT_B_V2) -> Record:
    """Return ``record`` with a fresh Object B ``signature`` (last member) under ``key``.

    Tests use it to tamper with a binding *behind* a valid signature. The v2 preimage reads
    ``signed_artifacts``, ``release_status``, ``operation_id`` and ``durability_class`` from the
    record itself.
    """
    body: Record = {k: v for k, v in record.items() if k != "signature"}
    object_b = render_compact(body)
    if domain == OBJECT_B_V1:
        preimage = preimage_v1(object_b)
    elif domain == OBJECT_B_V2:
        artifacts = body["signed_artifacts"]
        assert isinstance(artifacts, dict)
        object_a, statement = artifacts["object_a"], artifacts.get("approval_statement")
        assert isinstance(object_a, str)
        fields = [body[k] for k in ("release_status", "operation_id", "durability_class")]
        assert all(isinstance(f, str) for f in fields)
        preimage = preimage_v2(
            base64.b64decode(object_a, validate=True),
            base64.b64decode(statement, validate=True) if isinstance(statement, str) else None,
            object_b,
            str(fields[0]),
            str(fields[1]),
            str(fields[2]),
        )
    else:
        raise ValueError(f"unknown Object B domain {domain!r}")
    signature = key.sign(preimage)
    body["signature"] = {
        "domain": domain,
        "algorithm": "Ed25519",
        "public_key": key.public_hex,
        "key_id": key_id(key.public_key),
        "encoding": "base64url-nopad",
        "value": base64.urlsafe_b64encode(signature).rstrip(b"=").decode("ascii"),
    }
    return body


# ApprovalRecord v2 (the ed25519 approval channel)

_RENDERER: Record = {
    "name": "sealverify-demo-renderer",
    "version": "1.0.0",
    "manifest_sha256": hashlib.sha256(b"sealverify-demo-renderer-manifest").hexdigest(),
}


def _approval_payload(frame: bytes, target: str, config: Record, ctx: HostContext) -> bytes:
    """The ApprovalRecord v2 payload an approver signs for ``frame`` (providers.rs members).

    The subject is the exact frame with its delimiter; the shown text is the frame's raw line;
    ``authorized_at`` is :attr:`HostContext.authorized_at` and the record's own ``expiry`` is
    ``authorized_at + ttl``. Rendered by :func:`sealverify._internal.approvals.render`.
    """
    shown = raw_line(frame)
    payload: Record = {
        "approval_record_version": json_int(2),
        "target": target,
        "authorized_at": json_int(ctx.authorized_at),
        "expiry": json_int(ctx.authorized_at + _ttl_ms(config)),
        "nonce": ctx.nonce,
        "session": ctx.approval_session,
        "subject_sha256": sha256_hex(frame),
        "subject_length": json_int(len(frame)),
        "subject_scope": approval_record.SUBJECT_SCOPE,
        "subject_encoding": "bytes",
        "shown_sha256": sha256_hex(shown),
        "shown_length": json_int(len(shown)),
        "shown_media_type": "text/plain",
        "shown_character_encoding": "utf-8",
        "renderer": dict(_RENDERER),
        "approver": ctx.approver,
        "authorization_signer_key_id": key_id(ctx.approver_key.public_key),
        "authorization_signature_algorithm": "Ed25519",
        "authorization_domain": approval_record.DOMAIN,
    }
    return approval_record.render(payload)


def approval_statement(
    frame: bytes, kernel_config: str, *, ctx: HostContext = HostContext()
) -> bytes:
    """The canonical ApprovalRecord v2 payload for ``frame``'s guard target under the policy.

    These are the bytes an ``ed25519``-channel ALLOW carries (base64) as
    ``signed_artifacts.approval_statement``; the approver key is ``ctx.approver_key``.
    """
    return _approval_payload(
        frame,
        guard_target_of(frame, kernel_config, ruled=ctx.ruled_target),
        _config(kernel_config),
        ctx,
    )


def approval_token(frame: bytes, kernel_config: str, *, ctx: HostContext = HostContext()) -> bytes:
    """The signed ApprovalRecord v2 token line (NDJSON, no LF) for :func:`approval_statement`.

    Members ``payload, signature_algorithm, signature_encoding, signer_key_id, signature``;
    Ed25519 by ``ctx.approver_key`` over ``"seal.approval-record/v2" 0x00 payload``, base64url
    without padding (seal-host ``providers.rs`` ``verify_approval_record_v2_token``).
    """
    return _signed_token(approval_statement(frame, kernel_config, ctx=ctx), ctx)


def policy_guard_target(frame: bytes, kernel_config: str) -> str:
    """The guard target the kernel computes for a frame's call under its tool's guarded rule.

    Unlike :func:`guard_target_of` (full arguments), this resolves the rule's ``target`` spec:
    ``literal``, ``arg`` paths and ``full_arguments`` parts in any combination
    (:func:`sealverify._internal.primitives.identities.spec_guard_target`). Raises ValueError when
    the policy has no guarded rule for the tool or a path reaches no scalar.
    """
    request = _request(frame)
    config = _config(kernel_config)
    safety = config.get("safety")
    rules = safety.get("tools") if isinstance(safety, dict) else None
    for rule in rules if isinstance(rules, list) else []:
        if (
            isinstance(rule, dict)
            and rule.get("name") == request.tool
            and rule.get("mode") in ("guard", "guarded")
        ):
            target = identities.spec_guard_target(
                request.tool,
                request.params.get("arguments"),
                policy_server(config),
                rule.get("target"),
            )
            if target is None:
                raise ValueError(f"missing target field: {request.tool}")
            return target
    raise ValueError(f"the policy has no guarded rule for {request.tool}")


def approval_statement_for_target(
    frame: bytes, kernel_config: str, target: str, *, ctx: HostContext = HostContext()
) -> bytes:
    """:func:`approval_statement` for a given target (e.g. :func:`policy_guard_target`)."""
    return _approval_payload(frame, target, _config(kernel_config), ctx)


def approval_token_for_target(
    frame: bytes, kernel_config: str, target: str, *, ctx: HostContext = HostContext()
) -> bytes:
    """:func:`approval_token` for a given target: the token an approver signs for a spec target."""
    return _signed_token(approval_statement_for_target(frame, kernel_config, target, ctx=ctx), ctx)


def _signed_token(payload: bytes, ctx: HostContext) -> bytes:
    signature = ctx.approver_key.sign(approval_record.signature_preimage(payload))
    token: Record = {
        "payload": payload.decode("utf-8"),
        "signature_algorithm": "Ed25519",
        "signature_encoding": "base64url-nopad",
        "signer_key_id": key_id(ctx.approver_key.public_key),
        "signature": base64.urlsafe_b64encode(signature).rstrip(b"=").decode("ascii"),
    }
    return render_compact(token)


def _effect_view(request: _Request, config: Record, ctx: HostContext, sha: str) -> Record:
    effect: Record = {"resource": request.tool, "action": "call"}
    effect["arguments"] = request.params["arguments"]
    for member in ("_meta", "requestState", "inputResponses"):
        if member in request.params:
            effect[member] = request.params[member]
    view: Record = {
        "schema": "seal.effect-view/v0",
        "source": "mcp-jsonrpc/tools-call@1",
        "adapter": {"type": "mcp-jsonrpc/tools-call", "version": "1"},
        "session": ctx.session,
        "effect": effect,
        "raw_preimage_sha256": sha,
        "policy_hash": sha256_hex(render_compact(config)),
        "idempotency_key": f"{ctx.session}:{sha}",
    }
    if "epoch" in config:
        view["policy_version"] = config["epoch"]
        view["policy_version_enforced"] = False
    view["authoritative"] = False
    return view


def _host_record(
    frame: bytes, kernel_config: str, approvals: Sequence[str], ctx: HostContext
) -> Record:
    request = _request(frame)
    config = _config(kernel_config)
    certs = decide(
        config, request.params, approvals, ctx.temporal_events, bind_context=ctx.ruled_target
    )
    verdict, reason, deny_kernel = overall_verdict(certs)
    sha = sha256_hex(raw_line(frame))
    record: Record = {"record_type": "seal.authorization-decision", "record_version": json_int(3)}
    parsed = request.parse_error is None
    if parsed:
        record["tool"] = request.tool
        record["arguments"] = request.params["arguments"]
        for member in ("_meta", "requestState", "inputResponses"):
            if member in request.params:
                record[member] = request.params[member]
        record["args_hash"] = identities.args_hash(request.params["arguments"])
        record["effect_view"] = _effect_view(request, config, ctx, sha)
    record["now"] = json_int(ctx.now)
    if parsed:
        canonical = identities.canonical_request(request.params)
        record["canonical_request"] = canonical
        record["canonical_request_sha256"] = sha256_hex(canonical.encode("utf-8"))
    record["request_sha256"] = sha
    record["framed_subject_sha256"] = sha256_hex(frame)
    record["framed_subject_length"] = json_int(len(frame))
    if not parsed:
        record["request_parse_error"] = request.parse_error
    record["bypass"] = False
    record["verdict"] = verdict
    policy_hash = sha256_hex(render_compact(config))
    explicit = certs[0].reason == "explicit policy allow"
    if verdict == "ALLOW":
        record["authorization"] = "explicit_policy_allow" if explicit else "approval"
    record["reason"] = reason
    record["deny_kernel"] = deny_kernel
    statement: bytes | None = None
    if verdict == "ALLOW" and not explicit:
        issued_at = ctx.authorized_at
        identity: Record = {"channel": ctx.approval_channel}
        approval: Record = {"approval_identity": identity}
        if ctx.approval_channel == "ed25519":
            # authorization_decision.rs: key_id = sha256(the pinned approver key); the consumed
            # ApprovalRecord v2 gives nonce and issued_at = authorized_at (providers.rs from_v2).
            identity["key_id"] = key_id(ctx.approver_key.public_key)
            approval["nonce"] = ctx.nonce
            statement = _approval_payload(frame, certs[0].reason, config, ctx)
        approval["issued_at"] = json_int(issued_at)
        approval["expiry"] = json_int(issued_at + _ttl_ms(config))
        approval["policy_hash"] = policy_hash
        record["approval"] = approval
    record["certs"] = [cert.host_form() for cert in certs]
    record["emitted_bytes"] = emitted_bytes(
        config.get("epoch"), request.tool, certs, sha, request.message.get("id")
    )
    record.update(_host_identity_blocks(ctx))
    record["signed_config"] = sign_config(config, ctx.config_key)
    record["kernel_config"] = config
    record["granted_capabilities"] = [{"target": target} for target in approvals]
    if ctx.domain == OBJECT_B_V2:
        # Hosts before d9db8be signed Object B v1 and carried no signed_artifacts.
        record["signed_artifacts"] = {
            "encoding": "base64",
            "object_a": base64.b64encode(frame).decode("ascii"),
            "approval_statement": None
            if statement is None
            else base64.b64encode(statement).decode("ascii"),
        }
    operation_id = ctx.op_id
    record["release_status"] = "PENDING" if verdict == "ALLOW" else "NOT_APPLICABLE"
    record["operation_id"] = operation_id
    record["durability_class"] = ctx.durability_class
    if verdict == "ALLOW":
        release = splice_operation_id(frame, operation_id)
        record["release_valid_until"] = json_int(ctx.now + _ttl_ms(config))
        record["post_state_hash"] = post_state_hash(operation_id, release)
        record["release_frame"] = {
            "encoding": "base64",
            "length": json_int(len(release)),
            "sha256": sha256_hex(release),
            "base64": base64.b64encode(release).decode("ascii"),
        }
    return resign_v3(record, ctx.receipt_key, ctx.domain)


def mint_host_v3(
    frame: bytes,
    kernel_config: str,
    *,
    approvals: Sequence[str] = (),
    ctx: HostContext = HostContext(),
) -> bytes:
    """A seal-host ``record_version: 3`` receipt for one request frame, as pretty file bytes.

    ``frame`` is the wire frame with its delimiter; ``kernel_config`` the policy JSON text
    (member order and number spellings kept). The verdict comes from a small emulation of the
    safety and temporal kernels: a guarded call BLOCKs unless its guard target is in
    ``approvals`` (then ALLOW with ``authorization: approval`` and a release frame); an allow
    rule gives ALLOW ``explicit_policy_allow``. A frame serde cannot parse gives the
    unparseable form (see :func:`mint_unparseable_v3`).
    """
    return render_pretty(_host_record(frame, kernel_config, approvals, ctx))


def mint_unparseable_v3(
    frame: bytes, kernel_config: str, *, ctx: HostContext = HostContext()
) -> bytes:
    """A v3 BLOCK whose request the producer could not re-parse (``request_parse_error``).

    The frame must be a ``tools/call`` the kernel parses but serde refuses (for example an
    argument ``1e309``, the corpus line of seal-host ``Host/Audit.lean``); the receipt then has
    no ``tool``, ``arguments``, ``args_hash``, ``effect_view`` or ``canonical_request``.
    The emulation does not reproduce a build whose number guard refuses such a line (the real
    build does), so give a ``ctx`` naming :data:`DEMO_WASM_SHA256` for a receipt whose decision
    is left not re-derived rather than one the named build contradicts.
    """
    record = _host_record(frame, kernel_config, (), ctx)
    if "request_parse_error" not in record:
        raise ValueError("frame is parseable; use mint_host_v3")
    if record["verdict"] != "BLOCK":
        raise ValueError("an unparseable request must be blocked for this demo")
    return render_pretty(record)


# Fleet v2 (seal-check / assurance-kit producer shape)


def _fleet_record(
    frame: bytes, kernel_config: str, approvals: Sequence[str], ctx: FleetContext
) -> Record:
    request = _request(frame)
    if request.parse_error is not None:
        raise ValueError("fleet minting covers parseable requests only")
    config = _config(kernel_config)
    certs = decide(config, request.params, approvals, ctx.temporal_events) + list(ctx.extra_certs)
    verdict, reason, deny_kernel = overall_verdict(certs)
    canonical = identities.legacy_canonical_request(request.params)
    canonical_sha = sha256_hex(canonical.encode("utf-8"))
    explicit = certs[0].reason == "explicit policy allow"
    record: Record = {
        "seal_receipt": "v2",
        "tool": request.tool,
        "arguments": request.params["arguments"],
        "args_hash": identities.args_hash(request.params["arguments"]),
        "now": json_int(ctx.now),
        "canonical_request": canonical,
        "canonical_request_sha256": canonical_sha,
        "bypass": False,
        "verdict": verdict,
    }
    if verdict == "ALLOW":
        record["authorization"] = "explicit_policy_allow" if explicit else "approval"
    record["reason"] = reason
    record["deny_kernel"] = deny_kernel
    if verdict == "ALLOW" and not explicit:
        record["approval"] = {
            "approval_identity": {"channel": ctx.approval_channel},
            "policy_hash": sha256_hex(render_compact(config)),
        }
    record["certs"] = [cert.fleet_form() for cert in certs]
    # Fleet receipts carry no request_sha256: the kernel judged the canonical request line.
    record["emitted_bytes"] = emitted_bytes(
        config.get("epoch"), request.tool, certs, canonical_sha, json_int(1)
    )
    record["kernel_identity"] = {
        "wasm_sha256": ctx.wasm_sha256,
        "self_verified": True,
        "note": ctx.kernel_note,
    }
    record["asserted_provenance"] = {
        "verified_in_browser": False,
        "lean_toolchain": _TOOLCHAIN,
        "axioms": list(_AXIOMS),
        "note": ctx.provenance_note,
    }
    record["signed_config"] = sign_config(config, ctx.config_key)
    record["kernel_config"] = config
    record["granted_capabilities"] = [{"target": target} for target in approvals]
    return record


def mint_fleet_v2(
    frame: bytes,
    kernel_config: str,
    *,
    approvals: Sequence[str] = (),
    ctx: FleetContext = FleetContext(),
) -> bytes:
    """A fleet ``seal_receipt: "v2"`` receipt (no Object B; ``signed_config`` only)."""
    return render_pretty(_fleet_record(frame, kernel_config, approvals, ctx))


def mint_fleet_bypass(frame: bytes, *, now: int = 1000) -> bytes:
    """A fleet ``seal_receipt: "v2"`` receipt with ``bypass: true``: seal was not in the path."""
    request = _request(frame)
    canonical = identities.legacy_canonical_request(request.params)
    record: Record = {
        "seal_receipt": "v2",
        "tool": request.tool,
        "arguments": request.params["arguments"],
        "now": json_int(now),
        "canonical_request": canonical,
        "canonical_request_sha256": sha256_hex(canonical.encode("utf-8")),
        "bypass": True,
        "verdict": "ALLOW",
        "reason": "SEAL_DECISION_BYPASS=1: seal removed from the path; no mediation performed",
        "deny_kernel": None,
        "kernel_identity": {
            "wasm_sha256": None,
            "self_verified": False,
            "note": "seal bypassed; the verified kernel did not run.",
        },
    }
    return render_pretty(record)


# Demo policy and bulk minting

# The demo policy. ``control_file`` is mandatory in the kernel's config (seal-host
# Host/Config.lean), so the real kernel build, and sealverify's model of it, load this policy
# and the decisions minted under it re-derive byte for byte.
DEMO_KERNEL_CONFIG = (
    '{"epoch":1,"server":"sealverify-demo@1.0.0","safety":{"approval":{"ttl_seconds":120,'
    '"control_file":"/tmp/sealverify-demo-approvals.ndjson"},'
    '"tools":[{"name":"search_notes","mode":"allow","target":[{"full_arguments":true}]},'
    '{"name":"shell_exec","mode":"guard","target":[{"full_arguments":true}]},'
    '{"name":"db.execute","mode":"guard","target":[{"full_arguments":true}]}]},'
    '"temporal":{"enabled":false,"policies":[]}}'
)


_TRACE = (
    '{{"traceparent":"00-{trace}-{span}-01","tracestate":"sealverify=demo",'
    '"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientInfo":{{"name":"sealverify-bench","version":"1.0"}},'
    '"io.modelcontextprotocol/clientCapabilities":{{}}}}'
)


def _config_for_epoch(epoch: int, base: str = DEMO_KERNEL_CONFIG) -> str:
    return base.replace('{"epoch":1,', f'{{"epoch":{epoch},', 1)


# The demo policy under its older name (it has always been the one the kernel loads).
KERNEL_VALID_CONFIG = DEMO_KERNEL_CONFIG


def guard_target_of(frame: bytes, kernel_config: str, *, ruled: bool = True) -> str:
    """The guard target of a frame's call under a policy (what an approval must grant).

    ``ruled``: over the call's complete context (the ruling); False: the deployed host's form.
    """
    request = _request(frame)
    return identities.guard_target(
        request.params, policy_server(_config(kernel_config)), bind_context=ruled
    )


def mint_many(
    n: int,
    *,
    seed: bytes = b"bench",
    start: int = 1_786_000_000_000,
    kernel_config: str = DEMO_KERNEL_CONFIG,
    wasm_sha256: str | None = None,
    ruled_target: bool = True,
) -> Iterator[bytes]:
    """Yield ``n`` realistic, distinct v3 receipts deterministically (for benchmarks).

    Cycles through BLOCK, approved ALLOW (with a release frame) and explicit ALLOW, with
    ``_meta`` trace keys on the explicit calls (on every call when ``ruled_target`` is False)
    and three signed configs (epochs 1-3 of ``kernel_config``). ``wasm_sha256`` names the
    kernel build (default: the real audited build, whose decisions re-derive);
    ``ruled_target`` False mints the guard target as the deployed build computes it.
    """
    for index in range(n):
        digest = hashlib.sha256(seed + index.to_bytes(8, "big")).hexdigest()
        meta = _TRACE.format(trace=digest[:32], span=digest[32:48])
        config = _config_for_epoch(1 + index % 3, kernel_config)
        kind = index % 3
        if kind == 2:
            arguments = f'{{"query":"invoice {index}","limit":{10 + index % 7}}}'
            frame = tools_call_frame("search_notes", arguments, request_id=index, meta=meta)
            approvals: tuple[str, ...] = ()
        else:
            arguments = f'{{"command":"rotate-logs --shard {index} --keep 7","cwd":"/srv/app"}}'
            # The ruled guard target over a call's _meta is one no kernel build computes yet
            # (seal docs/archive/META-PARTITION-SPEC.md is ahead of every build): a guarded
            # call carries _meta only in the deployed form, so
            # every minted decision is the one the named build re-derives.
            guard_meta = None if ruled_target else meta
            frame = tools_call_frame("shell_exec", arguments, request_id=index, meta=guard_meta)
            approved = guard_target_of(frame, config, ruled=ruled_target)
            approvals = (approved,) if kind == 1 else ()
        ctx = HostContext(
            now=start + index * 1000,
            operation_seed=seed + index.to_bytes(8, "big"),
            # Each minted call is the first of its own session (trace ok (1 events)):
            # receipts of one session claiming one position would contradict each other.
            session=f"seal-host-rs/stdio:{4242 + index}:{start}",
        )
        ctx = dataclasses.replace(ctx, ruled_target=ruled_target)
        if wasm_sha256 is not None:
            ctx = dataclasses.replace(ctx, wasm_sha256=wasm_sha256)
        yield mint_host_v3(frame, config, approvals=approvals, ctx=ctx)
