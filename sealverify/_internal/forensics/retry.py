"""The retry view: whether B retries A after an input-required reply, requestState echoed."""

from __future__ import annotations

from contextlib import closing
from typing import Any

from sealverify._internal.forensics.changes import (
    json_diff,
)
from sealverify._internal.forensics.integrity import (
    RECEIPT_LIMITS,
)
from sealverify._internal.forensics.sides import (
    Side,
)
from sealverify._internal.mcp.keytable import VOLATILE_RETRY_KEYS
from sealverify._internal.wire.framing import Source, read_lines
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonValue,
    parse_bytes,
)

__all__ = [
    "input_required_reply",
    "retry_view",
]


def input_required_reply(stream: Source, request_id: JsonValue) -> dict[str, JsonValue] | None:
    """The ``result`` of the server's response to ``request_id`` in a server-to-client capture.

    ``stream`` is the capture's bytes or a call that opens them (see ``load_side``); it is
    read a line at a time.
    """
    with closing(read_lines(stream)) as frames:
        for frame in frames:
            try:
                message = parse_bytes(frame.line, RECEIPT_LIMITS)
            except JsonError:
                continue
            if (
                isinstance(message, dict)
                and "method" not in message
                and message.get("id") == request_id
                and isinstance(message.get("result"), dict)
            ):
                result = message["result"]
                assert isinstance(result, dict)
                return result
    return None


def retry_view(a: Side, b: Side, reply: dict[str, JsonValue] | None = None) -> dict[str, Any]:
    """Whether B is a legitimate multi-round-trip retry of A (MCP 2026-07-28 MRTR).

    The retry must carry a new JSON-RPC id, the same name and arguments, ``inputResponses``,
    ``requestState`` exactly as the server returned it (checked only when the server's reply
    to A is given), and the same ``_meta`` apart from the volatile retry keys
    (traceparent, tracestate, baggage, progressToken, io.modelcontextprotocol/clientInfo).
    """
    pa, pb = a.params, b.params
    if pa is None or pb is None:
        return {"state": "not-evaluated", "reasons": ["both sides must be tools/call requests"]}
    if "inputResponses" not in pb and "requestState" not in pb:
        return {
            "state": "not-a-retry",
            "reasons": ["B carries neither inputResponses nor requestState"],
        }
    reasons: list[str] = []
    unchecked: list[str] = []
    if a.request_id is None or b.request_id is None:
        unchecked.append("JSON-RPC ids are not available (receipt without frame bytes)")
    elif a.request_id == b.request_id:
        reasons.append("B reuses A's JSON-RPC id; a retry MUST use a new id")
    for member in ("name", "arguments"):
        if pa.get(member) != pb.get(member) or json_diff(pa.get(member), pb.get(member)):
            reasons.append(f"params.{member} differs; a retry resends the original params")
    if "inputResponses" in pb and not isinstance(pb["inputResponses"], dict):
        reasons.append("B's inputResponses is not an object")
    meta_a = pa.get("_meta") if isinstance(pa.get("_meta"), dict) else {}
    meta_b = pb.get("_meta") if isinstance(pb.get("_meta"), dict) else {}
    assert isinstance(meta_a, dict) and isinstance(meta_b, dict)
    bound = sorted((set(meta_a) | set(meta_b)) - VOLATILE_RETRY_KEYS)
    changed_bound = [
        k
        for k in bound
        if meta_a.get(k, _MISSING) != meta_b.get(k, _MISSING)
        or json_diff(meta_a.get(k), meta_b.get(k))
    ]
    if changed_bound:
        reasons.append("non-volatile _meta differs: " + ", ".join(changed_bound))
    volatile_changed = sorted(
        k for k in VOLATILE_RETRY_KEYS if meta_a.get(k, _MISSING) != meta_b.get(k, _MISSING)
    )
    if reply is None:
        unchecked.append(
            "requestState echo and inputResponses keys not checked: give the "
            "server's reply to A (--reply-a)"
        )
    else:
        if reply.get("resultType") != "input_required":
            reasons.append("the server's reply to A is not an input_required result")
        echoed = reply.get("requestState", _MISSING) == pb.get("requestState", _MISSING)
        if not echoed:
            reasons.append("B's requestState is not an exact echo of the server's")
        asked = reply.get("inputRequests")
        given = pb.get("inputResponses")
        if isinstance(asked, dict) and isinstance(given, dict) and set(given) - set(asked):
            reasons.append(
                "inputResponses answers keys the server did not ask: "
                + ", ".join(sorted(set(given) - set(asked)))
            )
    state = "not-legitimate" if reasons else "legitimate"
    return {
        "state": state,
        "reasons": reasons,
        "unchecked": unchecked,
        "volatile_keys_changed": volatile_changed,
    }


_MISSING: JsonValue = {"\0missing": None}
