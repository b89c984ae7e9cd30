"""Recorded MCP traffic as tool listings: Streamable HTTP exchanges and stdio launch transcripts."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from sealverify._internal.results.model import fail, info
from sealverify._internal.tools.digests import (
    Listing,
    Unrepresentable,
    collect_pages,
    js_value,
    note_request,
    one_value,
    read_listing,
)
from sealverify._internal.wire.framing import Source
from sealverify._internal.wire.strictjson import JsonError, JsonValue, parse_bytes
from sealverify.errors import InputError

__all__ = [
    "HTTP_FORMAT",
    "STDIO_FORMAT",
    "TranscriptError",
    "read_any",
    "read_http_transcript",
    "read_stdio_transcript",
    "sse_messages",
]

HTTP_FORMAT = "sealverify._internal.mcp-http-transcript/v1"
STDIO_FORMAT = "sealverify._internal.mcp-stdio-transcript/v1"
_VERSION_HEADER = "mcp-protocol-version"
# Launch members a transcript may record; `env` values are reduced to their names.
_LAUNCH_KEPT = ("package", "resolvedVersion", "args", "envValues", "network")


class TranscriptError(InputError, ValueError):
    """A transcript document that does not have the shape of its declared format."""


# --- shared pieces -------------------------------------------------------------------------


def _b64(value: JsonValue, where: str) -> bytes:
    if not isinstance(value, str):
        raise TranscriptError(f"{where} is not a base64 string")
    try:
        return base64.b64decode(value.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise TranscriptError(f"{where} is not standard base64") from None


def _headers(value: JsonValue, where: str) -> list[tuple[str, str]]:
    """Header pairs in recorded order; names compare case-insensitively (RFC 9110 §5.1)."""
    out: list[tuple[str, str]] = []
    if not isinstance(value, list):
        raise TranscriptError(f"{where} is not an array of headers")
    for index, item in enumerate(value):
        if isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
            out.append((str(item[0]).lower(), str(item[1])))
        elif isinstance(item, dict) and isinstance(item.get("name"), str):  # HAR 1.2 form
            header_value = item.get("value")
            if not isinstance(header_value, str):
                raise TranscriptError(f"{where}/{index} has no string value")
            out.append((str(item["name"]).lower(), header_value))
        else:
            raise TranscriptError(f"{where}/{index} is not a [name, value] pair")
    return out


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    values = [v for k, v in headers if k == name]
    return values[0] if len(values) == 1 else None if not values else ",".join(values)


def sse_messages(body: bytes) -> list[bytes]:
    """The ``data`` of each ``message`` event of a ``text/event-stream`` body, in order.

    Events end at a blank line (LF, CRLF or CR line ends, as the HTML event-stream format
    allows); several ``data:`` lines join with LF; one space after the colon is dropped; an
    event with an empty data buffer (a priming or retry event) is skipped.
    """
    text = body.decode("utf-8", errors="strict").replace("\r\n", "\n").replace("\r", "\n")
    out: list[bytes] = []
    for block in text.split("\n\n"):
        event, data = "message", []
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
        text_data = "\n".join(data)
        if text_data and event == "message":
            out.append(text_data.encode("utf-8"))
    return out


# --- Streamable HTTP -----------------------------------------------------------------------


def _pair(item: JsonValue, where: str) -> tuple[dict[str, JsonValue], dict[str, JsonValue]]:
    req = item.get("request") if isinstance(item, dict) else None
    resp = item.get("response") if isinstance(item, dict) else None
    if not isinstance(req, dict) or not isinstance(resp, dict):
        raise TranscriptError(f"{where} needs a request and a response object")
    return req, resp


def _exchanges(doc: dict[str, JsonValue]) -> list[dict[str, Any]]:
    """Exchanges of our format or of a HAR 1.2 log, as plain request/response records.

    Our format carries bodies as ``body_base64``; HAR carries ``request.postData`` and
    ``response.content`` (text, or base64 when ``encoding`` says so).
    """
    ours = doc.get("format") == HTTP_FORMAT
    log = doc.get("log")
    items = doc.get("exchanges") if ours else log.get("entries") if isinstance(log, dict) else None
    if not isinstance(items, list):
        raise TranscriptError(
            "`exchanges` is not an array" if ours else "no `exchanges` and no HAR `log.entries`"
        )
    out: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        where = f"/exchanges/{i}" if ours else f"/log/entries/{i}"
        req, resp = _pair(item, where)
        if ours:
            request_body = _b64(req.get("body_base64", ""), f"{where}/request")
            response_body = _b64(resp.get("body_base64", ""), f"{where}/response")
        else:
            request_body = _har_text(req.get("postData"), f"{where}/request/postData")
            response_body = _har_text(resp.get("content"), f"{where}/response/content")
        out.append(
            {
                "method": req.get("method"),
                "request_headers": _headers(req.get("headers"), f"{where}/request"),
                "request_body": request_body,
                "status": resp.get("status"),
                "response_headers": _headers(resp.get("headers"), f"{where}/response"),
                "response_body": response_body,
            }
        )
    return out


def _har_text(value: JsonValue, where: str) -> bytes:
    if value is None:
        return b""
    if not isinstance(value, dict):
        raise TranscriptError(f"{where} is not an object")
    text = value.get("text", "")
    if value.get("encoding") == "base64":
        return _b64(text, where + "/text")
    if not isinstance(text, str):
        raise TranscriptError(f"{where}/text is not a string")
    return text.encode("utf-8")


def _messages(body: bytes, content_type: str | None, where: str, listing: Listing) -> list[Any]:
    kind = (content_type or "").split(";", 1)[0].strip().lower()
    try:
        raw = sse_messages(body) if kind == "text/event-stream" else [body] if body else []
    except UnicodeDecodeError:
        raw = []
        listing.findings.append(
            fail("tools.input.bad-frame", f"{where}: the event stream is not UTF-8", where)
        )
    out: list[Any] = []
    for data in raw:
        try:
            out.append(parse_bytes(data))
        except JsonError as exc:
            listing.findings.append(
                fail("tools.input.bad-frame", f"{where} is not strict JSON: {exc}", where)
            )
    return out


def read_http_transcript(doc: dict[str, JsonValue]) -> Listing:
    """The tool listing a recorded Streamable HTTP session shows, with its capture facts.

    Each exchange pairs one POSTed JSON-RPC request with its response (JSON or an event
    stream). ``protocol.versionHeader`` is derived from the request headers: true when every
    request after the handshake carried ``MCP-Protocol-Version`` equal to the negotiated
    version (in a 2026-07-28 session, which has no handshake, every request). Raises
    :class:`TranscriptError` when the document is not a transcript at all.
    """
    listing = Listing("http-transcript", transport="streamable-http")
    replies: list[tuple[str, dict[str, JsonValue] | None, dict[str, JsonValue]]] = []
    after_handshake: list[tuple[str, str | None]] = []
    for index, exchange in enumerate(_exchanges(doc)):
        where = f"exchange#{index}"
        if exchange["method"] != "POST":
            continue  # GET streams and DELETE carry no tools/list
        headers = exchange["request_headers"]
        requests = _messages(
            exchange["request_body"], _header(headers, "content-type"), where, listing
        )
        request = requests[0] if len(requests) == 1 and isinstance(requests[0], dict) else None
        if request is None:
            continue
        note_request(request, listing)
        if request.get("method") != "initialize":
            after_handshake.append((where, _header(headers, _VERSION_HEADER)))
        if "id" not in request:
            continue  # a notification: answered 202, nothing to pair
        content_type = _header(exchange["response_headers"], "content-type")
        for message in _messages(exchange["response_body"], content_type, where, listing):
            reply = isinstance(message, dict) and "method" not in message
            if reply and message.get("id") == request.get("id"):
                replies.append((where, request, message))
    collect_pages(replies, listing)
    if after_handshake and listing.negotiated is not None:
        missing = [w for w, v in after_handshake if v != listing.negotiated]
        listing.version_header = not missing
        if missing:
            listing.findings.append(
                info(
                    "tools.capture.no-version-header",
                    f"{len(missing)} request(s) after the handshake did not carry "
                    f"MCP-Protocol-Version: {listing.negotiated} (first at {missing[0]}); a "
                    "server may then assume 2025-03-26 and drop newer members",
                    missing[0],
                )
            )
    if not listing.pages:
        listing.findings.append(
            fail("tools.input.no-listing", "no tools/list result was found in the input")
        )
    return listing


# --- stdio launch transcripts --------------------------------------------------------------


def _launch(value: JsonValue, listing: Listing) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TranscriptError("`launch` is not an object")
    try:
        launch = js_value(value)
    except Unrepresentable as exc:
        raise TranscriptError(
            f"`launch` holds a value JavaScript cannot represent: {exc}"
        ) from None
    out: dict[str, Any] = {k: launch[k] for k in _LAUNCH_KEPT if k in launch}
    env = launch.get("env")
    if isinstance(env, dict):
        out["envNames"] = sorted(env)
        home = env.get("HOME")
        if isinstance(home, str):
            out["home"] = home
        listing.findings.append(
            info(
                "capture.env-values-withheld",
                "the transcript recorded the launch environment; only its names (and HOME, "
                "which definitions quote) are published",
                "launch/env",
            )
        )
    elif isinstance(launch.get("envNames"), list):
        out["envNames"] = sorted(str(n) for n in launch["envNames"])
    if isinstance(launch.get("home"), str):
        out.setdefault("home", launch["home"])
    return out


def read_stdio_transcript(doc: dict[str, JsonValue]) -> Listing:
    """The tool listing of a stdio launch transcript: the launch, then both byte streams.

    The streams are read as a captured stdio session (``c2s`` pairs requests with replies);
    the launch gives ``launch.args``, ``envNames`` and ``home`` (the recorded ``HOME``), and
    the members the recorder declared (``package``, ``resolvedVersion``, ``envValues``,
    ``network``). Environment values other than ``HOME`` are never kept.
    """
    s2c = _b64(doc.get("s2c_base64"), "/s2c_base64")
    c2s = _b64(doc["c2s_base64"], "/c2s_base64") if "c2s_base64" in doc else None
    listing = read_listing(s2c, c2s if c2s is not None else b"")
    listing.source_kind = "stdio-launch-transcript"
    if "launch" in doc:
        listing.launch = _launch(doc["launch"], listing)
    return listing


def read_any(data: Source, requests: Source | None = None) -> Listing:
    """A listing from any accepted input: a transcript document, or what :func:`read_listing` reads.

    A strict-JSON object whose ``format`` is one of the transcript formats, or a HAR 1.2 log,
    is a transcript (and takes no separate ``requests``); anything else goes to
    :func:`read_listing`. Raises :class:`TranscriptError` for a malformed transcript.
    """
    doc = one_value(data)  # a stream of frames is not parsed whole to say it is not one value
    log = doc.get("log") if isinstance(doc, dict) else None
    har = isinstance(log, dict) and "entries" in log
    if isinstance(doc, dict) and (doc.get("format") == HTTP_FORMAT or har):
        if requests is not None:
            raise TranscriptError("an HTTP transcript holds its requests; give no --requests")
        return read_http_transcript(doc)
    if isinstance(doc, dict) and doc.get("format") == STDIO_FORMAT:
        if requests is not None:
            raise TranscriptError("a stdio launch transcript holds both streams; no --requests")
        return read_stdio_transcript(doc)
    if isinstance(doc, dict) and isinstance(doc.get("format"), str):
        raise TranscriptError(f"unknown transcript format {doc['format']}")
    return read_listing(data, requests)
