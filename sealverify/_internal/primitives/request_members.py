"""The members of a tools/call request that seal's identities bind, and the pointers of the rest.

seal-host@099be66 ``rust/src/authorization_decision.rs`` ``canonical_request`` rebuilds the
request from ``params.name``, ``params.arguments`` and, when present, ``_meta``,
``requestState`` and ``inputResponses``; the envelope is fixed (``jsonrpc``, ``id``,
``method``, ``params``). Any other member reaches the server in the exact frame but no identity
covers it: ``verify`` refuses such bytes as Object A, ``diff`` never calls two calls that differ
in one "the same invocation", and ``frame`` names each one.
"""

from __future__ import annotations

from sealverify._internal.wire.spelling import pointer
from sealverify._internal.wire.strictjson import JsonValue

__all__ = ["CALL_PARAMS", "ENVELOPE", "unbound_members"]

ENVELOPE = frozenset({"jsonrpc", "id", "method", "params"})
CALL_PARAMS = frozenset({"name", "arguments", "_meta", "requestState", "inputResponses"})


def unbound_members(message: JsonValue) -> list[str]:
    """JSON pointers (RFC 6901) of the members no seal identity binds, envelope first, sorted.

    Envelope members other than ``jsonrpc``, ``id``, ``method`` and ``params``; for a
    ``tools/call``, ``params`` members other than ``name``, ``arguments``, ``_meta``,
    ``requestState`` and ``inputResponses`` (``params.task``, a task-augmented call in MCP
    2025-11-25, among them).
    """
    if not isinstance(message, dict):
        return []
    out = sorted(pointer(key) for key in message if key not in ENVELOPE)
    params = message.get("params")
    if message.get("method") == "tools/call" and isinstance(params, dict):
        out += sorted(pointer("params", key) for key in params if key not in CALL_PARAMS)
    return out
