"""Tool-definition digests under named profiles, over a tools/list result or a stdio transcript."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

import rfc8785

from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, fail, info, not_evaluated
from sealverify._internal.results.repeats import Findings
from sealverify._internal.wire.framing import (
    WHITESPACE,
    FrameBytes,
    Source,
    read_lines,
)
from sealverify._internal.wire.spelling import pointer
from sealverify._internal.wire.strictjson import (
    DEFAULT_LIMITS,
    JsonError,
    JsonNumber,
    JsonValue,
    parse_bytes,
)
from sealverify.errors import InputError

__all__ = [
    "PROFILES",
    "Listing",
    "Page",
    "Profile",
    "ToolDigest",
    "Unrepresentable",
    "collect_pages",
    "digest_tool",
    "js_value",
    "note_request",
    "one_value",
    "read_listing",
    "rugsnare_canonical",
    "toolset_digest",
]


class Unrepresentable(InputError, ValueError):
    """A value the profile's canonical form cannot spell the way its upstream would."""


# --- numbers -------------------------------------------------------------------------------
# Both upstream digests are defined on JavaScript values: heldfast's JCS form pins ECMAScript
# number text (heldfast@bcd56c7 src/heldfast/digest.py, docs/LOCK.md), and rugsnare runs
# JSON.parse then JSON.stringify (rugsnare@47f5451 product/src/hash.js). So a received number
# lexeme becomes the IEEE double JSON.parse would make of it; an integer beyond 2**53 is hashed
# as that double (heldfast's documented choice), a lexeme beyond the largest double is refused.
_SAFE = 2**53 - 1


def js_number(lexeme: str) -> int | float:
    """The value JavaScript's ``JSON.parse`` gives a number lexeme (int when exactly integral)."""
    value = float(lexeme)
    if value in (float("inf"), float("-inf")):
        raise Unrepresentable(f"number {lexeme} is beyond the largest double")
    if value.is_integer() and abs(value) <= _SAFE:
        return int(value)
    return value


def check_numbers(value: JsonValue) -> None:
    """Raise what :func:`js_value` raises for ``value`` (its first bad number), copying nothing."""
    if isinstance(value, JsonNumber):
        js_number(value.lexeme)
    elif isinstance(value, list):
        for item in value:
            check_numbers(item)
    elif isinstance(value, dict):
        for item in value.values():
            check_numbers(item)


def js_value(value: JsonValue) -> Any:
    """A strict-parsed value with every :class:`JsonNumber` replaced by its JavaScript number."""
    if isinstance(value, JsonNumber):
        return js_number(value.lexeme)
    if isinstance(value, list):
        return [js_value(v) for v in value]
    if isinstance(value, dict):
        return {k: js_value(v) for k, v in value.items()}
    return value


# --- profiles ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Profile:
    """A named digest profile: fields hashed, missing vs empty, canonical form and hash."""

    name: str
    id: str
    fields: str
    missing: str
    canonical: str
    hash: str
    body: Callable[[Any], dict[str, Any]]
    serialize: Callable[[Any], bytes]
    extra: Callable[[Any], dict[str, str]] = field(default=lambda tool: {})

    def describe(self) -> dict[str, str]:
        return {
            "id": self.id,
            "fields": self.fields,
            "missing": self.missing,
            "canonical": self.canonical,
            "hash": self.hash,
        }


def _text_or_empty(tool: dict[str, Any], key: str) -> str:
    # heldfast writes `str(tool.get(key) or "")`: a missing, null or other falsy value is "".
    # Python's str() of a non-string is not reproduced here; such a tool is not evaluated.
    value = tool.get(key)
    if not value:
        return ""
    if not isinstance(value, str):
        raise Unrepresentable(
            f"member {key!r} is a {type(value).__name__}; heldfast would hash Python's str() "
            "of it, which this profile does not reproduce"
        )
    return value


def _heldfast_body(tool: Any) -> dict[str, Any]:
    if not isinstance(tool, dict):
        raise Unrepresentable("tool entry is not an object")
    schema = tool.get("input_schema")
    if schema is None:
        schema = tool.get("inputSchema")
    annotations = tool.get("annotations")
    body: dict[str, Any] = {
        "name": _text_or_empty(tool, "name"),
        "title": _text_or_empty(tool, "title"),
        "description": _text_or_empty(tool, "description"),
        "input_schema": schema if isinstance(schema, dict) else {},
        "annotations": annotations if isinstance(annotations, dict) else {},
    }
    output = tool.get("output_schema")
    if output is None:
        output = tool.get("outputSchema")
    if isinstance(output, dict) and output:
        body["output_schema"] = output
    icons = tool.get("icons")
    if isinstance(icons, list) and icons:
        body["icons"] = icons
    return body


def _jcs(value: Any) -> bytes:
    try:
        return bytes(rfc8785.dumps(value))
    except (rfc8785.CanonicalizationError, RecursionError) as exc:  # its float/int/type refusals
        raise Unrepresentable(f"RFC 8785 refuses the value: {exc}") from None


def _rugsnare_body(tool: Any) -> dict[str, Any]:
    # hash.js: `tool?.name ?? ''` etc.; `??` maps both undefined and null, keeps every other
    # value as it is (a number stays a number).
    obj = tool if isinstance(tool, dict) else {}
    name = obj.get("name")
    description = obj.get("description")
    schema = obj.get("inputSchema")
    return {
        "name": "" if name is None else name,
        "description": "" if description is None else description,
        "inputSchema": {} if schema is None else schema,
    }


_INDEX_KEY = re.compile(r"0|[1-9][0-9]*")


def _is_array_index(key: str) -> bool:
    return len(key) <= 10 and bool(_INDEX_KEY.fullmatch(key)) and int(key) <= 2**32 - 2


def _js_key_order(keys: list[str]) -> list[str]:
    # rugsnare's `stable()` inserts keys in `Object.keys(v).sort()` order (UTF-16 code units),
    # but JSON.stringify then walks own properties in ECMAScript order: array-index keys first,
    # ascending as numbers, then the other keys in insertion order
    # (ECMA-262 OrdinaryOwnPropertyKeys).
    plain = sorted(keys, key=lambda k: k.encode("utf-16-be"))
    index = sorted((k for k in plain if _is_array_index(k)), key=int)
    return index + [k for k in plain if not _is_array_index(k)]


def rugsnare_canonical(value: Any) -> bytes:
    """The bytes rugsnare hashes: ``JSON.stringify(stable(value))`` in UTF-8.

    Key order is :func:`_js_key_order`; a ``__proto__`` member is dropped, because ``out[key] =``
    assignment in ``stable()`` hits the prototype setter instead of creating an own property.
    Scalars are spelled as JSON.stringify spells them, which is the RFC 8785 spelling.
    """
    if isinstance(value, list):
        return b"[" + b",".join(rugsnare_canonical(v) for v in value) + b"]"
    if isinstance(value, dict):
        parts = [
            _jcs(k) + b":" + rugsnare_canonical(value[k])
            for k in _js_key_order(list(value))
            if k != "__proto__"
        ]
        return b"{" + b",".join(parts) + b"}"
    return _jcs(value)


def _rugsnare_extra(tool: Any) -> dict[str, str]:
    obj = tool if isinstance(tool, dict) else {}
    name = obj.get("name")
    schema = obj.get("inputSchema")
    structural = {
        "name": "" if name is None else name,
        "inputSchema": {} if schema is None else schema,
    }
    out = {"schemaHash": hashlib.sha256(rugsnare_canonical(structural)).hexdigest()}
    description = obj.get("description")
    if description is None:
        description = ""
    # proseHash feeds the raw string to Node's hash.update(): UTF-8 of the text. A non-string
    # description makes hash.update() throw, so no proseHash exists for it.
    if isinstance(description, str):
        out["proseHash"] = hashlib.sha256(description.encode("utf-8")).hexdigest()
    return out


HELDFAST = Profile(
    name="heldfast",
    id="heldfast-jcs-v2",
    fields=(
        "name, title, description, input_schema (wire inputSchema), annotations, "
        "output_schema (wire outputSchema), icons"
    ),
    missing=(
        'name/title/description missing or null -> ""; input_schema and annotations missing '
        "or not an object -> {}; output_schema omitted when missing or {}; icons omitted "
        "when missing or []"
    ),
    canonical="RFC 8785 JCS (rfc8785 package), UTF-8",
    hash="sha256, lowercase hex",
    body=_heldfast_body,
    serialize=_jcs,
)

RUGSNARE = Profile(
    name="rugsnare",
    id="rugsnare-v1",
    fields="name, description, inputSchema (annotations and outputSchema are not hashed)",
    missing=(
        'name/description missing or null -> ""; inputSchema missing or null -> {}; '
        "any other value kept as it is"
    ),
    canonical=(
        "keys sorted by UTF-16 code unit with array-index keys first (JavaScript own-property "
        "order), __proto__ dropped, compact JSON.stringify, UTF-8"
    ),
    hash="sha256, lowercase hex; extra schemaHash over {name,inputSchema}, proseHash over the "
    "raw description text",
    body=_rugsnare_body,
    serialize=rugsnare_canonical,
    extra=_rugsnare_extra,
)

PROFILES: dict[str, Profile] = {p.name: p for p in (HELDFAST, RUGSNARE)}


@dataclass(frozen=True, slots=True)
class ToolDigest:
    """One tool's digest under one profile, or the reason it could not be computed."""

    name: str
    location: str
    profile: str
    digest: str | None
    canonical: bytes | None = None
    extra: dict[str, str] = field(default_factory=dict)
    reason: str = ""


def digest_tool(tool: JsonValue, profile: Profile, location: str = "") -> ToolDigest:
    """Digest one tool object (as strictly parsed) under ``profile``; never raises."""
    name = tool.get("name") if isinstance(tool, dict) else None
    shown = name if isinstance(name, str) else f"(tool at {location or '?'})"
    try:
        value = js_value(tool)
        canonical = profile.serialize(profile.body(value))
        extra = profile.extra(value)
    except Unrepresentable as exc:
        return ToolDigest(shown, location, profile.id, None, reason=str(exc))
    return ToolDigest(
        shown, location, profile.id, hashlib.sha256(canonical).hexdigest(), canonical, extra
    )


def toolset_digest(digests: list[ToolDigest], profile: Profile) -> str | None:
    """The sealverify tool-set digest: SHA-256 of the profile's canonical form of name -> digest.

    Neither upstream defines a tool-set digest; this one is sealverify's own
    (``<profile-id>+set-v1``). None when a tool has no digest or two tools share a name.
    """
    names = [d.name for d in digests]
    if any(d.digest is None for d in digests) or len(set(names)) != len(names):
        return None
    table = {d.name: d.digest for d in digests}
    return hashlib.sha256(profile.serialize({"profile": profile.id, "tools": table})).hexdigest()


# --- listings ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Page:
    """One tools/list page as read: where it sat and its nextCursor (None when absent)."""

    location: str
    tools: list[tuple[str, JsonValue]]
    next_cursor: str | None
    request_cursor: str | None = None


@dataclass(slots=True)
class Listing:
    """The tools of one reading, the pages followed, and what the bytes say of the capture."""

    source_kind: str
    pages: list[Page] = field(default_factory=list)
    sequences: int = 0
    # Flat memory: an input repeating one mistake keeps the first few of it, counted.
    findings: list[Check] = field(default_factory=Findings)
    transport: str | None = None
    requested: str | None = None
    negotiated: str | None = None
    client_capabilities: list[str] | None = None
    declared_capture: dict[str, Any] | None = None
    version_header: bool | None = None  # Streamable HTTP: every request after the handshake
    launch: dict[str, Any] | None = None  # a stdio launch transcript's recorded launch

    @property
    def complete(self) -> bool:
        return (
            bool(self.pages)
            and self.pages[-1].next_cursor is None
            and not any(c.id == ids.TOOLS_PAGES_CURSOR_MISMATCH for c in self.findings)
        )

    @property
    def tools(self) -> list[tuple[str, JsonValue]]:
        return [t for page in self.pages for t in page.tools]


def _result_of(value: JsonValue) -> dict[str, JsonValue] | None:
    if isinstance(value, dict):
        result = value.get("result")
        if isinstance(result, dict) and isinstance(result.get("tools"), list):
            return result
        if isinstance(value.get("tools"), list):
            return value
    return None


def _page(result: dict[str, JsonValue], base: str, request_cursor: str | None = None) -> Page:
    tools = result["tools"]
    assert isinstance(tools, list)
    cursor = result.get("nextCursor")
    return Page(
        base,
        [(f"{base}{pointer('tools', i)}", t) for i, t in enumerate(tools)],
        cursor if isinstance(cursor, str) else None,
        request_cursor,
    )


def _from_document(doc: JsonValue, listing: Listing) -> None:
    items: Iterable[tuple[str, JsonValue]]  # lazily: one pointer string at a time
    items = ((pointer(i), v) for i, v in enumerate(doc)) if isinstance(doc, list) else [("", doc)]
    for base, item in items:
        result = _result_of(item)
        if result is None:
            listing.findings.append(
                fail(
                    "tools.input.not-a-listing",
                    "not a tools/list result (no `tools` array) nor a JSON-RPC response with one",
                    base or "/",
                )
            )
            continue
        prefix = base + ("/result" if isinstance(item, dict) and "result" in item else "")
        if listing.pages and listing.pages[-1].next_cursor is None:
            listing.sequences += 1
            listing.pages = []
        listing.pages.append(_page(result, prefix))
        capture = item.get("capture") if isinstance(item, dict) else None
        if isinstance(capture, dict):
            try:
                listing.declared_capture = js_value(capture)
            except Unrepresentable as exc:
                listing.findings.append(
                    fail("tools.input.bad-capture", f"declared capture unreadable: {exc}", base)
                )
    listing.sequences += 1 if listing.pages else 0


def _frame_json(frame: FrameBytes, index: int, listing: Listing, side: str) -> JsonValue | None:
    line = frame.line
    if not line.strip():
        return None
    try:
        return parse_bytes(line)
    except JsonError as exc:
        listing.findings.append(
            fail(
                "tools.input.bad-frame",
                f"{side} frame {index} is not strict JSON: {exc}",
                f"{side}#{index}",
            )
        )
        return None


def _version_in(params: JsonValue) -> str | None:
    if not isinstance(params, dict):
        return None
    meta = params.get("_meta")
    if isinstance(meta, dict):
        version = meta.get("io.modelcontextprotocol/protocolVersion")
        if isinstance(version, str):
            return version
    return None


def note_request(msg: dict[str, JsonValue], listing: Listing) -> None:
    """What a client request shows of the capture: the version asked for, its capabilities.

    ``initialize`` names both (a handshake-era session); in a 2026-07-28 session, which has no
    handshake, the first request naming a version in its ``_meta`` does.
    """
    params = msg.get("params")
    if msg.get("method") == "initialize" and isinstance(params, dict):
        version = params.get("protocolVersion")
        caps = params.get("capabilities")
        if isinstance(version, str):
            listing.requested = version
        if isinstance(caps, dict):
            listing.client_capabilities = sorted(caps)
    elif listing.requested is None and _version_in(params) is not None:
        listing.requested = _version_in(params)
        assert isinstance(params, dict)
        meta = params.get("_meta")
        caps = (
            meta.get("io.modelcontextprotocol/clientCapabilities")
            if isinstance(meta, dict)
            else None
        )
        if isinstance(caps, dict):
            listing.client_capabilities = sorted(caps)


def collect_pages(
    replies: Iterable[tuple[str, dict[str, JsonValue] | None, dict[str, JsonValue]]],
    listing: Listing,
) -> None:
    """Follow the tools/list pages among server replies, each paired with its request or None.

    With requests, a page's request must carry the previous page's ``nextCursor``; without,
    a page continues the listing while the one before it returned a ``nextCursor``. The
    negotiated version is the ``initialize`` result's, else (2026-07-28) the version the
    answered ``tools/list`` request named. The last listing is kept.
    """
    sequences = 0
    current: list[Page] = []
    for where, request, msg in replies:
        method = request.get("method") if request else None
        result = msg.get("result")
        if (
            isinstance(result, dict)
            and isinstance(result.get("protocolVersion"), str)
            and (method in (None, "initialize") and "tools" not in result)
        ):
            listing.negotiated = str(result["protocolVersion"])
        is_list = method == "tools/list" or (method is None and _result_of(msg) is not None)
        if not is_list:
            continue
        params = request.get("params") if request else None
        cursor = params.get("cursor") if isinstance(params, dict) else None
        cursor = cursor if isinstance(cursor, str) else None
        if request is not None and "result" in msg and listing.negotiated is None:
            version = _version_in(params)
            if version is not None:
                listing.negotiated = version
        page_result = _result_of(msg)
        if page_result is None:
            listing.findings.append(
                fail(
                    "tools.pages.error",
                    f"the tools/list response at {where} carries no tools (an error or a "
                    "malformed result); the list is incomplete",
                    where,
                )
            )
            current.append(Page(where, [], "(error)", cursor))
            continue
        starts_new = (
            (not current or current[-1].next_cursor is None)
            if request is None
            else (cursor is None)
        )
        if starts_new:
            sequences += 1
            current = []
        elif request is not None and current and cursor != current[-1].next_cursor:
            listing.findings.append(
                fail(
                    "tools.pages.cursor-mismatch",
                    f"the tools/list request answered at {where} did not carry the previous "
                    "page's nextCursor; the pages do not form one listing",
                    where,
                )
            )
        current.append(_page(page_result, f"{where}/result", cursor))
    listing.pages = current
    listing.sequences = sequences


# What a reply needs of its request: a tools/list request's cursor and version, an initialize
# request's method. Of any other request only its method is kept (a reply to it is no page), so
# the table holds no request's body but these two methods'.
_PAIRED = ("initialize", "tools/list")


def _requests(c2s: Source, listing: Listing) -> dict[str, dict[str, JsonValue]]:
    """The client's requests by id, read a frame at a time (one line held, never the stream)."""
    requests: dict[str, dict[str, JsonValue]] = {}
    others: dict[str, dict[str, JsonValue]] = {}  # one stub per method, shared
    with closing(read_lines(c2s)) as frames:
        for i, frame in enumerate(frames):
            msg = _frame_json(frame, i, listing, "c2s")
            if isinstance(msg, dict) and isinstance(msg.get("method"), str) and "id" in msg:
                method = msg["method"]
                assert isinstance(method, str)
                if method in _PAIRED:
                    requests[repr(msg["id"])] = msg
                else:
                    requests[repr(msg["id"])] = others.setdefault(method, {"method": method})
                note_request(msg, listing)
    return requests


def _replies(
    s2c: Source, requests: dict[str, dict[str, JsonValue]], listing: Listing
) -> Iterator[tuple[str, dict[str, JsonValue] | None, dict[str, JsonValue]]]:
    """The server's replies, each with its request, read a frame at a time as pages are followed."""
    with closing(read_lines(s2c)) as frames:
        for i, frame in enumerate(frames):
            msg = _frame_json(frame, i, listing, "s2c")
            if not isinstance(msg, dict) or "method" in msg:
                continue
            request = requests.get(repr(msg.get("id"))) if "id" in msg else None
            yield f"s2c#{i}", request, msg


def _from_transcript(s2c: Source, c2s: Source | None, listing: Listing) -> None:
    listing.transport = "stdio"
    requests = _requests(c2s, listing) if c2s is not None else {}
    collect_pages(_replies(s2c, requests, listing), listing)


def read_listing(data: Source, requests: Source | None = None) -> Listing:
    """Read a tools/list result, JSON-RPC response, array of pages, or a stdio transcript.

    A document that parses as one strict JSON value is a result (or pages in order); anything
    else is read as a captured stdio stream of server-to-client frames. ``requests`` is the
    client-to-server stream of the same session, used to pair responses with their requests,
    check that each page's request carried the previous ``nextCursor``, and learn the versions
    and capabilities the client sent. When several listings occur, the last one is digested.
    Either may be an opener (:data:`~sealverify._internal.wire.framing.Source`): a stream is
    then read a frame at a time, each frame held only while it is read.
    """
    doc = one_value(data)
    if doc is not None and requests is None and _looks_like_document(doc):
        listing = Listing("json")
        _from_document(doc, listing)
    else:
        listing = Listing("stdio-transcript")
        _from_transcript(data, requests, listing)
    if not listing.pages:
        listing.findings.append(
            fail("tools.input.no-listing", "no tools/list result was found in the input")
        )
    return listing


def one_value(data: Source) -> JsonValue | None:
    """``data`` as one strict JSON value, or None when it is not one.

    A transcript's first line is a value of its own with more after it, so the whole is not
    one value: said without parsing it whole (which took 3.5 bytes a byte to find the extra
    data after the first line of a long transcript). An opener's input is read a line at a
    time for that, and held whole only when it may be one document (no more than
    ``parse_bytes`` takes: past that it is no value).
    """
    if not isinstance(data, bytes):
        return _one_value_streamed(data)
    end = data.find(b"\n")
    if 0 <= end < len(data) - 1 and data[end:].strip(b" \t\r\n"):
        try:
            parse_bytes(data[:end])
        except JsonError:
            pass
        else:
            return None  # a value, then more than whitespace: extra data
    try:
        return parse_bytes(data)
    except JsonError:
        return None


def _one_value_streamed(data: Source) -> JsonValue | None:
    """:func:`one_value` of an opener's input: its first line, then (maybe) the whole."""
    with closing(read_lines(data)) as frames:
        first = next(frames, None)
        # a line ending in LF, then more than whitespace: is the line a value of its own?
        more = first is not None and first.terminator != "none"
        if more and any(frame.data.strip(WHITESPACE) for frame in frames):
            assert first is not None
            try:
                parse_bytes(first.data[:-1])  # the line before its LF, as sliced above
            except JsonError:
                pass
            else:
                return None  # a value, then more than whitespace: extra data
    return _held_value(data)


def _held_value(data: Source) -> JsonValue | None:
    """``parse_bytes`` of an opener's whole input, holding only what can be one value.

    Leading blank lines are not held. A value that opens with ``{`` or ``[`` may span lines,
    so it is held (at most the size ``parse_bytes`` takes: past it, it is no value); any
    other value (a scalar, a string, which strict JSON never breaks with a LF) ends at its
    line, so more than whitespace after that line is no value, said without holding it.
    """
    limit = DEFAULT_LIMITS.max_document_bytes  # parse_bytes refuses a longer document
    held: list[bytes] = []
    size, spans = 0, False
    with closing(read_lines(data)) as frames:
        for frame in frames:
            size += frame.length
            if size > limit:
                return None  # json.too-large: not one value
            if not held:
                if frame.data.strip(WHITESPACE):  # the first line that is not blank
                    held.append(frame.data)
                    spans = frame.data.lstrip(WHITESPACE)[:1] in (b"{", b"[")
            elif spans:
                held.append(frame.data)
            elif frame.data.strip(WHITESPACE):
                return None  # a value that ends at its line, then more: trailing content
    try:
        return parse_bytes(b"".join(held))
    except JsonError:
        return None


def _looks_like_document(doc: JsonValue) -> bool:
    if isinstance(doc, list):
        return True
    return isinstance(doc, dict) and (_result_of(doc) is not None or "method" not in doc)


def listing_findings(listing: Listing) -> list[Check]:
    """Findings about how the list was read: pages, completeness, repeated listings."""
    found = listing.findings
    out = found.checks() if isinstance(found, Findings) else list(found)
    if listing.pages and not listing.complete:
        out.append(
            fail(
                "tools.pages.incomplete",
                f"the listing stops after {len(listing.pages)} page(s) with a nextCursor still "
                "to follow (or a broken page); its digest carries complete=false and must not "
                "be compared with a complete one",
                listing.pages[-1].location,
            )
        )
    if listing.sequences > 1:
        out.append(
            info(
                "tools.pages.sequences",
                f"the input holds {listing.sequences} separate listings; the last is digested",
            )
        )
    # One count per name (a count of the list per tool took quadratic time on a large listing).
    counts = Counter(n for n in (_name(t) for _, t in listing.tools) if n is not None)
    dups = sorted(n for n, times in counts.items() if times > 1)
    for name in dups:
        out.append(
            fail(
                "tools.list.duplicate-name",
                f"tool name {name!r} occurs more than once; no tool-set digest is computed",
            )
        )
    return out


def _name(tool: JsonValue) -> str | None:
    name = tool.get("name") if isinstance(tool, dict) else None
    return name if isinstance(name, str) else None


def unevaluated(d: ToolDigest) -> Check:
    """The named state for a tool the profile cannot digest."""
    return not_evaluated(
        "tools.digest.not-representable",
        f"no {d.profile} digest: {d.reason}",
        d.location,
    )
