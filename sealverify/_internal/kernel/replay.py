"""Re-derive a receipt's decision with the model and compare it with the emitted bytes.

The verdict is ``pass`` only when the model's output equals the receipt's ``emitted_bytes``
byte for byte; ``fail`` names the first field that differs (the route, a cert's kernel, verdict,
reason or hash, the audit's other members, the block response); ``not-evaluated`` says exactly
which input is missing. A session's receipts are re-derived in call order with the kernel
state carried from one to the next by :mod:`sealverify._internal.kernel.session_pass`.

This is sealverify's own implementation of the kernel step, written from its Lean source; it is
not the pinned ``seal.wasm``. Reports say "decision re-derived by sealverify's model of kernel
build X" and keep ``kernel.identity`` (which build the receipt names) a separate check.
"""

from __future__ import annotations

from dataclasses import dataclass

from sealverify._internal.kernel.ljson import LeanError, LValue, ModelLimit, nat_json, parse
from sealverify._internal.kernel.receipt_inputs import (
    Frames,
    NotEvaluated,
    ReplayInput,
    claimed_position,
    prepare,
    resolve_grants,
)
from sealverify._internal.kernel.session import (
    KernelSession,
    Known,
    StepResult,
    classify_parsed,
)
from sealverify._internal.wire.strictjson import JsonValue

__all__ = [
    "Prepared",
    "Rederivation",
    "first_difference",
    "known_line",
    "rederive",
    "rederive_prepared",
    "session_id",
]


@dataclass(frozen=True, slots=True)
class Rederivation:
    """One receipt's ``replay.decision`` verdict, with the model's output when it ran."""

    status: str  # "pass" | "fail" | "not-evaluated"
    reason: str
    build: str | None = None
    result: StepResult | None = None
    difference: str | None = None


def _model_name(inputs: ReplayInput) -> str:
    return f"sealverify's model of kernel build {inputs.profile.short}"


def _not_evaluated(reason: str, inputs: ReplayInput | None = None) -> Rederivation:
    build = inputs.profile.short if inputs else None
    return Rederivation("not-evaluated", f"decision not re-derived: {reason}", build)


def _start(inputs: ReplayInput, known: Known | None = None) -> KernelSession | Rederivation:
    init = KernelSession.init_trusted(inputs.payload, inputs.profile)
    if init.session is not None:
        init.session.known = known
    if init.session is None:
        return Rederivation(
            "fail",
            f"{_model_name(inputs)} refuses the config ({inputs.payload_source}): {init.output}",
            inputs.profile.short,
            difference="config",
        )
    return init.session


def _evidence_gap(session: KernelSession, inputs: ReplayInput) -> str | None:
    """Name the evidence a gating kernel would read that no receipt carries, if any."""
    kind, act, _ = session.classify(inputs.line)
    if kind != "act" or act is None:
        return None
    config = session.config
    gates = config.gating(act.tool)
    if "consensus" in gates:
        return f"the consensus kernel gates {act.tool} on votes the receipt does not carry"
    if "calibration" in gates:
        return f"the calibration kernel gates {act.tool} on forecasts the receipt does not carry"
    if "linear" in gates:
        return f"the linear kernel gates {act.tool} on grants the receipt does not carry"
    if "principal_budget" in gates:
        return f"the principal-budget kernel gates {act.tool} on an envelope no receipt carries"
    return None


def _step_input(inputs: ReplayInput, approvals: list[LValue]) -> LValue:
    """The step envelope the host builds (evidence files empty: no receipt carries them)."""
    return {
        "line": inputs.line,
        "now": nat_json(inputs.now),
        "approvals": approvals,
        "votes": "",
        "grants": "",
        "forecasts": "",
    }


def _run(session: KernelSession, inputs: ReplayInput) -> Rederivation:
    gap = _evidence_gap(session, inputs)
    if gap is not None:
        return _not_evaluated(gap, inputs)
    approvals = resolve_grants(
        inputs.grants, session.config.safety, inputs.profile, inputs.issued_at
    )
    if isinstance(approvals, NotEvaluated):
        return _not_evaluated(approvals.reason, inputs)
    envelope = _step_input(inputs, approvals)
    step = session.decide_envelope if inputs.gate else session.step_envelope
    result = step(envelope)
    if result.output == inputs.expected:
        return Rederivation(
            "pass",
            f"decision re-derived by {_model_name(inputs)}: {result.route}, emitted bytes "
            f"identical (line from {inputs.line_source})",
            inputs.profile.short,
            result,
        )
    where = first_difference(inputs.expected, result.output)
    return Rederivation(
        "fail",
        f"{_model_name(inputs)} re-derives a different decision: {where}",
        inputs.profile.short,
        result,
        where,
    )


def _position_gap(inputs: ReplayInput) -> str | None:
    """Why a receipt cannot be the first executed call of a fresh session, if it cannot."""
    claim = claimed_position(inputs.expected)
    if claim is None:
        return None
    position, temporal = claim
    if position is None and temporal.startswith("temporal policy violated"):
        return (
            "the temporal kernel's verdict depends on earlier calls of the session, which this "
            "receipt does not carry"
        )
    if position is not None and position > 1:
        return (
            f"the receipt is executed call {position} of its session; the kernel state the "
            "earlier calls left is not in it"
        )
    return None


# A fresh session's step, when it has a temporal cert, says exactly this (no trigger has run
# before the first call, so no temporal policy can deny it).
_FIRST_CALL = "trace ok (1 events)"


def known_line(inputs: ReplayInput, frames: Frames | None) -> Known | None:
    """The judged line's classification from its reader's parse, when that parse is of it.

    Used only when the line is exactly the bytes the reader parsed (``frames.request``) and
    the one-pass proof holds on that parse; else None, and the step parses the line itself.
    """
    parsed = frames.request if frames is not None else None
    line = inputs.line
    if parsed is None or line.encode("utf-8", "surrogatepass") != parsed.raw:
        return None
    # The line is the parse's very bytes (valid UTF-8, so its strict encoding too): their
    # digest, hashed once for the request binding, is the audit line's request_sha256.
    return classify_parsed(line, parsed.value, parsed.sha256())


def _passed_at_once(inputs: ReplayInput, known: Known | None = None) -> Rederivation | None:
    """The ``pass`` of the step run at once, or None: then the checks run in their order.

    Output equal to ``emitted_bytes`` means the receipt claims what a fresh session's step
    gives: no temporal cert (no claim), or ``trace ok (1 events)`` (the first call), so
    :func:`_position_gap` finds no gap and the ordered path would reach this very step. The
    step runs ahead only when the bytes can make that claim (a receipt claiming a later call
    goes straight to the gap); anything but a pass, a model limit included, leaves the answer
    to the ordered path, which computes it again from the same inputs.
    """
    expected = inputs.expected
    if _FIRST_CALL not in expected and "temporal" in expected:
        return None
    try:
        session = _start(inputs, known)
        result = session if isinstance(session, Rederivation) else _run(session, inputs)
    except ModelLimit:
        return None
    return result if result.status == "pass" else None


def rederive(
    receipt: dict[str, JsonValue], raw_line: bytes | None = None, frames: Frames | None = None
) -> Rederivation:
    """Re-derive one receipt on its own, as the first executed call of a fresh session.

    ``frames`` are the receipt's carried frames as its reader decoded them (``prepare``), with
    the request line it parsed (:func:`known_line`).
    """
    return rederive_prepared(receipt, raw_line, frames)[0]


# A step's inputs and its judged line's classification from the reader's parse (or None).
Prepared = tuple[ReplayInput, Known | None]


def rederive_prepared(
    receipt: dict[str, JsonValue], raw_line: bytes | None = None, frames: Frames | None = None
) -> tuple[Rederivation, Prepared | None]:
    """:func:`rederive`, with the inputs it prepared and the line it classified (None: none).

    They are pure in the arguments, so a judgement of the same receipt with the same
    arguments (``stateless.judged_alone``) takes them instead of working them out again.
    """
    inputs = prepare(receipt, raw_line, frames)
    if isinstance(inputs, NotEvaluated):
        return Rederivation("not-evaluated", f"decision not re-derived: {inputs.reason}"), None
    known = known_line(inputs, frames)
    prepared = inputs, known
    passed = _passed_at_once(inputs, known)
    if passed is not None:
        return passed, prepared
    gap = _position_gap(inputs)
    if gap is not None:
        where = session_id(receipt)
        hint = (
            f" (its session {where} is re-derived in log order when its receipts are in one log)"
            if where
            else " (the receipt names no session, so no log can supply them)"
        )
        return _not_evaluated(gap + hint, inputs), prepared
    try:
        session = _start(inputs, known)
        if isinstance(session, Rederivation):
            return session, prepared
        return _run(session, inputs), prepared
    except ModelLimit as exc:
        return _not_evaluated(f"outside this model's limits ({exc})", inputs), prepared


def session_id(receipt: dict[str, JsonValue]) -> str | None:
    """The session a host receipt names (``effect_view.session``), if any."""
    view = receipt.get("effect_view")
    session = view.get("session") if isinstance(view, dict) else None
    return session if isinstance(session, str) and session else None


# --- the first differing field -------------------------------------------------------------


def first_difference(expected: str, actual: str) -> str:
    """Describe the first field where the receipt's bytes and the model's output differ."""
    try:
        want, got = parse(expected), parse(actual)
    except (LeanError, ModelLimit):
        return "emitted_bytes is not the kernel's JSON output"
    if not isinstance(want, dict) or not isinstance(got, dict):
        return "emitted_bytes is not the kernel's JSON output"
    if want.get("route") != got.get("route"):
        return f"route: the receipt says {want.get('route')!r}, the model {got.get('route')!r}"
    audit_diff = _audit_difference(want.get("audit"), got.get("audit"))
    if audit_diff:
        return audit_diff
    if want.get("response") != got.get("response"):
        return "the block response differs"
    if want.get("principal") != got.get("principal"):
        return "the principal differs"
    extra = sorted(set(want) ^ set(got))
    if extra:
        return f"member {extra[0]!r} is present on one side only"
    return "the bytes differ though every field agrees (spelling or escaping)"


def _audit_difference(want: LValue, got: LValue) -> str | None:
    if want == got:
        return None
    try:
        want_audit = parse(want) if isinstance(want, str) else None
        got_audit = parse(got) if isinstance(got, str) else None
    except (LeanError, ModelLimit):
        return "audit is not the kernel's JSON"
    if not isinstance(want_audit, dict) or not isinstance(got_audit, dict):
        return "audit is missing or not the kernel's JSON"
    want_certs = want_audit.get("certs")
    got_certs = got_audit.get("certs")
    if isinstance(want_certs, list) and isinstance(got_certs, list):
        for index in range(max(len(want_certs), len(got_certs))):
            if index >= len(want_certs) or index >= len(got_certs):
                side = "model" if index >= len(want_certs) else "receipt"
                return f"certs: cert {index + 1} appears only in the {side}'s output"
            a, b = want_certs[index], got_certs[index]
            if not isinstance(a, dict) or not isinstance(b, dict):
                return f"certs: cert {index + 1} is not an object"
            for key in ("kernel", "verdict", "reason", "certHash"):
                if a.get(key) != b.get(key):
                    return (
                        f"certs: cert {index + 1} ({b.get('kernel')}) {key}: the receipt says "
                        f"{a.get(key)!r}, the model {b.get(key)!r}"
                    )
    for key in ("verdict", "tool", "epoch", "request_sha256"):
        if want_audit.get(key) != got_audit.get(key):
            receipt_value, model_value = want_audit.get(key), got_audit.get(key)
            return f"audit.{key}: the receipt says {receipt_value!r}, the model {model_value!r}"
    return "audit: the bytes differ"
