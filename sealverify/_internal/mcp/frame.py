"""The frame core: from one frame's exact bytes to its digests, admission verdict and identities."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from sealverify._internal.mcp.meta import (
    ERR_INVALID_PARAMS,
    ERR_INVALID_REQUEST,
    LEGACY,
    MODERN,
    MetaResult,
    Refusal,
    validate_meta,
)
from sealverify._internal.primitives import identities
from sealverify._internal.wire import guards as wireguard
from sealverify._internal.wire.framing import FrameBytes
from sealverify._internal.wire.strictjson import (
    DEFAULT_LIMITS,
    JsonError,
    JsonNumber,
    JsonValue,
    Limits,
    decode_utf8,
    member_spans,
    parse_text,
)

__all__ = [
    "ERA_CHOICES",
    "FrameAnalysis",
    "FrameOptions",
    "analyze_frame",
    "analyze_stream",
    "iter_stream",
]

ERA_CHOICES = (MODERN, LEGACY, "auto")
ERR_PARSE = -32700


@dataclass(frozen=True, slots=True)
class FrameOptions:
    """How to read frames: the era to enforce, resource limits, versions, seal server name."""

    era: str = MODERN
    limits: Limits = DEFAULT_LIMITS
    supported_versions: frozenset[str] = frozenset({MODERN})
    server: str = ""
    # A frame longer than this is refused unread (``frame.too-large``): hostile input must not
    # cost a parse proportional to its size. None: no cap (the library default).
    max_frame_bytes: int | None = None


@dataclass(frozen=True, slots=True)
class FrameAnalysis:
    """Everything the frame core established about one frame."""

    frame: FrameBytes
    kind: str
    method: str | None
    request_id: str | None
    era: str
    era_inferred: bool
    refusals: tuple[Refusal, ...]
    meta: MetaResult | None
    identities: identities.Identities | None
    message: JsonValue = field(default=None, compare=False, repr=False)
    notes: tuple[str, ...] = ()

    @property
    def admissible(self) -> bool:
        """True when nothing requires refusing this frame before an authority decision."""
        return not self.refusals


def _id_text(value: JsonValue) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, JsonNumber):
        return value.lexeme
    return None


def _infer_era(message: JsonValue) -> str:
    """The reference SDK's signal: a modern envelope names protocolVersion in `_meta`."""
    if isinstance(message, dict) and message.get("method") != "initialize":
        params = message.get("params")
        if isinstance(params, dict):
            meta = params.get("_meta")
            if isinstance(meta, dict) and "io.modelcontextprotocol/protocolVersion" in meta:
                return MODERN
    return LEGACY


def _raw_meta_bytes(text: str) -> int | None:
    """Byte length of the `_meta` value exactly as received, or None when there is none."""
    try:
        top = member_spans(text, len(text) - len(text.lstrip(" \t\r\n")))
        params = next((m for m in top if m.name == "params"), None)
        if params is None or text[params.value_start] != "{":
            return None
        meta = next((m for m in member_spans(text, params.value_start) if m.name == "_meta"), None)
    except (ValueError, IndexError):
        return None
    if meta is None:
        return None
    return len(text[meta.value_start : meta.value_end].encode("utf-8"))


def _envelope_refusals(message: JsonValue) -> tuple[str, list[Refusal]]:
    """JSON-RPC 2.0 envelope checks; returns the message kind and any refusals."""
    if not isinstance(message, dict):
        return "invalid", [
            Refusal(
                "jsonrpc.not-object", ERR_INVALID_REQUEST, "a JSON-RPC message must be an object"
            )
        ]
    refusals: list[Refusal] = []
    if message.get("jsonrpc") != "2.0":
        refusals.append(
            Refusal(
                "jsonrpc.version", ERR_INVALID_REQUEST, 'member "jsonrpc" must be "2.0"', "/jsonrpc"
            )
        )
    if "method" not in message:
        kind = "response" if ("result" in message or "error" in message) else "invalid"
        if kind == "invalid":
            refusals.append(
                Refusal("jsonrpc.shape", ERR_INVALID_REQUEST, "neither a request nor a response")
            )
        return kind, refusals
    if not isinstance(message["method"], str):
        refusals.append(
            Refusal(
                "jsonrpc.method", ERR_INVALID_REQUEST, 'member "method" must be a string', "/method"
            )
        )
    if "id" not in message:
        kind = "notification"
    else:
        kind = "request"
        if _id_text(message["id"]) is None or (
            isinstance(message["id"], JsonNumber) and not message["id"].is_integer_lexeme
        ):
            refusals.append(
                Refusal(
                    "jsonrpc.id",
                    ERR_INVALID_REQUEST,
                    "request id must be a string or an integer (never null)",
                    "/id",
                )
            )
    if "params" in message and not isinstance(message["params"], dict):
        refusals.append(
            Refusal("jsonrpc.params", ERR_INVALID_PARAMS, '"params" must be an object', "/params")
        )
    return kind, refusals


# seal-host mediates every line its classifier reads as a tools/call, id or not, under the
# request id null (Host/Canonical.lean classifyLine and jsonId, rust/src/main.rs
# route_of_classify, seal-host@099be66). A call without an id has no reply to correlate and no
# request identity to bind, so it is refused before any identity is computed (docs/frame.md).
_NOTIFICATION_CALL = Refusal(
    "tools-call.notification",
    ERR_INVALID_REQUEST,
    "a tools/call without an id is a notification: no reply can be correlated and no identity "
    "is bound to it",
    "/id",
)


def _tools_call_refusals(params: JsonValue) -> list[Refusal]:
    if not isinstance(params, dict):
        return [
            Refusal("tools-call.params", ERR_INVALID_PARAMS, "tools/call needs params", "/params")
        ]
    refusals: list[Refusal] = []
    if not isinstance(params.get("name"), str):
        refusals.append(
            Refusal(
                "tools-call.name",
                ERR_INVALID_PARAMS,
                "params.name must be a string",
                "/params/name",
            )
        )
    shapes: tuple[tuple[str, str, type], ...] = (
        ("arguments", "an object", dict),
        ("requestState", "a string", str),
        ("inputResponses", "an object", dict),
    )
    for member, kind, expected in shapes:
        if member in params and not isinstance(params[member], expected):
            refusals.append(
                Refusal(
                    f"tools-call.{member}",
                    ERR_INVALID_PARAMS,
                    f"params.{member} must be {kind}",
                    f"/params/{member}",
                )
            )
    return refusals


def _wire_refusals(text: str, message: JsonValue) -> list[Refusal]:
    """seal-host's pre-parse wire guards (numbers, escaped keys, Unicode-equivalent keys)."""
    refusals = [
        Refusal("wire.number", ERR_INVALID_PARAMS, f"number {lexeme[:40]} refused by seal: {why}")
        for lexeme, why in wireguard.number_refusals(message)
    ]
    refusals.extend(
        Refusal(
            "wire.escaped-key",
            ERR_INVALID_PARAMS,
            f"member name {name} is written with a backslash escape; seal refuses it",
        )
        for name in wireguard.escaped_keys(text)
    )
    refusals.extend(
        Refusal(
            "wire.equivalent-keys",
            ERR_INVALID_PARAMS,
            f"member names {a!r} and {b!r} are canonically equivalent (NFC)",
        )
        for a, b in wireguard.unicode_equivalent_keys(message)
    )
    return refusals


def _frame_refusals(frame: FrameBytes) -> list[Refusal]:
    refusals: list[Refusal] = []
    if frame.terminator == "none":
        refusals.append(
            Refusal(
                "frame.unterminated",
                ERR_PARSE,
                "stdio frame has no LF delimiter (truncated or incomplete); there is no exact "
                "frame to bind",
            )
        )
    if frame.inner_newline:
        refusals.append(
            Refusal(
                "frame.embedded-newline",
                ERR_PARSE,
                "a CR or LF inside the frame: newline-splitting readers (the reference SDK "
                "splits on bare CR) would see different messages than the digests bind",
            )
        )
    return refusals


def analyze_frame(
    frame: FrameBytes, options: FrameOptions = FrameOptions(), *, era: str | None = None
) -> FrameAnalysis:
    """Analyze one frame: strict parse, envelope, era, `_meta`, then identities (tools/call).

    Identities are computed only for an admissible ``tools/call``: nothing refused reaches
    canonical work (the meta-partition ruling §3.1). Byte digests are always available on ``frame``.
    """
    era = era or options.era
    refusals = _frame_refusals(frame)
    cap = options.max_frame_bytes
    if frame.streamed is not None or (cap is not None and frame.length > cap):
        refusals.append(
            Refusal(
                "frame.too-large",
                ERR_PARSE,
                f"the frame is {frame.length} bytes, over the cap of "
                f"{cap if cap is not None else 'its reader'} (--max-frame-bytes): refused unread",
            )
        )
        return FrameAnalysis(frame, "unparsed", None, None, era, False, tuple(refusals), None, None)
    try:
        text = decode_utf8(frame.line)
        message = parse_text(text, options.limits)
    except JsonError as exc:
        refusals.append(Refusal(exc.code, ERR_PARSE, str(exc)))
        return FrameAnalysis(frame, "unparsed", None, None, era, False, tuple(refusals), None, None)
    refusals.extend(_wire_refusals(text, message))
    inferred = era == "auto"
    if inferred:
        era = _infer_era(message)
    kind, envelope = _envelope_refusals(message)
    refusals.extend(envelope)
    assert isinstance(message, dict) or kind == "invalid"
    method = message.get("method") if isinstance(message, dict) else None
    method = method if isinstance(method, str) else None
    request_id = _id_text(message.get("id")) if isinstance(message, dict) else None
    meta_result: MetaResult | None = None
    notes: list[str] = []
    if kind == "request" and isinstance(message, dict):
        meta_result = _request_refusals(message, method, era, text, options, refusals)
    elif kind == "notification":
        notes.append("notification: no identity is bound")
        if method == "tools/call":
            refusals.append(_NOTIFICATION_CALL)
    elif kind == "response":
        notes.append("response: a client-to-server JSON-RPC response; no identity is bound")
    found = None
    if kind == "request" and method == "tools/call" and not refusals and isinstance(message, dict):
        params_obj = message["params"]
        assert isinstance(params_obj, dict)
        found = identities.compute(params_obj, server=options.server)
    return FrameAnalysis(
        frame,
        kind,
        method,
        request_id,
        era,
        inferred,
        tuple(refusals),
        meta_result,
        found,
        message,
        tuple(notes),
    )


def _request_refusals(
    message: dict[str, JsonValue],
    method: str | None,
    era: str,
    text: str,
    options: FrameOptions,
    refusals: list[Refusal],
) -> MetaResult | None:
    """A request's method in its era, its `_meta` (returned) and a tools/call's params."""
    meta_result: MetaResult | None = None
    params: JsonValue = message.get("params")
    if method == "initialize" and era == MODERN:
        refusals.append(
            Refusal(
                "jsonrpc.initialize-in-modern",
                -32022,
                "initialize is removed in 2026-07-28; a modern server refuses it",
                "/method",
            )
        )
    elif method != "initialize":
        if params is None and era == LEGACY:
            params = {}
        meta_result = validate_meta(
            params if params is not None else {},
            era=era,
            limits=options.limits,
            raw_meta_bytes=_raw_meta_bytes(text),
            supported_versions=options.supported_versions,
        )
        refusals.extend(meta_result.refusals)
    if method == "tools/call":
        refusals.extend(_tools_call_refusals(message.get("params")))
    return meta_result


def analyze_stream(
    frames: Iterable[FrameBytes], options: FrameOptions = FrameOptions()
) -> list[FrameAnalysis]:
    """Analyze every frame of one stdio stream; with era ``auto`` the first request decides.

    This mirrors the reference SDK's dual-era loop: the first request fixes the era of the
    whole connection (``initialize`` selects legacy, a modern envelope selects 2026-07-28).
    """
    return list(iter_stream(frames, options))


def iter_stream(
    frames: Iterable[FrameBytes], options: FrameOptions = FrameOptions()
) -> Iterator[FrameAnalysis]:
    """:func:`analyze_stream` one frame at a time, so a long stream is never held whole."""
    session_era: str | None = None if options.era == "auto" else options.era
    for frame in frames:
        if frame.blank and frame.terminator != "none":
            # A blank line is not a JSON-RPC message: never an admissible frame, nothing bound.
            blank = Refusal(
                "frame.blank-line",
                ERR_PARSE,
                "a blank line is not a JSON-RPC message: refused as a frame, nothing is bound",
            )
            yield (
                FrameAnalysis(
                    frame,
                    "blank",
                    None,
                    None,
                    session_era or "auto",
                    False,
                    (blank,),
                    None,
                    None,
                )
            )
            continue
        result = analyze_frame(frame, options, era=session_era or "auto")
        if session_era is None and result.kind == "request":
            session_era = result.era
        yield result
