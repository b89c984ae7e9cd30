"""What a receipt's decision must be whatever the session state: judged when the step is not.

A receipt whose whole step cannot be re-derived (a later call without its session, evidence
files no receipt carries, an approval that cannot be resolved) still carries claims that no
session state can make true. Each part judged here depends, in the kernel's Lean source, only
on the judged line, the config and the receipt's own inputs:

* the wire guards and the line's classification (seal-host@099be66 ``Host/Canonical.lean``
  ``classifyLine``): a refused or passed-through line has the same output in every state;
* the MCP version gate (``SealV2/McpVersionGate.lean``) when it gives the same answer under
  every revision selection a session can hold (``Ffi.lean`` ``McpRevisionSelection``);
* the config gate (``parseCanonicalConfigPayload``), the epoch and the request commitment;
* which kernels gate the call: every ``Kernel.gates`` reads only the config and the action
  (``Host/Kernel.lean``), so the cert list and its order (``Host/Registry.lean``) are fixed;
* each cert's reason and verdict as far as its ``decide`` reads no state: safety's reason is
  ``classifyToolCall``'s text (``Kernels/Safety.lean``), its verdict is fixed for an allowed or
  denied tool and for a guarded call whose live approval this step ingests; temporal denies
  only a tool a policy forbids (``Kernels/Temporal.lean``); convergence reads no state at all;
  consensus, calibration, linear, budget and principal budget fix their reason's form, tool,
  roster size, sample floor, capability, cost and cap (``Kernels/*.lean``);
* the combined verdict, the route, the block response and its blamer, which follow from the
  certs (``Host/Registry.lean`` ``combineVerdicts``/``denyReason``, ``Seal/Block.lean``).

What is left (the temporal trace, counters, spent capabilities, approvals ingested at earlier
calls, votes, grants, forecasts, the principal envelope) needs the session or the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from sealverify._internal.kernel import kernels as K
from sealverify._internal.kernel.config import BudgetSpec, TrustedConfig
from sealverify._internal.kernel.evidence import approval_events
from sealverify._internal.kernel.gate import CONFLICT, CURRENT, LEGACY, mcp_version_gate
from sealverify._internal.kernel.ljson import (
    ABSENT,
    Absent,
    LeanError,
    LValue,
    ModelLimit,
    compress,
    parse,
)
from sealverify._internal.kernel.lpath import at_path, scalar_text
from sealverify._internal.kernel.policy import classify_tool_call
from sealverify._internal.kernel.receipt_inputs import (
    Frames,
    NotEvaluated,
    ReplayInput,
    prepare,
    resolve_grants,
)
from sealverify._internal.kernel.replay import Prepared, Rederivation, first_difference, known_line
from sealverify._internal.kernel.session import (
    REFUSE_RESPONSE,
    KernelSession,
    Known,
    audit_line,
    block_response,
    classify_line,
    deny_reason,
    line_keys_safe,
)
from sealverify._internal.wire.strictjson import JsonValue

__all__ = ["AGREE", "contradiction", "judged_alone"]

AGREE = "every part of the decision that needs no session state or evidence agrees"
# Every revision selection a session can hold: none yet, one entry call's era, or both eras.
_SELECTIONS = ("", LEGACY, CURRENT, CONFLICT)
_NAT = r"(0|[1-9][0-9]{0,3999})"  # a Nat as Lean renders it, within int() limits
_TRACE_OK = re.compile(rf"trace ok \({_NAT} events\)")
_QUORUM = re.compile(rf"quorum (ok|missing) \({_NAT}/{_NAT}\): (.*)", re.DOTALL)
_CALIBRATED = re.compile(rf"forecaster (calibrated|uncalibrated) over {_NAT} samples: (.*)", re.S)
_INSUFFICIENT = re.compile(rf"calibration evidence insufficient \({_NAT}/{_NAT} samples\): (.*)")
_SPENT = re.compile(rf"capability spent \({_NAT} uses left\): (.*)", re.DOTALL)


def judged_alone(
    result: Rederivation,
    receipt: dict[str, JsonValue],
    raw_line: bytes | None = None,
    frames: Frames | None = None,
    prepared: Prepared | None = None,
) -> Rederivation:
    """A not-evaluated re-derivation, with the parts that need no state judged.

    A contradiction there is ``fail`` naming the field; a receipt whose whole output needs no
    state (a refused or passed-through line) is ``pass``; otherwise the verdict stays
    not-evaluated, its reason naming what is left and saying the rest agrees. ``prepared``
    is what ``replay.rederive_prepared`` made of the same arguments (else made here).
    """
    if result.status != "not-evaluated":
        return result
    if prepared is not None:
        inputs, known = prepared
    else:
        made = prepare(receipt, raw_line, frames)
        if isinstance(made, NotEvaluated):
            return result
        inputs, known = made, known_line(made, frames)
    try:
        found, whole = contradiction(inputs, known)
    except ModelLimit:
        return result
    model = f"sealverify's model of kernel build {inputs.profile.short}"
    if found is not None:
        return Rederivation(
            "fail",
            f"{model} refutes the receipt with no session state: {found}",
            inputs.profile.short,
            difference=found,
        )
    if whole:
        return Rederivation(
            "pass",
            f"decision re-derived by {model}: the line's output needs no session state, "
            f"emitted bytes identical (line from {inputs.line_source})",
            inputs.profile.short,
        )
    return replace(result, reason=f"{result.reason}; {AGREE}", build=inputs.profile.short)


def contradiction(inputs: ReplayInput, known: Known | None = None) -> tuple[str | None, bool]:
    """The first claim no session state can make true, and whether the output is state-free.

    Returns ``(field, False)`` for a contradiction, ``(None, True)`` when the emitted bytes
    equal an output no state can change, ``(None, False)`` when what was judged agrees.
    ``known`` is the judged line's classification from its reader's parse
    (``replay.known_line``), used only for exactly that line, so the line is not parsed again.
    """
    if known is not None and known[0] != inputs.line:
        known = None
    init = KernelSession.init_trusted(inputs.payload, inputs.profile)
    if init.session is None:
        return f"config: the model refuses it ({inputs.payload_source}): {init.output}", False
    session = init.session
    try:
        want = parse(inputs.expected)
    except LeanError:
        return "emitted_bytes is not the kernel's JSON output", False
    if not isinstance(want, dict):
        return "emitted_bytes is not the kernel's JSON output", False
    # A line classified from a proof passes every guard (wireKeysSafe included), and its
    # classification and ``Json.parse`` are the kernel's own (session.classify_parsed).
    kind, act, _ = (
        known[1] if known is not None else classify_line(inputs.line, inputs.profile.guards)
    )
    request: LValue | Absent = known[2] if known is not None else ABSENT
    if kind == "refuse":  # the gate is skipped and the step blocks: no state is read
        return _whole(inputs.expected, compress({"route": "block", "response": REFUSE_RESPONSE}))
    always_admitted = True
    if inputs.gate and inputs.profile.version_gate:
        outputs = {_gate_output(inputs.line, selection, request) for selection in _SELECTIONS}
        rejects = sorted(o for o in outputs if o is not None)
        if None not in outputs and len(rejects) == 1:  # the same reject whatever the selection
            return _whole(inputs.expected, rejects[0])
        if want.get("route") == "reject":
            if not rejects:
                return _route(want, "the MCP version gate admits the line in every session"), False
            if inputs.expected in rejects:
                return None, False  # a reject some selection gives: the selection is left
            return first_difference(inputs.expected, rejects[0]), False
        always_admitted = not rejects
    if kind == "passthrough" or act is None:
        found, whole = _whole(inputs.expected, compress({"route": "passthrough"}))
        return found, whole and always_admitted
    return _judge_act(inputs, session.config, act, want), False


def _whole(expected: str, output: str) -> tuple[str | None, bool]:
    if expected == output:
        return None, True
    return first_difference(expected, output), False


def _gate_output(line: str, selection: str, request: LValue | Absent = ABSENT) -> str | None:
    keys = not isinstance(request, Absent) or line_keys_safe(line)
    decision = mcp_version_gate(line, selection, keys, request)
    return None if decision.admitted else decision.to_json()


def _route(want: dict[str, LValue], why: str) -> str:
    return f"route: the receipt says {want.get('route')!r}, but {why}"


# --- a mediated call ----------------------------------------------------------------------------


def _claimed_certs(want: dict[str, LValue]) -> list[K.Verdict] | str:
    audit_text = want.get("audit")
    try:
        audit = parse(audit_text) if isinstance(audit_text, str) else None
    except LeanError:
        audit = None
    if not isinstance(audit, dict) or not isinstance(audit.get("certs"), list):
        return "audit is missing or not the kernel's JSON"
    certs: list[K.Verdict] = []
    listed = audit["certs"]
    for index, cert in enumerate(listed if isinstance(listed, list) else []):
        fields = cert if isinstance(cert, dict) else {}
        kernel, kind, reason = fields.get("kernel"), fields.get("verdict"), fields.get("reason")
        if not (isinstance(kernel, str) and kind in ("allow", "deny") and isinstance(reason, str)):
            return f"certs: cert {index + 1} is not a kernel verdict"
        certs.append(K.verdict(kernel, kind == "allow", reason))
    return certs


def gating_kernels(config: TrustedConfig, tool: str, principals: bool) -> list[str]:
    """``registryFor``'s kernels whose ``gates`` holds for the tool, in registry order."""
    names = ["safety", "temporal"]
    gates = config.gating(tool)
    if "consensus" in gates:
        names.append("consensus")
    if "convergence" in gates:
        names.append("convergence")
    if "calibration" in gates:
        names.append("calibration")
    if "linear" in gates:
        names.append("linear")
    if "budget" in gates:
        names.append("budget")
    if principals and "principal_budget" in gates:
        names.append("principal_budget")
    return names


def _judge_act(
    inputs: ReplayInput, config: TrustedConfig, act: K.Action, want: dict[str, LValue]
) -> str | None:
    certs = _claimed_certs(want)
    if isinstance(certs, str):
        return certs
    kernels = gating_kernels(config, act.tool, inputs.profile.principals)
    for index in range(max(len(kernels), len(certs))):
        if index >= len(certs):
            return f"certs: the receipt has no cert {index + 1}, the {kernels[index]} kernel's"
        if index >= len(kernels):
            return f"certs: cert {index + 1} ({certs[index].kernel}) is from no gating kernel"
        if certs[index].kernel != kernels[index]:
            return (
                f"certs: cert {index + 1} kernel: the receipt says {certs[index].kernel!r}, "
                f"the kernels gating {act.tool} are {', '.join(kernels)}"
            )
    for index, cert in enumerate(certs):
        why = _JUDGES[cert.kernel](inputs, config, act, cert)
        if why:
            return (
                f"certs: cert {index + 1} ({cert.kernel}) says {cert.kind} {cert.reason!r}, "
                f"impossible in any session state: {why}"
            )
    allow = all(c.allows for c in certs)
    audit = audit_line(
        config.epoch, act.tool, allow, tuple(certs), inputs.line, inputs.profile.request_commitment
    )
    fields: dict[str, LValue] = {"route": "forward" if allow else "block", "audit": audit}
    if not allow:
        fields["response"] = block_response(act.request_id, deny_reason(tuple(certs)))
    if "principal" in want and config.principals is not None and inputs.profile.principals:
        fields["principal"] = want["principal"]  # the envelope is not carried: left
    rendered = compress(fields)
    return None if rendered == inputs.expected else first_difference(inputs.expected, rendered)


# A cert's judge: "" when the cert is possible in some session state, else why it is not.
Judge = Callable[[ReplayInput, TrustedConfig, K.Action, K.Verdict], str]


def _safety(inputs: ReplayInput, config: TrustedConfig, act: K.Action, cert: K.Verdict) -> str:
    classified = classify_tool_call(config.safety, act.tool, act.args, inputs.profile.target_scheme)
    if cert.reason != classified.reason:
        return f"classifyToolCall gives {classified.reason!r}"
    if classified.event == "benign":
        return "" if cert.allows else "an allowed call is never denied by the safety kernel"
    if classified.event == "defaultDeny":
        return "" if not cert.allows else "a denied call is never allowed by the safety kernel"
    if not cert.allows and _live_approval(inputs, config, classified.target):
        return "this step ingests a live approval for the call's guard target"
    return ""


def _live_approval(inputs: ReplayInput, config: TrustedConfig, target: str) -> bool:
    """Whether this step's own approvals make the guarded call allowed in any state."""
    policy = config.safety
    approvals = resolve_grants(inputs.grants, policy, inputs.profile, inputs.issued_at)
    if isinstance(approvals, NotEvaluated):
        return False
    # ``approval_events`` with the policy's TTL, as ``step_envelope`` reads it: the last record
    # of a target is the one ingest keeps (HashMap.insert).
    deadlines = {
        e.target: e.deadline for e in approval_events(approvals, inputs.now, policy.approval_ttl_ms)
    }
    due = deadlines.get(target)
    return due is not None and inputs.now < due


def _temporal(inputs: ReplayInput, config: TrustedConfig, act: K.Action, cert: K.Verdict) -> str:
    if cert.allows:
        return "" if _TRACE_OK.fullmatch(cert.reason) else "an allow is 'trace ok (N events)'"
    names = [p.name for p in config.temporal if act.tool in p.forbidden and p.trigger]
    prefix = "temporal policy violated: "
    if cert.reason.startswith(prefix) and cert.reason[len(prefix) :] in names:
        return ""
    if not names:
        return f"no temporal policy forbids {act.tool}"
    return f"only {', '.join(repr(n) for n in names)} can forbid {act.tool}"


def _convergence(inputs: ReplayInput, config: TrustedConfig, act: K.Action, cert: K.Verdict) -> str:
    model = K.convergence_decide(act, config.replicated)
    if (model.kind, model.reason) == (cert.kind, cert.reason):
        return ""
    return f"the convergence kernel reads no state and gives {model.kind} {model.reason!r}"


def _consensus(inputs: ReplayInput, config: TrustedConfig, act: K.Action, cert: K.Verdict) -> str:
    assert config.consensus is not None
    roster = config.consensus.roster
    match = _QUORUM.fullmatch(cert.reason)
    if match is None or match.group(4) != act.tool:
        return f"the reason is 'quorum ok|missing (k/{len(roster)}): {act.tool}'"
    ok, voters, size = match.group(1) == "ok", int(match.group(2)), int(match.group(3))
    if size != len(roster):
        return f"the trusted roster has {len(roster)} acceptors"
    if ok != cert.allows:
        return "'quorum ok' is an allow and 'quorum missing' a deny"
    if ok and not (len(roster) < 2 * voters and voters <= len(set(roster))):
        return f"{voters} distinct roster voters are no strict majority of {len(roster)}"
    return ""


def _calibration(inputs: ReplayInput, config: TrustedConfig, act: K.Action, cert: K.Verdict) -> str:
    assert config.calibration is not None
    floor = config.calibration.min_samples
    over, short = _CALIBRATED.fullmatch(cert.reason), _INSUFFICIENT.fullmatch(cert.reason)
    if over is not None and over.group(3) == act.tool:
        if (over.group(1) == "calibrated") != cert.allows:
            return "'calibrated' is an allow and 'uncalibrated' a deny"
        return "" if int(over.group(2)) >= floor else f"fewer than the {floor} samples required"
    if short is not None and short.group(3) == act.tool and not cert.allows:
        count, stated = int(short.group(1)), int(short.group(2))
        return "" if stated == floor and count < floor else f"the sample floor is {floor}"
    return f"the reason is not one the calibration kernel gives for {act.tool}"


def _linear(inputs: ReplayInput, config: TrustedConfig, act: K.Action, cert: K.Verdict) -> str:
    assert config.linear is not None
    tool = next(t for t in config.linear.tools if t.tool == act.tool)
    cap = scalar_text(at_path(act.args, list(tool.cap_arg)))
    if cap is None:
        want = f"missing capability field: {act.tool}"
        ok = cert.reason == want and not cert.allows
        return "" if ok else f"the call has no capability field, so the reason is {want!r}"
    spent = _SPENT.fullmatch(cert.reason)
    if cert.allows and spent is not None and spent.group(2) == cap:
        return ""
    if not cert.allows and cert.reason == f"capability exhausted, double-spend denied: {cap}":
        return ""
    return f"the call spends capability {cap!r}"


def _budget(inputs: ReplayInput, config: TrustedConfig, act: K.Action, cert: K.Verdict) -> str:
    specs = config.budget_by_tool.get(act.tool, ())
    return _budget_fold(act, specs, cert, "budget", f"within budget: {act.tool}")


def _principal_budget(
    inputs: ReplayInput, config: TrustedConfig, act: K.Action, cert: K.Verdict
) -> str:
    assert config.principals is not None
    if not cert.allows and cert.reason == f"principal envelope required: {act.tool}":
        return ""
    within = re.fullmatch(r"within principal budget \((.*)\): (.*)", cert.reason, re.DOTALL)
    ok = within is not None and within.group(2) == act.tool
    specs = config.principals.by_tool.get(act.tool, ())
    return _budget_fold(act, specs, cert, "principal budget", ok)


def _budget_fold(
    act: K.Action, specs: tuple[BudgetSpec, ...], cert: K.Verdict, label: str, allow: str | bool
) -> str:
    """Budget reasons as ``Kernels/Budget.lean``'s fold gives them, the counters unknown.

    ``allow`` is the allow reason (or, for the principal budget, whether it matched).
    """
    # The fold stops at the first spec whose cost field is missing or whose cost alone is
    # over its cap: no spec after it can be blamed, and no allow gets past it.
    reachable: list[tuple[BudgetSpec, int | None]] = []
    for spec in specs:  # the budgets gating the call's tool, in config order
        cost = K.cost_for(spec, act.args)
        reachable.append((spec, cost))
        if cost is None or cost > spec.cap:
            break
    last_spec, last_cost = reachable[-1] if reachable else (None, 0)
    stopped = last_spec is not None and (last_cost is None or last_cost > last_spec.cap)
    if cert.allows:
        if allow is not True and cert.reason != allow:
            return f"the reason is not one the {label} kernel allows with"
        if stopped and last_spec is not None:
            problem = "has no cost field to read" if last_cost is None else "costs over its cap"
            return f"the call {problem} under {label} {last_spec.name}"
        return ""
    missing = last_spec.name if last_spec is not None and last_cost is None else None
    if missing is not None and cert.reason == f"missing cost field for {label} {missing}: " + (
        act.tool
    ):
        return ""
    for spec, cost in reachable:
        if cost is None:
            continue
        head, tail = f"over {label} {spec.name} (", f"+{cost}>{spec.cap}): {act.tool}"
        if cert.reason.startswith(head) and cert.reason.endswith(tail):
            spent = cert.reason[len(head) : len(cert.reason) - len(tail)]
            if re.fullmatch(_NAT, spent) and int(spent) + cost > spec.cap:
                return ""
    return f"the reason is not one the {label} kernel denies {act.tool} with"


_JUDGES: dict[str, Judge] = {
    "safety": _safety,
    "temporal": _temporal,
    "consensus": _consensus,
    "convergence": _convergence,
    "calibration": _calibration,
    "linear": _linear,
    "budget": _budget,
    "principal_budget": _principal_budget,
}
