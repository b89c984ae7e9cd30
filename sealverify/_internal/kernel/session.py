"""One kernel session: ``seal_init``, ``seal_decide`` and the step they run, state carried.

Mirrors seal-host ``Ffi.lean`` (``initImpl``/``initFromConfig``, ``stepImpl``, ``registryFor``,
``gatePlanFor``), ``Host/Canonical.lean`` (``classifyLine``), ``Host/Registry.lean``
(``dispatch``: ingest committed at once, decide states only on a combined allow,
``combineVerdicts``, ``denyReason``), ``Host/Audit.lean`` (``auditLine``) and
``Seal/Block.lean`` (``blockResponseLine``). Every output is the exact string the kernel returns;
:class:`StepResult` also carries the parts (route, verdicts, response, audit) for reports.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from sealverify._internal.kernel import kernels as K
from sealverify._internal.kernel.canonical import is_canonical
from sealverify._internal.kernel.config import TrustedConfig, parse_bundle
from sealverify._internal.kernel.evidence import (
    Approval,
    approval_events,
    parse_forecasts,
    parse_grants,
    parse_votes,
)
from sealverify._internal.kernel.gate import mcp_version_gate, observe
from sealverify._internal.kernel.guards import first_failed_guard, keys_safe, numbers_safe
from sealverify._internal.kernel.ljson import (
    ABSENT,
    Absent,
    LeanError,
    LValue,
    compress,
    is_nat,
    nat_json,
    parse,
)
from sealverify._internal.kernel.lpath import trim_ascii
from sealverify._internal.kernel.memo import text_cache
from sealverify._internal.kernel.principal import hex_decode, nacl_verify, verify_envelope
from sealverify._internal.kernel.profiles import BuildProfile
from sealverify._internal.kernel.wirecue import Unproven, proven_parsed, proven_request
from sealverify._internal.wire.leanjson import LeanNumber
from sealverify._internal.wire.strictjson import JsonValue

__all__ = [
    "REFUSE_RESPONSE",
    "Classified",
    "InitResult",
    "KernelSession",
    "Known",
    "SessionState",
    "StepResult",
    "classify_parsed",
]

Classified = tuple[str, K.Action | None, str | None]
# A line known from its reader's strict parse: the line, its classification, its parse.
# A line its reader parsed: the line, its classification, ``Json.parse`` of it and the SHA-256
# hex of its UTF-8 bytes (None: not known, the audit line hashes it).
Known = tuple[str, Classified, LValue, str | None]

REFUSE_RESPONSE = (
    compress(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": LeanNumber(True, "32600", 0),
                "message": "seal-host: request refused — unsafe numeric literal",
            },
        }
    )
    + "\n"
)


def err_json(message: str) -> str:
    """``errJson``: ``{"error": message, "ok": false}``."""
    return compress({"ok": False, "error": message})


@dataclass(slots=True)
class SessionState:
    """Every ``IO.Ref`` of a session: the kernels' states and the M.2 revision selection.

    The held states are updated in place by what each step changes (``Host/Registry.lean``
    ``dispatch``: ingested evidence at once, a decide's change only on a combined allow), so a
    step costs what it changes, not the state it holds.
    """

    safety: K.SafetyState = field(default_factory=K.SafetyState)
    temporal: K.TemporalState = K.EMPTY_TRACE
    linear: K.LinearState = field(default_factory=K.LinearState)
    budget: K.BudgetState = field(default_factory=dict)
    principal_budget: K.PrincipalBudgetState = field(default_factory=dict)
    selection: str = ""


@dataclass(frozen=True, slots=True)
class StepResult:
    """One ``seal_decide`` answer: the exact output and, when mediated, its parts."""

    output: str
    route: str  # passthrough | forward | block | refuse | reject | error
    verdicts: tuple[K.Verdict, ...] = ()
    response: str | None = None
    audit: str | None = None
    principal: str | None = None
    tool: str | None = None
    refused_by: str | None = None  # the wire guard that refused the line


_NEW = object.__new__
# The slots' own setters: a frozen dataclass's ``__init__`` sets each member through
# ``object.__setattr__`` by name, which costs about twice as much per member.
(
    _SET_OUTPUT,
    _SET_ROUTE,
    _SET_VERDICTS,
    _SET_RESPONSE,
    _SET_AUDIT,
    _SET_PRINCIPAL,
    _SET_TOOL,
    _SET_REFUSED_BY,
) = (StepResult.__dict__[name].__set__ for name in StepResult.__slots__)


def mediated_result(
    output: str,
    route: str,
    verdicts: tuple[K.Verdict, ...],
    response: str | None,
    audit: str,
    principal: str | None,
    tool: str,
) -> StepResult:
    """``StepResult(output, route, verdicts, response, audit, principal, tool)``, no __init__.

    The result of every mediated call (one a receipt): built member by member.
    """
    result: StepResult = _NEW(StepResult)
    _SET_OUTPUT(result, output)
    _SET_ROUTE(result, route)
    _SET_VERDICTS(result, verdicts)
    _SET_RESPONSE(result, response)
    _SET_AUDIT(result, audit)
    _SET_PRINCIPAL(result, principal)
    _SET_TOOL(result, tool)
    _SET_REFUSED_BY(result, None)
    return result


@dataclass(frozen=True, slots=True)
class InitResult:
    output: str
    session: KernelSession | None


@dataclass(slots=True)
class KernelSession:
    """A session of one build: the trusted config, the config authority and the state."""

    config: TrustedConfig
    profile: BuildProfile
    authority: bytes = b""
    state: SessionState = field(default_factory=SessionState)
    # One line's classification and parse made from its reader's strict parse
    # (:func:`classify_parsed`), used for exactly that line instead of parsing it again.
    known: Known | None = None

    # --- init ------------------------------------------------------------------------------

    @staticmethod
    def init(envelope_text: str, public_key: str, profile: BuildProfile) -> InitResult:
        """``seal_init``: parse the envelope, check the payload, verify the signature."""
        try:
            envelope = parse(envelope_text)
            payload_json = envelope.get("payload") if isinstance(envelope, dict) else None
            signature_json = envelope.get("signature") if isinstance(envelope, dict) else None
            if not isinstance(envelope, dict):
                raise LeanError("object expected")
            if "payload" not in envelope:
                raise LeanError("property not found: payload")
            if not isinstance(payload_json, str):
                raise LeanError("String expected")
            if "signature" not in envelope:
                raise LeanError("property not found: signature")
            if not isinstance(signature_json, str):
                raise LeanError("String expected")
            config = load_payload(payload_json, profile)
            public = hex_decode(public_key)
            signature = hex_decode(signature_json)
            if (
                public is None
                or signature is None
                or not nacl_verify(public, payload_json.encode("utf-8"), signature)
            ):
                raise LeanError("config signature verification failed")
        except LeanError as exc:
            return InitResult(err_json(f"trusted config rejected: {exc}"), None)
        session = KernelSession(config, profile, public)
        return InitResult(session.summary(), session)

    @staticmethod
    def init_trusted(
        payload_text: str, profile: BuildProfile, authority_hex: str = ""
    ) -> InitResult:
        """``modelInitFromTrustedPayload``: the payload's signature is established elsewhere."""
        try:
            config, summary = _loaded(payload_text, profile)
        except LeanError as exc:
            return InitResult(err_json(f"trusted config rejected: {exc}"), None)
        session = KernelSession(config, profile, hex_decode(authority_hex) or b"")
        return InitResult(summary, session)

    def summary(self) -> str:
        """``initFromConfig``'s JSON: what the host needs for evidence gathering."""
        return config_summary(self.config)

    # --- seal_decide ---------------------------------------------------------------------

    def decide(self, input_text: str) -> StepResult:
        """``seal_decide``: the MCP version gate (builds that have it), then the step."""
        envelope = _step_envelope(input_text, self.profile)
        if envelope is None:
            return self.step(input_text)  # the step's own fail-closed error
        return self.decide_envelope(envelope)

    def decide_envelope(self, envelope: LValue) -> StepResult:
        """:meth:`decide` on an already parsed step envelope (``gatePlanFor``, then the step).

        For an envelope that passes the exponent guard, this equals ``decide`` of its compact
        text: parsing that text gives this value back.
        """
        if self.profile.version_gate:
            line = _get_str(envelope, "line")
            if self.classify(line)[0] != "refuse":
                known = self.known
                request = known[2] if known is not None and known[0] == line else ABSENT
                # A line classified from a proof passes every guard, wireKeysSafe included,
                # and ``Json.parse`` of it is the proof's value.
                keys = not isinstance(request, Absent) or line_keys_safe(line)
                decision = mcp_version_gate(line, self.state.selection, keys, request)
                if not decision.admitted:
                    return StepResult(decision.to_json(), "reject", response=decision.response)
                self.state.selection = observe(self.state.selection, line, request)
        return self.step_envelope(envelope)

    # --- seal_host_step ------------------------------------------------------------------

    def classify(self, line: str) -> Classified:
        """``classifyLine``: ("refuse", None, guard) | ("passthrough", None, None) | ("act", …)."""
        known = self.known
        if known is not None and known[0] == line:
            return known[1]
        return classify_line(line, self.profile.guards)

    def step(self, input_text: str) -> StepResult:
        """``stepImpl``: marshal the envelope, classify the line, dispatch, render."""
        if "numbers" in self.profile.guards and not numbers_safe(input_text):
            return _error("bad step input: unsafe numeric literal")
        try:
            envelope = parse(input_text)
        except LeanError as exc:
            return _error(f"bad step input: {exc}")
        return self.step_envelope(envelope)

    def step_envelope(self, envelope: LValue) -> StepResult:
        """:meth:`step` after the envelope is parsed."""
        line = _get_str(envelope, "line")
        now = _get_nat(envelope, "now")
        approvals_json = _get(envelope, "approvals")
        approvals = approval_events(
            [] if isinstance(approvals_json, Absent) else approvals_json,
            now,
            self.config.safety.approval_ttl_ms,
        )
        principal = self._principal(envelope, line)
        kind, act, failed = self.classify(line)
        if kind == "passthrough":
            return StepResult(compress({"route": "passthrough"}), "passthrough")
        if kind == "refuse" or act is None:
            output = compress({"route": "block", "response": REFUSE_RESPONSE})
            return StepResult(output, "refuse", response=REFUSE_RESPONSE, refused_by=failed)
        verdicts = self._dispatch(act, now, approvals, envelope, principal)
        return self._render(act, verdicts, line, principal)

    def _principal(self, envelope: LValue | Absent, line: str) -> str | None:
        principals = self.config.principals
        envelope_json = _get(envelope, "envelope")
        if isinstance(envelope_json, Absent) or principals is None or not self.profile.principals:
            return None
        return verify_envelope(
            self.authority,
            principals.by_id,
            _get_str(envelope_json, "key_id"),
            _get_str(envelope_json, "sig"),
            _get_str(envelope_json, "nonce"),
            _get_nat(envelope_json, "issued_at"),
            line,
        )

    def _dispatch(
        self,
        act: K.Action,
        now: int,
        approvals: list[Approval],
        envelope: LValue,
        principal: str | None,
    ) -> tuple[K.Verdict, ...]:
        """``registryFor`` + ``dispatch``: gating kernels in registry order, two-phase commit.

        Evidence is ingested at once; each decide's change is committed only when every
        gating kernel allows, and touches only what the call spends.
        """
        config, state = self.config, self.state
        verdicts: list[K.Verdict] = []
        if approvals:
            state.safety.ingest(approvals)
        verdict, approval_spent = K.safety_decide(
            act, config.safety, now, state.safety, self.profile.target_scheme
        )
        verdicts.append(verdict)
        verdict, trace = K.temporal_decide(act, config.temporal, state.temporal)
        verdicts.append(verdict)
        gates = config.gating(act.tool)
        if config.consensus is not None and "consensus" in gates:
            votes = parse_votes(_get_str(envelope, "votes"))
            verdicts.append(K.consensus_decide(act, config.consensus, votes))
        if "convergence" in gates:
            verdicts.append(K.convergence_decide(act, config.replicated))
        calibration = config.calibration
        if calibration is not None and "calibration" in gates:
            records = parse_forecasts(_get_str(envelope, "forecasts"))
            verdicts.append(K.calibration_decide(act, calibration, records))
        linear = config.linear
        cap_spent = budget_moved = principal_moved = None
        if linear is not None and "linear" in gates:
            state.linear.ingest(parse_grants(_get_str(envelope, "grants")))
            verdict, cap_spent = K.linear_decide(act, linear, state.linear)
            verdicts.append(verdict)
        if "budget" in gates:
            verdict, budget_moved = K.budget_decide(act, config.budget_by_tool, state.budget)
            verdicts.append(verdict)
        principals = config.principals
        if principals is not None and self.profile.principals and "principal_budget" in gates:
            verdict, principal_moved = K.principal_budget_decide(
                act, principals, principal, state.principal_budget
            )
            verdicts.append(verdict)
        # Ingested evidence stays whatever happens; execution states only on a combined allow.
        if all(v.allows for v in verdicts):
            state.safety.commit(approval_spent, now)
            state.temporal = trace
            if cap_spent is not None:
                state.linear.commit(cap_spent)
            if budget_moved:
                state.budget.update(budget_moved)
            if principal_moved:
                state.principal_budget.update(principal_moved)
        return tuple(verdicts)

    def _render(
        self, act: K.Action, verdicts: tuple[K.Verdict, ...], line: str, principal: str | None
    ) -> StepResult:
        allow = bool(verdicts) and all(v.allows for v in verdicts)
        known = self.known
        audit = audit_line(
            self.config.epoch,
            act.tool,
            allow,
            verdicts,
            line,
            self.profile.request_commitment,
            known[3] if known is not None and known[0] == line else None,
        )
        fields: dict[str, LValue] = {"route": "forward" if allow else "block", "audit": audit}
        response = None
        if not allow:
            response = block_response(act.request_id, deny_reason(verdicts))
            fields["response"] = response
        if principal is not None:
            fields["principal"] = principal
        return mediated_result(
            compress(fields),
            "forward" if allow else "block",
            verdicts,
            response,
            audit,
            principal,
            act.tool,
        )


def config_summary(config: TrustedConfig) -> str:
    """``initFromConfig``'s JSON for a parsed config."""
    return compress(
        {
            "ok": True,
            "epoch": nat_json(config.epoch),
            "approval_ttl_ms": nat_json(config.safety.approval_ttl_ms),
            "approval_file": config.safety.approval_file,
            "votes_file": config.consensus.votes_file if config.consensus else "",
            "grants_file": config.linear.grants_file if config.linear else "",
            "forecasts_file": config.calibration.records_file if config.calibration else "",
        }
    )


@text_cache(64)
def load_payload(payload: str, profile: BuildProfile) -> TrustedConfig:
    """``parseCanonicalConfigPayload``: the SealV2 canonical gate, ``Json.parse``, the bundle."""
    if not is_canonical(payload):
        raise LeanError("config payload is not canonical (SealV2 parse rejected it)")
    return parse_bundle(
        parse(payload),
        guard_target_full_arguments=profile.guard_target_full_arguments,
        bundle=profile.bundle_config,
    )


@text_cache(64)
def _loaded(payload: str, profile: BuildProfile) -> tuple[TrustedConfig, str]:
    """:func:`load_payload` with the config's init summary, both pure in the payload text."""
    config = load_payload(payload, profile)
    return config, config_summary(config)


def tools_call(request: LValue) -> tuple[str, LValue] | None:
    """``Seal.toolsCall?``: (name, arguments or null) for a ``tools/call``, else None."""
    if not isinstance(request, dict) or request.get("method") != "tools/call":
        return None
    params = request.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    if not isinstance(params, dict) or not isinstance(name, str):
        return None
    return name, params.get("arguments")


def deny_reason(verdicts: tuple[K.Verdict, ...]) -> str:
    """``denyReason``: the first denying kernel's reason, else the no-gate default."""
    return next((v.reason for v in verdicts if not v.allows), "no kernel gated this call")


def block_response(request_id: LValue, reason: str) -> str:
    """``blockResponseLine``: the JSON-RPC result the client sees, with a trailing newline."""
    content: LValue = [{"type": "text", "text": f"approval required: {reason}"}]
    result: LValue = {"content": content, "isError": True}
    return compress({"jsonrpc": "2.0", "id": request_id, "result": result}) + "\n"


def audit_line(
    epoch: int,
    tool: str,
    allow: bool,
    verdicts: tuple[K.Verdict, ...],
    request_line: str,
    request_commitment: bool = True,
    request_sha256: str | None = None,
) -> str:
    """``auditLine``: epoch, tool, combined verdict, the certs and ``request_sha256``.

    ``request_sha256`` is the SHA-256 hex of ``request_line``'s UTF-8 bytes when the caller
    holds it already (the receipt's reader hashed those very bytes); else it is hashed here.
    """
    certs: list[LValue] = [
        {
            "kernel": v.kernel,
            "verdict": v.kind,
            "reason": v.reason,
            "certHash": str(v.cert_hash),
        }
        for v in verdicts
    ]
    fields: dict[str, LValue] = {
        "epoch": nat_json(epoch),
        "tool": tool,
        "verdict": "allow" if allow else "deny",
        "certs": certs,
    }
    if request_commitment:
        fields["request_sha256"] = (
            request_sha256
            if request_sha256 is not None
            else hashlib.sha256(request_line.encode("utf-8")).hexdigest()
        )
    return compress(fields)


# --- envelope marshalling (``getStrD`` and friends) --------------------------------------------


def _get(value: LValue | Absent, key: str) -> LValue | Absent:
    if isinstance(value, dict) and key in value:
        return value[key]
    return ABSENT


def _get_str(value: LValue | Absent, key: str) -> str:
    """``getStrD j key ""``: the string member, or empty when missing or not a string."""
    member = _get(value, key)
    return member if isinstance(member, str) else ""


def _get_nat(value: LValue | Absent, key: str) -> int:
    """``(j.getObjVal? key).toOption.bind getNat? |>.getD 0``."""
    member = _get(value, key)
    if isinstance(member, LeanNumber) and is_nat(member):
        return int(member.digits)
    return 0


def _step_envelope(input_text: str, profile: BuildProfile) -> LValue | None:
    """``stepLineOf?``'s parse: the envelope, or None when the envelope itself is refused."""
    if "numbers" in profile.guards and not numbers_safe(input_text):
        return None
    try:
        return parse(input_text)
    except LeanError:
        return None


@text_cache(256)
def line_keys_safe(line: str) -> bool:
    """``wireKeysSafe`` of the untrimmed line, as the version gate reads it.

    A line whose trimmed text the one-pass proof clears passes: the trim removes only
    whitespace outside every string literal, which the key scan steps over.
    """
    if not isinstance(proven_request(trim_ascii(line)), Unproven):
        return True
    return keys_safe(line)


@text_cache(256)
def classify_line(line: str, guards: frozenset[str]) -> Classified:
    """``Host.classifyLine`` under a build's guard set (pure, so cached per line)."""
    trimmed = trim_ascii(line)
    request = proven_request(trimmed)  # one C-speed pass, when it proves every guard passes
    if isinstance(request, Unproven):
        failed = first_failed_guard(trimmed, guards)
        if failed is not None:
            return "refuse", None, failed
        try:
            request = parse(trimmed)
        except LeanError:
            return "passthrough", None, None
    return _classified(request)


def classify_parsed(line: str, parsed: JsonValue, sha256: str | None = None) -> Known | None:
    """``classifyLine`` of ``line`` from ``parsed``, a strict parse of exactly its characters.

    When the one-pass proof holds on ``parsed``
    (:func:`~sealverify._internal.kernel.wirecue.proven_parsed`: every guard passes), returns
    the line, its classification (equal to :func:`classify_line` under every guard set),
    ``Json.parse`` of it and ``sha256`` (the SHA-256 hex of the line's UTF-8 bytes, when the
    caller holds it); None when the proof does not hold (then the kernel parses the line).
    """
    request = proven_parsed(trim_ascii(line), parsed)
    if isinstance(request, Unproven):
        return None
    return line, _classified(request), request, sha256


def _classified(request: LValue) -> Classified:
    """The classification of a line whose guards passed and whose parse is ``request``."""
    call = tools_call(request)
    if call is None:
        return "passthrough", None, None
    tool, args = call
    request_id = request.get("id") if isinstance(request, dict) else None
    return "act", K.Action(tool, args, request_id), None


def _error(message: str) -> StepResult:
    return StepResult(err_json(message), "error")
