"""From a decision receipt to the kernel inputs that produced it, or why they are not there.

What each family carries (seal-check@0632f31 ``receipt.js`` replays the same way):

* ``seal_receipt`` v1/v2 and ``seal_live_receipt`` v0 (browser, kit and live-demo minted):
  the judged line is ``canonical_request`` (the ``id: 1`` canonical line), the config is
  ``signed_config.payload`` or else ``kernel_config``, the approvals are
  ``granted_capabilities`` (a 64-hex ``target`` verbatim, or ``{tool, arguments}`` resolved
  through the policy's target spec).
* host ``record_version`` 2 and 3 (the native host runs the MCP version gate in Rust, so
  ``emitted_bytes`` is the step's output alone): the judged line is the wire line; the receipt
  carries it as ``signed_artifacts.object_a`` (Object B v2), as the release frame less its
  operation-id splice (an Object B v1 ALLOW), or when ``canonical_request`` hashes to
  ``request_sha256`` (the wire line *was* the canonical line). An approval ALLOW adds
  ``approval.issued_at``.
* any family with ``request_parse_error``: only ``request_sha256``; the line can be supplied
  out of band and is accepted only if it hashes to ``request_sha256``.

Kernel state is never in a receipt: a receipt re-derives alone only as the first executed call
of its session (its temporal cert says ``trace ok (1 events)``); later calls need the receipts
before them (:mod:`sealverify._internal.kernel.session_pass` re-derives a session's log in order).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass, field

import orjson

from sealverify._internal.kernel.canonical import escape_string
from sealverify._internal.kernel.ljson import LValue
from sealverify._internal.kernel.policy import Policy, eval_target_parts, guard_target
from sealverify._internal.kernel.profiles import BuildProfile, profile_for
from sealverify._internal.primitives.releaseframe import unsplice_operation_id
from sealverify._internal.wire.leanjson import LeanNumber, lean_number
from sealverify._internal.wire.spelling import HEX64
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue

__all__ = [
    "Frames",
    "NotEvaluated",
    "ParsedLine",
    "ReplayInput",
    "carried_frames",
    "claimed_position",
    "lean_value",
    "lean_view",
    "prepare",
    "receipt_nat",
    "render_payload",
    "resolve_grants",
]

_TRACE_OK = re.compile(r"trace ok \((\d{1,9}) events\)")


@dataclass(frozen=True, slots=True)
class NotEvaluated:
    """Why a receipt's decision cannot be re-derived; ``reason`` is shown to the user."""

    reason: str


@dataclass(frozen=True, slots=True)
class ParsedLine:
    """A request line's exact bytes and their strict parse (``wire.strictjson.parse_bytes``).

    The receipt's reader parses the request line once; the re-derivation uses that parse for
    the judged line only when the line is these very bytes.
    """

    raw: bytes
    value: JsonValue
    # The SHA-256 of ``raw``, once asked for (:meth:`sha256`): never set from outside.
    _sha256: str | None = field(default=None, init=False, repr=False, compare=False)

    def sha256(self) -> str:
        """The SHA-256 hex of ``raw``, hashed once for every reader of this line.

        The request binding (``request_sha256``) and the kernel's audit line both hash the
        request line; the digest is always of these very bytes, so a reader holding other
        bytes compares them with ``raw`` first.
        """
        digest = self._sha256
        if digest is None:
            digest = hashlib.sha256(self.raw).hexdigest()
            object.__setattr__(self, "_sha256", digest)
        return digest

    def framed_sha256(self, frame: bytes) -> str:
        """The SHA-256 hex of ``frame``, a frame whose raw line is ``raw``.

        Such a frame is ``raw`` and its terminator, so one pass over ``raw`` gives both
        digests: the line's is kept (:meth:`sha256`) and the terminator is hashed on from it.
        A frame that does not start with ``raw`` is hashed on its own.
        """
        raw = self.raw
        if not frame.startswith(raw):
            return hashlib.sha256(frame).hexdigest()
        state = hashlib.sha256(raw)
        if self._sha256 is None:
            object.__setattr__(self, "_sha256", state.hexdigest())
        state.update(frame[len(raw) :])
        return state.hexdigest()


@dataclass(frozen=True, slots=True)
class Frames:
    """The frames a receipt carries, as base64 decodes them: read once by the receipt's reader.

    ``object_a`` is ``signed_artifacts.object_a`` decoded, ``release`` the
    ``release_frame.base64``; each None when the member is no string or not base64 (whether it
    is a string is read from the receipt). verify builds them with the receipt's view
    (``sealverify/_internal/receipts/view.py``) and hands them down, so the step's inputs never
    decode a frame again; :func:`carried_frames` reads them for a caller that has no view.
    """

    object_a: bytes | None
    release: bytes | None
    # The request its reader recovered from ``release`` (``unsplice_operation_id``, made of
    # these very bytes), when it made one: the step uses it rather than recover it again.
    recovered: bytes | None = None
    # The request line its reader strictly parsed, with its bytes: the step takes the parse
    # for the judged line only when that line is exactly these bytes (never compared).
    request: ParsedLine | None = field(default=None, compare=False)


def _base64(value: JsonValue) -> bytes | None:
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def carried_frames(receipt: dict[str, JsonValue]) -> Frames:
    """The receipt's :class:`Frames`, each decoded here (once)."""
    artifacts = receipt.get("signed_artifacts")
    release = receipt.get("release_frame")
    return Frames(
        _base64(artifacts.get("object_a") if isinstance(artifacts, dict) else None),
        _base64(release.get("base64") if isinstance(release, dict) else None),
    )


@dataclass(frozen=True, slots=True)
class ReplayInput:
    """Everything one step needs, with where each part came from."""

    profile: BuildProfile
    payload: str
    payload_source: str
    line: str
    line_source: str
    now: int
    grants: tuple[dict[str, JsonValue], ...]
    issued_at: int | None
    # Whether the producer ran ``seal_decide`` (the wasm: MCP version gate, then the step) or,
    # as the native host does, the gate in Rust and ``seal_host_step`` alone.
    gate: bool
    expected: str


_NEW = object.__new__
# The slots' own setters (a frozen dataclass's ``__init__`` sets each by name, at twice the cost).
(
    _SET_PROFILE,
    _SET_PAYLOAD,
    _SET_PAYLOAD_SOURCE,
    _SET_LINE,
    _SET_LINE_SOURCE,
    _SET_NOW,
    _SET_GRANTS,
    _SET_ISSUED_AT,
    _SET_GATE,
    _SET_EXPECTED,
) = (ReplayInput.__dict__[name].__set__ for name in ReplayInput.__slots__)


def lean_value(value: JsonValue) -> LValue:
    """A strictly parsed receipt value in the model's representation (numbers by lexeme)."""
    if isinstance(value, JsonNumber):
        return lean_number(value.lexeme)
    if isinstance(value, list):
        return [lean_value(item) for item in value]
    if isinstance(value, dict):
        return {key: lean_value(item) for key, item in value.items()}
    return value


def render_payload(value: JsonValue) -> str:
    """A compact rendering of ``kernel_config`` in member order, in SealV2's escape form.

    Used when a receipt carries no signed payload bytes: any canonical rendering of the same
    value parses to the same config, so the member order and spacing do not matter.
    """
    if isinstance(value, dict):
        inner = ",".join(f'"{escape_string(k)}":{render_payload(v)}' for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ",".join(render_payload(item) for item in value) + "]"
    if isinstance(value, str):
        return '"' + escape_string(value) + '"'
    if isinstance(value, JsonNumber):
        return value.lexeme
    return "null" if value is None else ("true" if value else "false")


def lean_view(frame: bytes) -> str | None:
    """The host's ``lean_view`` of a received frame: one LF, then one CR, stripped; UTF-8."""
    if frame.endswith(b"\n"):
        frame = frame[:-1]
    if frame.endswith(b"\r"):
        frame = frame[:-1]
    try:
        return frame.decode("utf-8")
    except UnicodeDecodeError:
        return None


def claimed_position(emitted: str) -> tuple[int | None, str] | None:
    """What the receipt's temporal cert says: (executed-call number or None, its reason).

    ``trace ok (N events)`` gives N; a temporal deny gives None (its verdict depends on earlier
    calls). None when the emitted bytes carry no audit with a temporal cert (then the
    re-derivation itself decides). This reads a claim to decide *whether* to re-derive; it
    is never compared, so a plain JSON reader is enough.
    """
    try:
        out = orjson.loads(emitted)
        audit = orjson.loads(out["audit"]) if isinstance(out, dict) else None
        certs = audit.get("certs") if isinstance(audit, dict) else None
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return None
    for cert in certs if isinstance(certs, list) else []:
        if isinstance(cert, dict) and cert.get("kernel") == "temporal":
            reason = cert.get("reason")
            if not isinstance(reason, str):
                return None
            match = _TRACE_OK.fullmatch(reason)
            return (int(match.group(1)) if match else None), reason
    return None


def resolve_grants(
    grants: tuple[dict[str, JsonValue], ...],
    policy: Policy,
    profile: BuildProfile,
    issued_at: int | None,
) -> list[LValue] | NotEvaluated:
    """``granted_capabilities`` as the step's ``approvals`` array.

    A 64-hex ``target`` is used verbatim. ``{tool, arguments}`` is resolved through the policy:
    the first guarded rule for the tool whose target spec the entry satisfies gives the target
    (the full arguments under ``full_arguments``; an ``arg`` part reads the entry's arguments).
    """
    approvals: list[LValue] = []
    for grant in grants:
        target = grant.get("target")
        if isinstance(target, str) and HEX64.fullmatch(target):
            resolved = target
        else:
            tool = grant.get("tool")
            if not isinstance(tool, str) or "arguments" not in grant:
                return NotEvaluated("a granted capability names neither a target nor a tool call")
            try:
                args = lean_value(grant["arguments"])
            except ValueError as exc:  # a number the kernel's own parser would refuse
                return NotEvaluated(
                    f"the granted capability for {tool} has arguments the kernel cannot read "
                    f"({exc})"
                )
            rule = next((r for r in policy.tools if r.name == tool and r.mode == "guarded"), None)
            parts = eval_target_parts(rule.target, args) if rule is not None else None
            if rule is None or parts is None:
                return NotEvaluated(
                    f"the granted capability for {tool} has no guard target in the policy"
                )
            resolved = guard_target(policy, tool, parts, profile.target_scheme)
        record: dict[str, LValue] = {"target": resolved}
        if issued_at is not None:
            record["issuedAt"] = LeanNumber(False, str(issued_at), 0)
        approvals.append(record)
    return approvals


# The largest natural this model reads from a receipt. Lean's ``Nat`` is unbounded; a
# longer value is declined by name rather than read approximately (a host writes u64s).
NAT_DIGITS = 40
# What the kernel reads when the step envelope has no ``now``: upstream's replay default
# (seal-check@0632f31 ``receipt.js``), used only when the receipt carries no ``now`` at all.
DEFAULT_NOW = 1000


def receipt_nat(value: JsonValue, name: str) -> int | NotEvaluated:
    """A receipt number read as the kernel reads a natural, or why the re-derivation declines.

    The kernel reads ``now`` and ``issuedAt`` through Lean's ``Json.parse`` and ``getNat?``
    (``Lean/Data/Json/Basic.lean``, v4.28.0): the lexeme is an exact ``JsonNumber`` and only
    a non-negative one with exponent 0 is a natural, so ``1e3`` is 1000 while ``1.0``, ``-1``
    and a string are none. A value this reads differently, or not at all, is never replaced
    by a default: the re-derivation declines and names it.
    """
    if not isinstance(value, JsonNumber):
        return NotEvaluated(f"{name} is not a JSON number, so the kernel reads no natural from it")
    lexeme = value.lexeme
    if lexeme.isascii() and lexeme.isdigit() and len(lexeme) <= NAT_DIGITS and lexeme[0] != "0":
        # Plain digits without a leading zero: ``lean_number`` gives exactly these digits,
        # not negative, exponent 0; the number itself, read without building it.
        return int(lexeme)
    try:
        number = lean_number(value.lexeme)
    except ValueError as exc:
        return NotEvaluated(f"{name} cannot be read as the kernel reads it ({exc})")
    if number.negative or number.exponent != 0:
        return NotEvaluated(
            f"{name} {value.lexeme[:40]} is not a natural number as the kernel reads it "
            "(Lean getNat?: exponent 0, not negative)"
        )
    if len(number.digits) > NAT_DIGITS:
        return NotEvaluated(
            f"{name} has {len(number.digits)} digits; this model reads naturals of at most "
            f"{NAT_DIGITS} digits exactly and declines longer ones"
        )
    return int(number.digits)


def _grants(receipt: dict[str, JsonValue]) -> tuple[dict[str, JsonValue], ...] | NotEvaluated:
    """``granted_capabilities``, every entry an object, or why it is not read (never skipped)."""
    if "granted_capabilities" not in receipt:
        return ()
    grants = receipt["granted_capabilities"]
    if not isinstance(grants, list):
        return NotEvaluated("granted_capabilities is not an array")
    if not all(isinstance(grant, dict) for grant in grants):
        return NotEvaluated("an entry of granted_capabilities is not an object")
    return tuple(grant for grant in grants if isinstance(grant, dict))


def _time_inputs(receipt: dict[str, JsonValue]) -> tuple[int, int | None] | NotEvaluated:
    """``now`` (the default only when absent) and ``approval.issued_at`` (None when absent)."""
    now = receipt_nat(receipt["now"], "now") if "now" in receipt else DEFAULT_NOW
    if isinstance(now, NotEvaluated):
        return now
    approval = receipt.get("approval")
    if approval is None:  # absent, or JSON null: the receipt records no approval
        return now, None
    if not isinstance(approval, dict):
        return NotEvaluated("approval is not an object, so its issued_at cannot be read")
    if "issued_at" not in approval:
        return now, None
    issued_at = receipt_nat(approval["issued_at"], "approval.issued_at")
    return (now, issued_at) if isinstance(issued_at, int) else issued_at


def prepare(
    receipt: dict[str, JsonValue], raw_line: bytes | None = None, frames: Frames | None = None
) -> ReplayInput | NotEvaluated:
    """The inputs of the step a receipt records, or the precise reason they are missing.

    ``frames`` are the receipt's carried frames as its reader decoded them; without them they
    are decoded here.
    """
    emitted = receipt.get("emitted_bytes")
    if not isinstance(emitted, str):
        if receipt.get("bypass") is True:
            return NotEvaluated("bypass receipt: the kernel made no decision")
        return NotEvaluated("the receipt carries no emitted_bytes to compare with")
    identity = receipt.get("kernel_identity")
    wasm = identity.get("wasm_sha256") if isinstance(identity, dict) else None
    if not isinstance(wasm, str):
        return NotEvaluated("the receipt names no kernel build (kernel_identity.wasm_sha256)")
    profile = profile_for(wasm)
    if profile is None:
        return NotEvaluated(f"kernel build {wasm[:12]}… has no profile in this model")

    signed = receipt.get("signed_config")
    if isinstance(signed, dict) and "payload" in signed and not isinstance(signed["payload"], str):
        return NotEvaluated("signed_config.payload is not a string")
    if isinstance(signed, dict) and isinstance(signed.get("payload"), str):
        payload, payload_source = str(signed["payload"]), "signed_config.payload"
    elif isinstance(receipt.get("kernel_config"), dict):
        payload = render_payload(receipt["kernel_config"])
        payload_source = "kernel_config (no signed payload bytes)"
    else:
        return NotEvaluated("the receipt carries no config (signed_config or kernel_config)")

    line = _judged_line(receipt, raw_line, frames)
    if isinstance(line, NotEvaluated):
        return line
    grants = _grants(receipt)
    if isinstance(grants, NotEvaluated):
        return grants
    times = _time_inputs(receipt)
    if isinstance(times, NotEvaluated):
        return times
    now, issued_at = times
    inputs: ReplayInput = _NEW(ReplayInput)  # one a receipt: built without __init__
    _SET_PROFILE(inputs, profile)
    _SET_PAYLOAD(inputs, payload)
    _SET_PAYLOAD_SOURCE(inputs, payload_source)
    _SET_LINE(inputs, line[0])
    _SET_LINE_SOURCE(inputs, line[1])
    _SET_NOW(inputs, now)
    _SET_GRANTS(inputs, grants)
    _SET_ISSUED_AT(inputs, issued_at)
    _SET_GATE(inputs, "record_type" not in receipt)
    _SET_EXPECTED(inputs, emitted)
    return inputs


def _recovered_line(
    receipt: dict[str, JsonValue], request_sha: JsonValue, carried: Frames | None
) -> tuple[str, str] | NotEvaluated:
    """Object B v1: the judged line is Object A recovered from the release frame, when bound.

    An Object B v1 ALLOW carries no Object A, but seal-host forwards it with only
    ``,"operation_id":"<id>"`` spliced in (``release.rs``@099be66), so the frame less exactly
    that splice is the request the kernel judged; it is used only when it hashes to the
    signed ``request_sha256`` (verify's ``binding.release-frame-object-a`` checks the rest).
    """
    frame_json = receipt["release_frame"]
    encoded = frame_json.get("base64") if isinstance(frame_json, dict) else None
    operation_id = receipt.get("operation_id")
    if not isinstance(encoded, str) or not isinstance(operation_id, str):
        return NotEvaluated("the release frame or operation_id is missing, so no Object A")
    release = carried.release if carried is not None else None
    if release is None:
        return NotEvaluated("release_frame.base64 is not base64")
    frame = carried.recovered if carried is not None else None
    if frame is None:
        frame = unsplice_operation_id(release, operation_id)
    view = lean_view(frame) if frame is not None else None
    if view is None:
        return NotEvaluated(
            "the release frame is not a UTF-8 request with exactly the operation-id splice, "
            "so no Object A is recovered to re-derive from"
        )
    if hashlib.sha256(view.encode("utf-8")).hexdigest() != request_sha:
        return NotEvaluated(
            "the Object A recovered from the release frame does not hash to request_sha256"
        )
    return view, "Object A recovered from the release frame (hash-checked)"


def _judged_line(
    receipt: dict[str, JsonValue], raw_line: bytes | None, frames: Frames | None
) -> tuple[str, str] | NotEvaluated:
    request_sha = receipt.get("request_sha256")
    if raw_line is not None:
        if not isinstance(request_sha, str):
            return NotEvaluated("a raw line was supplied but the receipt has no request_sha256")
        view = lean_view(raw_line)
        if view is None:
            return NotEvaluated("the supplied raw line is not valid UTF-8")
        if hashlib.sha256(view.encode("utf-8")).hexdigest() != request_sha:
            return NotEvaluated(
                "the supplied raw line does not hash to the receipt's request_sha256"
            )
        return view, "the supplied raw line (hash-checked against request_sha256)"
    artifacts = receipt.get("signed_artifacts")
    object_a = artifacts.get("object_a") if isinstance(artifacts, dict) else None
    carried = None
    if isinstance(object_a, str) or isinstance(receipt.get("release_frame"), dict):
        carried = frames if frames is not None else carried_frames(receipt)
    if isinstance(object_a, str):
        frame = carried.object_a if carried is not None else None
        if frame is None:
            return NotEvaluated("signed_artifacts.object_a is not base64")
        view = lean_view(frame)
        if view is None:
            return NotEvaluated("signed_artifacts.object_a is not UTF-8")
        return view, "signed_artifacts.object_a"
    if isinstance(receipt.get("release_frame"), dict):
        return _recovered_line(receipt, request_sha, carried)
    if "request_parse_error" in receipt:
        return NotEvaluated(
            "unparseable request: the receipt carries only request_sha256; supply the line "
            "with --raw-line"
        )
    canonical = receipt.get("canonical_request")
    if not isinstance(canonical, str):
        return NotEvaluated("the receipt carries no request line")
    if (
        isinstance(request_sha, str)
        and hashlib.sha256(canonical.encode("utf-8")).hexdigest() != request_sha
    ):
        return NotEvaluated(
            "the judged wire line is not carried (request_sha256 is not the hash of "
            "canonical_request); supply it with --raw-line"
        )
    return canonical, "canonical_request"
