"""The MCP `_meta` key-name grammar, reserved prefixes and the reserved-key table.

Sources: MCP 2026-07-28 ``basic/index.mdx`` "General fields / _meta" and "Reserved keys"
(commit 5f5440bb); the meta-partition ruling §2.2 for what carries each key and whether a server
can act on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "CLIENT_CAPABILITIES",
    "CLIENT_INFO",
    "KEY_TABLE",
    "LOG_LEVEL",
    "OPTION_C_COMMITTED",
    "OPTION_C_EXCLUDED",
    "PROTOCOL_VERSION",
    "SERVER_INFO",
    "SUBSCRIPTION_ID",
    "VOLATILE_RETRY_KEYS",
    "KeyInfo",
    "is_reserved_prefix",
    "key_grammar_error",
]

PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
LOG_LEVEL = "io.modelcontextprotocol/logLevel"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"

_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_KEY = re.compile(
    rf"(?P<prefix>{_LABEL}(?:\.{_LABEL})*/)?(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?"
)


def key_grammar_error(key: str) -> str | None:
    """Return why ``key`` breaks the `_meta` key grammar, or ``None`` when it is valid.

    A key is an optional prefix (dot-separated labels that start with a letter and end with a
    letter or digit, then ``/``) and a name (empty, or alphanumeric at both ends with ``-._``
    inside). ASCII only: the spec spells the name class as ``[a-z0-9A-Z]``.
    """
    if _KEY.fullmatch(key):
        return None
    prefix, slash, name = key.rpartition("/")
    if slash:
        labels = prefix.split(".")
        for label in labels:
            if not label:
                return f"prefix {prefix + '/'!r} has an empty label"
            if re.fullmatch(_LABEL, label) is None:
                return (
                    f"prefix label {label!r} must start with a letter, end with a letter or "
                    "digit, and hold only letters, digits and '-'"
                )
    if name and re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?", name) is None:
        return (
            f"name {name[:40]!r} must begin and end with a letter or digit and hold only "
            "letters, digits, '-', '_' and '.'"
        )
    return "key holds more than one '/' or characters outside the grammar"


def is_reserved_prefix(key: str) -> bool:
    """True when the key's prefix has ``modelcontextprotocol`` or ``mcp`` as its second label.

    The comparison is case-insensitive (the spec does not say; being broad here only widens
    what is reported as reserved, it never admits anything).
    """
    prefix, slash, _ = key.rpartition("/")
    if not slash:
        return False
    labels = prefix.lower().split(".")
    return len(labels) >= 2 and labels[1] in ("modelcontextprotocol", "mcp")


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """One row of the meta-partition ruling §2.2: what carries a key, how each option treats it."""

    key: str
    carried_by: str
    may_change: str
    server_can_act: str
    option_c: str  # "committed" | "excluded"


KEY_TABLE: dict[str, KeyInfo] = {
    info.key: info
    for info in (
        KeyInfo(
            "progressToken",
            "optional request _meta string or integer; opts into progress notifications",
            "yes: a caller may choose a new token for each active invocation",
            "yes, at the protocol-behavior layer (progress notifications)",
            "excluded",
        ),
        KeyInfo(
            PROTOCOL_VERSION,
            "required string in every client request's _meta",
            "yes: the same action can be expressed under two supported revisions",
            "yes: selects request semantics; an unsupported value must be refused",
            "committed",
        ),
        KeyInfo(
            CLIENT_INFO,
            "optional Implementation object, self-reported, for display/logging/debugging",
            "yes: different clients or versions can invoke the identical action",
            "not for behavior or security in a conforming server; may be logged or displayed",
            "excluded",
        ),
        KeyInfo(
            CLIENT_CAPABILITIES,
            "required ClientCapabilities object, scoped to this request",
            "yes: capabilities are declared per request",
            "yes: a server must reject (-32021) when a needed capability is not declared",
            "committed",
        ),
        KeyInfo(
            LOG_LEVEL,
            "optional LoggingLevel (deprecated, retained); opts into request-scoped logs",
            "yes: verbosity can change independently of the tool action",
            "yes, at the observability/protocol layer",
            "excluded",
        ),
        KeyInfo(
            SUBSCRIPTION_ID,
            "server-to-client _meta on subscription traffic; not a tools/call request field",
            "yes: identical notifications on different subscriptions differ",
            "not as a client-supplied tool-action input",
            "excluded",
        ),
        KeyInfo(
            "traceparent",
            "optional W3C Trace Context traceparent",
            "yes: another valid trace or parent span may accompany the identical action",
            "yes, outside tool-action selection (instrumentation, routing, export)",
            "excluded",
        ),
        KeyInfo(
            "tracestate",
            "optional W3C Trace Context vendor trace-state list",
            "yes: vendor state can change independently of the action",
            "yes, outside tool-action selection (trace processors, exporters, routing)",
            "excluded",
        ),
        KeyInfo(
            "baggage",
            "optional W3C Baggage",
            "yes: baggage members can vary independently of the action",
            "yes, outside tool-action selection (propagation, routing, export)",
            "excluded",
        ),
        KeyInfo(
            SERVER_INFO,
            "optional Implementation in a result's _meta; not a client request field",
            "yes, across responses",
            "not as request input",
            "excluded",
        ),
    )
}

OPTION_C_COMMITTED: tuple[str, ...] = tuple(
    sorted(k for k, v in KEY_TABLE.items() if v.option_c == "committed")
)
OPTION_C_EXCLUDED: tuple[str, ...] = tuple(
    sorted(k for k, v in KEY_TABLE.items() if v.option_c == "excluded")
)

# AttestoMCP Server v2.8.0 `RequestMeta`: metadata a multi-round-trip retry may change (the rest
# stays bound to round one).
VOLATILE_RETRY_KEYS: frozenset[str] = frozenset(
    {"traceparent", "tracestate", "baggage", "progressToken", CLIENT_INFO}
)
