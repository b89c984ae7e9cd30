"""Object A, the request frame the decision was made on, bound to the record in every way.

Object A is ``signed_artifacts.object_a`` (Object B v2), or, for an ALLOW signed under Object
B v1, the release frame less exactly its operation-id splice (seal-host@099be66 ``release.rs``
``frame_with_operation_id``). It must be one JSON-RPC 2.0 ``tools/call`` request read under
seal's wire guards (seal-host ``Host/JsonWire.lean``: no duplicate member at any depth, no
escaped or Unicode-equivalent keys); its framed subject and raw line are the record's
``framed_subject_*`` and ``request_sha256``; its canonical line (``authorization_decision.rs``
``canonical_request``) is ``canonical_request`` when carried and hashes to
``canonical_request_sha256`` either way; its tool, arguments and context members are the
record's.
"""

from __future__ import annotations

from sealverify._internal.kernel.receipt_inputs import ParsedLine
from sealverify._internal.primitives import identities
from sealverify._internal.primitives.request_members import CALL_PARAMS, ENVELOPE, unbound_members
from sealverify._internal.receipts.bindings.derived import (
    RECOVERED,
    Derivations,
    Doc,
    pointer,
)
from sealverify._internal.results.model import Check, Compared, Status, fail, fail_compared, passed
from sealverify._internal.wire import serdejson
from sealverify._internal.wire.framing import raw_line, sha256_hex
from sealverify._internal.wire.guards import escaped_keys, unicode_equivalent_keys
from sealverify._internal.wire.strictjson import JsonError, JsonNumber, JsonValue, uint_value

_FAIL = Status.FAIL

__all__ = ["object_a"]

_CONTEXT = ("_meta", "requestState", "inputResponses")


def object_a(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """Every binding between Object A (carried or recovered) and the record."""
    derived = derived or Derivations(doc)
    if "signed_artifacts" in doc:
        frame, error = derived.object_a()
        if frame is None:
            return [
                fail(
                    "binding.object-a",
                    error or "signed_artifacts must be an object",
                    pointer("signed_artifacts"),
                )
            ]
        source = "Object A"
    else:
        frame, source = derived.request_frame()
        if frame is None:
            return []  # no frame: release-frame-object-a says so where a release frame is
    checks = _identities(doc, frame, source, derived.view.frames.request)
    request = _request_checks(frame, derived.view.request, source)
    checks.extend(request)
    if any(c.status == _FAIL for c in request):
        return checks
    params = derived.view.request_params()
    assert params is not None  # a request that passed its shape checks has params
    call = _call(doc, params, source) if "request_parse_error" not in doc else None
    checks.extend(_canonical(doc, params, source, _record_line(derived, call), derived))
    if call is not None:
        checks.append(call)
    return checks


def _record_line(derived: Derivations, call: Check | None) -> str | None:
    """The record's host line where it is provably the host line of Object A's params too.

    A passing call check says the params' name is the record's tool and their arguments and
    context members are present exactly where the record's are and render to the same serde
    text; the host line reads only those members, through the same renderings (sorting and
    the second rendering of ``_meta`` depend on nothing else), so its text is the same. The
    record's line is computed once per receipt (``canonical_request`` asks for it first).
    """
    if call is None or call.status == _FAIL:
        return None
    return derived.canonical_line()[0]


def _identities(doc: Doc, frame: bytes, source: str, parsed: ParsedLine | None) -> list[Check]:
    """The framed subject and the raw line's hash (the reader's digest when it is of this line)."""
    checks: list[Check] = []
    line = raw_line(frame)
    mine = parsed is not None and parsed.raw == line
    # The reader's parse of this very line hashes it once for the frame and the line.
    digest = parsed.framed_sha256(frame) if parsed is not None and mine else sha256_hex(frame)
    length = len(frame)
    if (
        doc.get("framed_subject_sha256") == digest
        and uint_value(doc.get("framed_subject_length")) == length
    ):
        checks.append(
            passed(
                "binding.framed-subject",
                f"framed_subject_sha256/length = sha256/length of {source} ({length})",
                pointer("framed_subject_sha256"),
            )
        )
    else:
        checks.append(
            fail(
                "binding.framed-subject",
                f"framed_subject_sha256/length do not match {source} "
                f"(sha256 {digest}, {length} bytes)",
                pointer("framed_subject_sha256"),
            )
        )
    line_digest = parsed.sha256() if parsed is not None and mine else sha256_hex(line)
    if doc.get("request_sha256") == line_digest:
        checks.append(
            passed(
                "binding.request-sha256",
                f"request_sha256 = sha256(raw line of {source})",
                pointer("request_sha256"),
            )
        )
    else:
        checks.append(
            fail_compared(
                "binding.request-sha256",
                f"request_sha256 is not sha256(raw line of {source}) = {line_digest}",
                pointer("request_sha256"),
                Compared(
                    line_digest,
                    str(doc.get("request_sha256")),
                    f"sha256 of the raw line of {source}",
                    "request_sha256 in the receipt",
                ),
            )
        )
    return checks


def _equivalent_names(line: bytes, message: JsonValue) -> list[tuple[str, str]]:
    """:func:`unicode_equivalent_keys` of the line's message, proven empty when it must be.

    An ASCII line without ``\\u`` decodes to ASCII strings only (every other escape stands
    for an ASCII character); NFC leaves ASCII as it is, and the names of one object are
    distinct, so no two of them are equivalent (tests/perf/test_fast_paths_exact.py compares it
    with the plain call).
    """
    if line.isascii() and b"\\u" not in line:
        return []
    return unicode_equivalent_keys(message)


def _request_problems(frame: bytes, message: JsonValue | JsonError) -> list[str]:
    """What is wrong with the request ``frame``, whose raw line strictly parses to ``message``."""
    line = raw_line(frame)
    if isinstance(message, JsonError):  # duplicate members at any depth are refused here
        return [f"not strict JSON: {message}"]
    problems: list[str] = []
    escaped = escaped_keys(line.decode("utf-8"))
    if escaped:
        problems.append("member names written with an escape: " + ", ".join(escaped))
    equivalent = _equivalent_names(line, message)
    if equivalent:
        problems.append(
            "canonically equivalent member names: "
            + ", ".join(f"{a!r}/{b!r}" for a, b in equivalent)
        )
    if not isinstance(message, dict):
        return [*problems, "not a JSON object"]
    # The members diff and frame name too (request_members): no identity binds any other.
    unbound = unbound_members({**message, "method": "tools/call"})
    if set(message) != ENVELOPE:
        extra = [p for p in unbound if not p.startswith("/params/")]
        problems.append("members must be exactly jsonrpc, id, method, params" + _named(extra))
    if message.get("jsonrpc") != "2.0":
        problems.append('jsonrpc must be "2.0"')
    if message.get("method") != "tools/call":
        problems.append('method must be "tools/call"')
    request_id = message.get("id")
    if not (
        isinstance(request_id, str)
        or (isinstance(request_id, JsonNumber) and request_id.as_int() is not None)
    ):
        problems.append("id must be a string or an integer")
    params = message.get("params")
    if not isinstance(params, dict):
        return [*problems, "params must be an object"]
    if not set(params) <= CALL_PARAMS or not {"name", "arguments"} <= set(params):
        extra = [p for p in unbound if p.startswith("/params/")]
        problems.append(
            "params must hold name, arguments and only _meta, requestState, inputResponses"
            + _named(extra)
        )
    if not isinstance(params.get("name"), str):
        problems.append("params.name must be a string")
    if not isinstance(params.get("arguments"), dict):
        problems.append("params.arguments must be an object")
    return problems


def _named(pointers: list[str]) -> str:
    return f" (no seal identity binds {', '.join(pointers)})" if pointers else ""


def _request_checks(frame: bytes, message: JsonValue | JsonError, source: str) -> list[Check]:
    where = pointer("signed_artifacts", "object_a") if source != RECOVERED else _RELEASE
    problems = _request_problems(frame, message)
    if problems:
        return [
            fail(
                "binding.object-a-request",
                f"{source} is not one JSON-RPC 2.0 tools/call request: {'; '.join(problems)}",
                where,
            )
        ]
    return [
        passed(
            "binding.object-a-request",
            f"{source} is one JSON-RPC 2.0 tools/call request under seal's wire guards",
            where,
        )
    ]


_RELEASE = pointer("release_frame", "base64")


def _host_line(params: dict[str, JsonValue]) -> str | None:
    try:
        return identities.canonical_request(params)
    except (ValueError, serdejson.NumberNotRepresentable):
        return None


def _canonical(
    doc: Doc, params: dict[str, JsonValue], source: str, known: str | None, derived: Derivations
) -> list[Check]:
    checks: list[Check] = []
    line = known if known is not None else _host_line(params)
    if "canonical_request" in doc:
        if line is not None and line == doc["canonical_request"]:
            checks.append(
                passed(
                    "binding.canonical-request-frame",
                    f"canonical_request is the host line of {source}'s params",
                    pointer("canonical_request"),
                )
            )
        else:
            checks.append(
                fail(
                    "binding.canonical-request-frame",
                    f"canonical_request is not the host line of {source}'s params",
                    pointer("canonical_request"),
                    expected=line,
                )
            )
    if "canonical_request_sha256" in doc:
        digest = derived.line_sha256(line) if line is not None else None
        if digest is not None and doc["canonical_request_sha256"] == digest:
            checks.append(
                passed(
                    "binding.canonical-request-sha256-frame",
                    f"canonical_request_sha256 = sha256(host line of {source}'s params)",
                    pointer("canonical_request_sha256"),
                )
            )
        else:
            checks.append(
                fail(
                    "binding.canonical-request-sha256-frame",
                    f"canonical_request_sha256 is not sha256 of the host line of {source}'s "
                    f"params ({digest})",
                    pointer("canonical_request_sha256"),
                )
            )
    return checks


def _same(left: JsonValue, right: JsonValue) -> bool:
    """Equal as serde renders them: the record holds the wire values re-rendered by serde."""
    try:
        return serdejson.compact(left) == serdejson.compact(right)
    except serdejson.NumberNotRepresentable:
        return False


def _compact_text(value: JsonValue) -> str | None:
    try:
        return serdejson.compact(value)
    except serdejson.NumberNotRepresentable:
        return None


def _call(doc: Doc, params: dict[str, JsonValue], source: str) -> Check:
    problems: list[str] = []
    if params.get("name") != doc.get("tool"):
        problems.append(f"its tool {params.get('name')!r} is not the receipt's {doc.get('tool')!r}")
    if not _same(params.get("arguments"), doc.get("arguments")):
        problems.append("its arguments are not the receipt's")
    for member in _CONTEXT:
        if (member in params) != (member in doc) or (
            member in params and not _same(params[member], doc[member])
        ):
            problems.append(f"its {member} is not the receipt's")
    where = pointer("tool")
    if problems:
        reason = f"{source}: " + "; ".join(problems)
        shown = [_compact_text(v) for v in (params.get("arguments"), doc.get("arguments"))]
        if shown[0] != shown[1] and None not in shown:  # what the html report sets side by side
            compared = Compared(
                str(shown[0]), str(shown[1]), f"arguments in {source}", "arguments in the receipt"
            )
            return fail_compared("binding.object-a-call", reason, where, compared)
        return fail("binding.object-a-call", reason, where)
    return passed(
        "binding.object-a-call",
        f"{source} calls the receipt's tool with its arguments and context members",
        where,
    )
