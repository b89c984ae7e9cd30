"""The MCP version gate the wasm runs before every step, and its per-session revision selection.

Mirrors mcp-seal-dev ``SealV2/McpVersionGate.lean`` (``mcpVersionGate``) and seal-host
``Ffi.lean`` (``McpRevisionSelection``, ``gatePlanFor``): the judged line is read from the step
envelope exactly as the step reads it; a line the raw-wire guards refuse skips the gate (the
step then blocks it); otherwise the gate judges the line under the revision selected by earlier
admitted entry calls (``initialize`` selects 2025-06-18, ``server/discover`` 2026-07-28, both
select the "conflicting-entry-calls" sentinel), and only an admitted line is observed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sealverify._internal.kernel.ljson import (
    ABSENT,
    Absent,
    LeanError,
    LValue,
    ModelLimit,
    compress,
    parse,
)
from sealverify._internal.wire.leanjson import LeanNumber

__all__ = ["CONFLICT", "GateDecision", "mcp_version_gate", "observe"]

LEGACY = "2025-06-18"
CURRENT = "2026-07-28"
SUPPORTED = (LEGACY, CURRENT)
CONFLICT = "conflicting-entry-calls"
_ENTRY_REVISION = {"initialize": LEGACY, "server/discover": CURRENT}
_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"


@dataclass(frozen=True, slots=True)
class GateDecision:
    """``McpVersionGateDecision``: continue, or reject with the exact error response line."""

    response: str | None = None

    @property
    def admitted(self) -> bool:
        return self.response is None

    def to_json(self) -> str:
        if self.response is None:
            return compress({"route": "continue"})
        return compress({"route": "reject", "response": self.response})


def _error(request_id: LValue, code: int, message: str, data: LValue | None = None) -> str:
    error: dict[str, LValue] = {
        "code": LeanNumber(code < 0, str(abs(code)), 0),
        "message": message,
    }
    if data is not None:
        error["data"] = data
    return compress({"jsonrpc": "2.0", "id": request_id, "error": error}) + "\n"


def _invalid(request_id: LValue, reason: str) -> GateDecision:
    return GateDecision(_error(request_id, -32602, f"Invalid params: {reason}"))


def _member(value: LValue, key: str) -> tuple[bool, LValue]:
    if isinstance(value, dict) and key in value:
        return True, value[key]
    return False, None


def mcp_version_gate(
    line: str, selected: str, keys_safe: bool, request: LValue | Absent = ABSENT
) -> GateDecision:
    """``mcpVersionGate line selectedRevision`` (``keys_safe``: ``wireKeysSafe line``).

    ``request`` is ``Json.parse`` of ``line`` when the caller has it (else parsed here).
    """
    if not keys_safe:
        return GateDecision()
    if isinstance(request, Absent):
        try:
            request = parse(line)
        except (LeanError, ModelLimit):
            return GateDecision()
    has_method, method = _member(request, "method")
    if not has_method or method != "tools/call":
        return GateDecision()
    _, request_id = _member(request, "id")
    has_params, params = _member(request, "params")
    if not has_params:
        return _invalid(request_id, "tools/call params object is missing")
    if selected and selected not in SUPPORTED:
        return _invalid(request_id, "session MCP era is ambiguous")
    has_meta, meta = _member(params, "_meta")
    modern = has_meta and (
        _member(meta, _PROTOCOL_VERSION)[0] or _member(meta, _CLIENT_CAPABILITIES)[0]
    )
    if selected in ("", LEGACY) and not modern:
        return GateDecision()
    if not has_meta:
        return _invalid(request_id, "required _meta object is missing")
    if not isinstance(meta, dict):
        return _invalid(request_id, "required _meta must be an object")
    has_revision, revision = _member(meta, _PROTOCOL_VERSION)
    if not has_revision:
        return _invalid(request_id, f"required {_PROTOCOL_VERSION} is missing")
    if not isinstance(revision, str):
        return _invalid(request_id, f"required {_PROTOCOL_VERSION} must be a string")
    has_caps, capabilities = _member(meta, _CLIENT_CAPABILITIES)
    if not has_caps:
        return _invalid(request_id, f"required {_CLIENT_CAPABILITIES} is missing")
    if not isinstance(capabilities, dict):
        return _invalid(request_id, f"required {_CLIENT_CAPABILITIES} must be an object")
    if revision not in SUPPORTED:
        data: LValue = {"supportedVersions": list(SUPPORTED)}
        message = f"Unsupported protocol version: {revision}"
        return GateDecision(_error(request_id, -32022, message, data))
    if selected and revision != selected:
        return _invalid(
            request_id,
            f"request protocol version {revision} is inconsistent with selected session "
            f"version {selected}",
        )
    return GateDecision()


def observe(selection: str, line: str, request: LValue | Absent = ABSENT) -> str:
    """``McpRevisionSelection.observe`` on the gate-input encoding of the selection.

    ``request`` is ``Json.parse`` of ``line`` when the caller has it (else parsed here).
    """
    if isinstance(request, Absent):
        try:
            request = parse(line)
        except (LeanError, ModelLimit):
            return selection
    has_method, method = _member(request, "method")
    observed = _ENTRY_REVISION.get(method) if has_method and isinstance(method, str) else None
    if observed is None:
        return selection
    if selection == "":
        return observed
    if selection == CONFLICT or selection != observed:
        return CONFLICT
    return selection
