"""Fail-closed validation of request `_meta` (MCP 2026-07-28, legacy; meta-partition ruling §4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from sealverify._internal.mcp import keytable as mk
from sealverify._internal.mcp import w3c
from sealverify._internal.wire import spelling
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue, Limits

__all__ = [
    "ERR_INVALID_PARAMS",
    "ERR_INVALID_REQUEST",
    "ERR_UNSUPPORTED_VERSION",
    "LEGACY",
    "LOG_LEVELS",
    "MODERN",
    "MetaResult",
    "Refusal",
    "meta_state",
    "validate_meta",
]

MODERN = "2026-07-28"
LEGACY = "legacy"
Era = Literal["2026-07-28", "legacy"]
MetaState = Literal["absent", "object", "null", "non-object"]

ERR_INVALID_REQUEST = -32600
ERR_INVALID_PARAMS = -32602
ERR_MISSING_CAPABILITY = -32021
ERR_UNSUPPORTED_VERSION = -32022

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_SENTINEL = object()


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a frame must be refused before any authority decision, with the wire error."""

    code: str
    wire_error: int
    reason: str
    pointer: str = ""


@dataclass(frozen=True, slots=True)
class MetaResult:
    """What `_meta` validation saw: the presence state, the keys, and every refusal."""

    era: str
    state: MetaState
    refusals: tuple[Refusal, ...]
    keys: tuple[str, ...] = ()
    unknown_keys: tuple[str, ...] = ()
    reserved_unknown_keys: tuple[str, ...] = ()
    raw_bytes: int | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def admissible(self) -> bool:
        return not self.refusals


def meta_state(params: JsonValue, present: bool) -> MetaState:
    """Classify `_meta` as absent, an object, null, or another non-object value."""
    if not present:
        return "absent"
    if isinstance(params, dict):
        value = params.get("_meta", _SENTINEL)
        if value is _SENTINEL:
            return "absent"
        if value is None:
            return "null"
        return "object" if isinstance(value, dict) else "non-object"
    return "absent"


def _kind(value: JsonValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, JsonNumber):
        return "integer" if value.is_integer_lexeme else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _ptr(key: str) -> str:
    return spelling.pointer("params", "_meta", key)


def _depth(value: JsonValue) -> int:
    deepest = 0
    stack: list[tuple[JsonValue, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in item)
    return deepest


def _implementation_error(value: JsonValue) -> str | None:
    if not isinstance(value, dict):
        return f"must be an Implementation object, not {_kind(value)}"
    for member in ("name", "version"):
        if member not in value:
            return f"Implementation is missing required member {member!r}"
        if not isinstance(value[member], str):
            return f"Implementation member {member!r} must be a string"
    for member in ("title", "description", "websiteUrl"):
        if member in value and not isinstance(value[member], str):
            return f"Implementation member {member!r} must be a string"
    icons = value.get("icons", [])
    if not isinstance(icons, list):
        return "Implementation member 'icons' must be an array"
    for icon in icons:
        if not isinstance(icon, dict) or not isinstance(icon.get("src"), str):
            return "each icon must be an object with a string 'src'"
    return None


def _capabilities_error(value: JsonValue) -> str | None:
    if not isinstance(value, dict):
        return f"must be a ClientCapabilities object, not {_kind(value)}"
    for member in ("elicitation", "roots", "sampling", "experimental", "extensions"):
        if member in value and not isinstance(value[member], dict):
            return f"capability {member!r} must be an object, not {_kind(value[member])}"
    for member in ("experimental", "extensions"):
        entries = value.get(member, {})
        if isinstance(entries, dict):
            for name, entry in entries.items():
                if not isinstance(entry, dict):
                    return f"{member}[{name!r}] must be an object"
                if member == "extensions" and (
                    "/" not in name or mk.key_grammar_error(name) is not None
                ):
                    return (
                        f"extension identifier {name!r} must follow the _meta key grammar "
                        "with a prefix"
                    )
    return None


def _token_error(value: JsonValue, what: str) -> str | None:
    if isinstance(value, str):
        return None
    if isinstance(value, JsonNumber) and value.is_integer_lexeme:
        return None
    return f"{what} must be a string or an integer, not {_kind(value)}"


def _check_reserved(
    key: str, value: JsonValue, era: str, supported: frozenset[str]
) -> Refusal | None:
    """Type and format rules for each reserved key; None when the value is acceptable."""
    reason: str | None = None
    code = "meta.reserved-key-invalid"
    wire = ERR_INVALID_PARAMS
    if key == mk.PROTOCOL_VERSION:
        if not isinstance(value, str):
            reason = f"protocolVersion must be a string, not {_kind(value)}"
        elif era == LEGACY:
            return Refusal(
                "meta.modern-envelope-on-legacy",
                ERR_INVALID_REQUEST,
                "a modern per-request envelope (protocolVersion in _meta) on a legacy-era request",
                _ptr(key),
            )
        elif value not in supported:
            return Refusal(
                "meta.unsupported-protocol-version",
                ERR_UNSUPPORTED_VERSION,
                f"protocolVersion {value[:40]!r} is well-formed but not supported "
                f"(supported: {', '.join(sorted(supported))})",
                _ptr(key),
            )
    elif key == mk.CLIENT_CAPABILITIES:
        reason = _capabilities_error(value)
    elif key in (mk.CLIENT_INFO, mk.SERVER_INFO):
        reason = _implementation_error(value)
    elif key == mk.LOG_LEVEL:
        if not isinstance(value, str) or value not in LOG_LEVELS:
            shown = value[:40] if isinstance(value, str) else _kind(value)
            reason = f"logLevel {shown!r} is not one of {'|'.join(LOG_LEVELS)}"
    elif key == "progressToken":
        reason = _token_error(value, "progressToken")
    elif key == mk.SUBSCRIPTION_ID:
        reason = _token_error(value, "subscriptionId")
    elif key in ("traceparent", "tracestate", "baggage"):
        if not isinstance(value, str):
            reason = f"{key} must be a string, not {_kind(value)}"
        else:
            check = {
                "traceparent": w3c.traceparent_error,
                "tracestate": w3c.tracestate_error,
                "baggage": w3c.baggage_error,
            }[key]
            found = check(value)
            reason = f"{key} is not W3C-valid: {found}" if found else None
    elif key == "io.modelcontextprotocol/related-task" and (
        not isinstance(value, dict) or not isinstance(value.get("taskId"), str)
    ):
        reason = "related-task must be an object with a string 'taskId'"
    if reason is None:
        return None
    return Refusal(code, wire, reason, _ptr(key))


_KNOWN = frozenset(mk.KEY_TABLE) | {"io.modelcontextprotocol/related-task"}


def validate_meta(
    params: JsonValue,
    *,
    era: str,
    limits: Limits,
    raw_meta_bytes: int | None,
    supported_versions: frozenset[str] = frozenset({MODERN}),
) -> MetaResult:
    """Validate the `_meta` of one request's ``params`` in the given era, fail-closed.

    Order follows the meta-partition ruling §3.1: presence and shape, resource bounds, then each
    key's grammar and each reserved key's type or format. Every problem found is reported, not
    only the first. Unknown keys that pass the grammar are accepted (Option A commits them whole).
    """
    present = isinstance(params, dict) and "_meta" in params
    state = meta_state(params, present)
    refusals: list[Refusal] = []
    if state == "absent":
        if era == MODERN:
            refusals.append(
                Refusal(
                    "meta.absent",
                    ERR_INVALID_PARAMS,
                    "params._meta is absent; 2026-07-28 requires it with protocolVersion and "
                    "clientCapabilities",
                    "/params/_meta",
                )
            )
        return MetaResult(era, state, tuple(refusals))
    assert isinstance(params, dict)
    meta = params["_meta"]
    if not isinstance(meta, dict):
        refusals.append(
            Refusal(
                "meta.not-object",
                ERR_INVALID_PARAMS,
                f"params._meta must be an object, not {_kind(meta)}",
                "/params/_meta",
            )
        )
        return MetaResult(era, state, tuple(refusals), raw_bytes=raw_meta_bytes)
    _bound_refusals(meta, raw_meta_bytes, limits, refusals)
    if refusals:  # bounds are refused before any key-level work
        return MetaResult(era, state, tuple(refusals), tuple(meta), raw_bytes=raw_meta_bytes)
    unknown, reserved_unknown = _key_refusals(meta, era, supported_versions, refusals)
    return MetaResult(
        era,
        state,
        tuple(refusals),
        tuple(meta),
        tuple(unknown),
        tuple(reserved_unknown),
        raw_meta_bytes,
    )


def _bound_refusals(
    meta: dict[str, JsonValue], raw_bytes: int | None, limits: Limits, refusals: list[Refusal]
) -> None:
    """The ruling's resource bounds on `_meta`: its size as received and its nesting depth."""
    if raw_bytes is not None and raw_bytes > limits.max_meta_bytes:
        refusals.append(
            Refusal(
                "meta.too-large",
                ERR_INVALID_PARAMS,
                f"_meta is {raw_bytes} bytes as received, over the limit of "
                f"{limits.max_meta_bytes}",
                "/params/_meta",
            )
        )
    depth = _depth(meta)
    if depth > limits.max_meta_depth:
        refusals.append(
            Refusal(
                "meta.too-deep",
                ERR_INVALID_PARAMS,
                f"_meta nests {depth} levels, over the limit of {limits.max_meta_depth}",
                "/params/_meta",
            )
        )


def _key_refusals(
    meta: dict[str, JsonValue],
    era: str,
    supported_versions: frozenset[str],
    refusals: list[Refusal],
) -> tuple[list[str], list[str]]:
    """Required keys, each key's grammar and each reserved key's value; the unknown keys.

    Returns the keys outside the key table, and those of them under a reserved prefix.
    """
    if era == MODERN:
        for required in (mk.PROTOCOL_VERSION, mk.CLIENT_CAPABILITIES):
            if required not in meta:
                refusals.append(
                    Refusal(
                        "meta.required-key-missing",
                        ERR_INVALID_PARAMS,
                        f"required key {required} is missing from _meta",
                        _ptr(required),
                    )
                )
    unknown: list[str] = []
    reserved_unknown: list[str] = []
    for key, value in meta.items():
        grammar = mk.key_grammar_error(key)
        if grammar is not None:
            refusals.append(
                Refusal(
                    "meta.key-grammar",
                    ERR_INVALID_PARAMS,
                    f"_meta key {key[:60]!r} is ill-formed: {grammar}",
                    _ptr(key),
                )
            )
            continue
        if key in _KNOWN:
            refusal = _check_reserved(key, value, era, supported_versions)
            if refusal is not None:
                refusals.append(refusal)
        else:
            unknown.append(key)
            if mk.is_reserved_prefix(key):
                reserved_unknown.append(key)
    return unknown, reserved_unknown
