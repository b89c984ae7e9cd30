"""Every binding a seal decision receipt claims, recomputed from its bytes, never trusted.

One function per binding; each returns the ``Check`` values it establishes, with stable ids
(``binding.*``, ``signature.*``, ``legacy.*``), or an empty list when the binding does not
apply to this receipt. Byte rules come from the core (serdejson, leanjson, identities,
framing); the upstream sources each binding mirrors are cited in docs/verify.md.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Sequence
from typing import Protocol

from sealverify import approvals, identities, objectb, receipts, serdejson
from sealverify.framing import raw_line, sha256_hex
from sealverify.leanjson import compress, lean_number
from sealverify.leanjson import number_text as lean_number_text
from sealverify.netstring import hash_parts
from sealverify.receipts import hex64, is_uint
from sealverify.releaseframe import splice_operation_id
from sealverify.report import Check, fail, info, not_evaluated, passed
from sealverify.signatures import (
    b64_std_decode_canonical,
    b64url_nopad_decode,
    ed25519_verify,
    hex_key,
    key_id,
    s_below_order,
)
from sealverify.strictjson import (
    DEFAULT_LIMITS,
    JsonError,
    JsonNumber,
    JsonValue,
    parse_bytes,
    parse_text,
    uint_value,
)

__all__ = [
    "ALL_BINDINGS",
    "CANNOT_RECONSTRUCT",
    "V3_BINDINGS",
    "Binding",
    "Derived",
    "approval_expiry",
    "approval_policy_hash",
    "approval_statement",
    "args_hash",
    "audit",
    "b64_decode_cached",
    "canonical_request",
    "config_binding",
    "config_signature",
    "effect_view",
    "frame_params",
    "grants",
    "guard_target",
    "legacy_meta",
    "object_a",
    "object_b_signature",
    "parse_frame_cached",
    "release",
    "release_companions",
    "verdict_reason",
]

Doc = dict[str, JsonValue]
CANNOT_RECONSTRUCT = "cannot reconstruct signed bytes"
_VERDICT_MAP = {"allow": "ALLOW", "deny": "BLOCK"}
_ROUTE_MAP = {"forward": "ALLOW", "passthrough": "ALLOW", "block": "BLOCK", "error": "ERROR"}
_SIGNATURE_MEMBERS = {"algorithm", "domain", "encoding", "key_id", "public_key", "value"}

# Every location a binding reports is one of a few literal member paths, asked for some thirty
# times per receipt. ``receipts.pointer`` is pure in its arguments, so rendering each path once
# is exact; ``typed`` keeps ``1`` and ``True`` apart. Bounded: the paths are a fixed set.
pointer = functools.lru_cache(maxsize=128, typed=True)(receipts.pointer)

# The base64 texts a receipt carries (Object A above all) are decoded by several bindings of
# the same receipt. Decoding is pure in the text, so a small cache returns the identical
# bytes; a refusal raises afresh each time (lru_cache stores no exception), same message.
b64_decode_cached = functools.lru_cache(maxsize=8)(b64_std_decode_canonical)

# Object A is parsed by several bindings of the same receipt: its params for the canonical
# line, its arguments for the guard target, its body for the release splice. A strict parse
# is pure in the bytes, so a small cache hands each of them the one parse. The tree is shared,
# so every user only reads it (tests/test_bindings_perf.py runs all bindings and checks the
# cached trees are unchanged). A refusal raises afresh each time (no exception is cached).
parse_frame_cached = functools.lru_cache(maxsize=4)(parse_bytes)


def _sha(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def _compact(value: JsonValue) -> str:
    """Producer (serde) bytes of a value taken from the receipt; numbers must already be exact."""
    return serdejson.compact(value, exact=True)


def _mediated_parsed(doc: Doc) -> bool:
    return doc.get("bypass") is False and "request_parse_error" not in doc


class Derived:
    """What several bindings of one receipt derive from it, each worked out at most once.

    verify makes one per receipt and hands it to every binding; a binding called without one
    makes its own, so each binding stays a function of the document alone. Every member is a
    pure function of the document, which no binding changes, so the first result is the one
    each later binding would have computed. An exception other than the refusal a member
    records is not kept: the next caller computes afresh and raises it again.
    """

    __slots__ = ("_config", "_doc", "_line", "_object_a", "_policy")

    def __init__(self, doc: Doc) -> None:
        self._doc = doc
        self._line: tuple[str | None, ValueError | None] | None = None
        self._config: tuple[str | None, str] | None = None
        self._policy: tuple[str | None, str | None] | None = None
        self._object_a: tuple[bytes | None, str | None] | None = None

    def canonical_line(self) -> tuple[str | None, ValueError | None]:
        """The host line of the record's own params, or None and the refusal.

        Callers check first that ``tool`` is a string and ``arguments`` an object.
        """
        if self._line is None:
            try:
                self._line = identities.canonical_request(_request_params(self._doc)), None
            except ValueError as exc:  # NumberNotRepresentable is one
                self._line = None, exc
        return self._line

    def config_text(self) -> tuple[str | None, str]:
        """Compact ``kernel_config`` (``null`` when absent), or None and why it cannot be."""
        if self._config is None:
            try:
                self._config = _compact(self._doc.get("kernel_config")), ""
            except serdejson.NumberNotRepresentable as exc:
                self._config = None, f"{CANNOT_RECONSTRUCT}: {exc}"
        return self._config

    def policy_hash(self) -> tuple[str | None, str | None]:
        """``sha256(compact kernel_config)``, or None and why there is none."""
        if self._policy is None:
            if self._doc.get("kernel_config") is None:
                self._policy = None, "no kernel_config"
            else:
                text, error = self.config_text()
                self._policy = (None, error) if text is None else (_sha(text), None)
        return self._policy

    def object_a(self) -> tuple[bytes | None, str | None]:
        """Object A's bytes, or None and what is wrong with ``signed_artifacts`` (if any)."""
        if self._object_a is None:
            self._object_a = _object_a_bytes(self._doc)
        return self._object_a


class Binding(Protocol):
    """A binding: its checks for a receipt (``[]`` where it does not apply).

    ``derived`` is the receipt's :class:`Derived`, shared with its other bindings; a binding
    that derives nothing another one needs ignores it, so all are called alike.
    """

    __name__: str

    def __call__(self, doc: Doc, derived: Derived | None = None, /) -> list[Check]: ...


# --- request identity ---------------------------------------------------------------------


def args_hash(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """``args_hash == sha256(serde_compact(arguments))`` in stored member order (v2/v3)."""
    if "args_hash" not in doc or not isinstance(doc.get("arguments"), dict):
        return []
    try:
        expected = _sha(_compact(doc["arguments"]))
    except serdejson.NumberNotRepresentable as exc:
        return [fail("binding.args-hash", f"{CANNOT_RECONSTRUCT}: {exc}", pointer("arguments"))]
    if doc["args_hash"] != expected:
        return [
            fail(
                "binding.args-hash",
                f"args_hash is not sha256(compact arguments) = {expected}",
                pointer("args_hash"),
                expected=expected,
            )
        ]
    return [
        passed("binding.args-hash", "args_hash = sha256(compact arguments)", pointer("args_hash"))
    ]


def _request_params(doc: Doc) -> dict[str, JsonValue]:
    params: dict[str, JsonValue] = {"name": doc.get("tool"), "arguments": doc.get("arguments")}
    for member in ("_meta", "requestState", "inputResponses"):
        if member in doc:
            params[member] = doc[member]
    return params


def canonical_request(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """``canonical_request`` and its sha256 re-derived from tool and arguments.

    The line is seal-host's (``params`` = name, arguments, then ``_meta`` key-sorted,
    ``requestState``, ``inputResponses`` when the record carries them); without those members
    it is byte-identical to the JS line every fleet verifier derives.
    """
    if "request_parse_error" in doc or not isinstance(doc.get("tool"), str):
        return []
    if not isinstance(doc.get("arguments"), dict):
        return []
    line, error = (derived or Derived(doc)).canonical_line()
    if isinstance(error, serdejson.NumberNotRepresentable):
        reason = f"{CANNOT_RECONSTRUCT}: {error}"
        return [
            fail("binding.canonical-request", reason, pointer("arguments")),
            fail("binding.canonical-request-sha256", reason, pointer("arguments")),
        ]
    if line is None:
        return [fail("binding.canonical-request", str(error), pointer("arguments"))]
    digest = _sha(line)
    checks: list[Check] = []
    if "canonical_request" in doc:
        if doc["canonical_request"] == line:
            checks.append(
                passed(
                    "binding.canonical-request",
                    "canonical_request equals the line derived from tool and arguments",
                    pointer("canonical_request"),
                )
            )
        else:
            checks.append(
                fail(
                    "binding.canonical-request",
                    "canonical_request differs from the line derived from tool and arguments",
                    pointer("canonical_request"),
                    expected=line,
                )
            )
    if doc.get("canonical_request_sha256") == digest:
        checks.append(
            passed(
                "binding.canonical-request-sha256",
                "canonical_request_sha256 = sha256(derived canonical request)",
                pointer("canonical_request_sha256"),
            )
        )
    else:
        checks.append(
            fail(
                "binding.canonical-request-sha256",
                f"canonical_request_sha256 is not sha256(derived line) = {digest}",
                pointer("canonical_request_sha256"),
                expected=digest,
            )
        )
    return checks


def expected_request_hash(doc: Doc, derived: Derived | None = None) -> str | None:
    """The request identity the kernel must attest: ``request_sha256`` or the canonical hash."""
    value = doc.get("request_sha256")
    if isinstance(value, str):
        return value
    if isinstance(doc.get("tool"), str) and isinstance(doc.get("arguments"), dict):
        line, _ = (derived or Derived(doc)).canonical_line()
        return None if line is None else _sha(line)
    return None


# --- Object A (the signed request frame) --------------------------------------------------


def _object_a_bytes(doc: Doc) -> tuple[bytes | None, str | None]:
    artifacts = doc.get("signed_artifacts")
    if not isinstance(artifacts, dict):
        return None, None
    keys = set(artifacts)
    if keys not in ({"encoding", "object_a"}, {"encoding", "object_a", "approval_statement"}):
        return None, "signed_artifacts members must be encoding, object_a[, approval_statement]"
    if artifacts.get("encoding") != "base64" or not isinstance(artifacts.get("object_a"), str):
        return None, 'signed_artifacts.encoding must be "base64" and object_a a string'
    try:
        return b64_decode_cached(str(artifacts["object_a"])), None
    except ValueError as exc:
        return None, f"signed_artifacts.object_a: {exc}"


def frame_params(frame: bytes) -> dict[str, JsonValue] | None:
    """The ``params`` object of a request frame's raw line, or None if it has none.

    The object may be shared with other callers (see ``parse_frame_cached``): read it, never
    change it.
    """
    try:
        message = parse_frame_cached(raw_line(frame))
    except JsonError:
        return None
    params = message.get("params") if isinstance(message, dict) else None
    return params if isinstance(params, dict) else None


def object_a(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """Object A (``signed_artifacts.object_a``): framed subject and raw-line identity.

    ``sha256(ObjectA) == framed_subject_sha256``, ``len == framed_subject_length`` (the frame
    including its delimiter) and ``sha256(raw_line(ObjectA)) == request_sha256``.
    """
    if "signed_artifacts" not in doc:
        return []
    frame, error = (derived or Derived(doc)).object_a()
    if frame is None:
        return [
            fail(
                "binding.object-a",
                error or "signed_artifacts must be an object",
                pointer("signed_artifacts"),
            )
        ]
    checks: list[Check] = []
    digest, length = sha256_hex(frame), len(frame)
    if (
        doc.get("framed_subject_sha256") == digest
        and uint_value(doc.get("framed_subject_length")) == length
    ):
        checks.append(
            passed(
                "binding.framed-subject",
                f"framed_subject_sha256/length = sha256/length of Object A ({length})",
                pointer("framed_subject_sha256"),
            )
        )
    else:
        checks.append(
            fail(
                "binding.framed-subject",
                f"framed_subject_sha256/length do not match Object A "
                f"(sha256 {digest}, {length} bytes)",
                pointer("framed_subject_sha256"),
            )
        )
    line_digest = sha256_hex(raw_line(frame))
    if doc.get("request_sha256") == line_digest:
        checks.append(
            passed(
                "binding.request-sha256",
                "request_sha256 = sha256(raw line of Object A)",
                pointer("request_sha256"),
            )
        )
    else:
        checks.append(
            fail(
                "binding.request-sha256",
                f"request_sha256 is not sha256(raw line of Object A) = {line_digest}",
                pointer("request_sha256"),
            )
        )
    params = frame_params(frame)
    if "canonical_request" in doc and params is not None:
        try:
            line: str | None = identities.canonical_request(params)
        except (ValueError, serdejson.NumberNotRepresentable):
            line = None
        if line == doc["canonical_request"]:
            checks.append(
                passed(
                    "binding.canonical-request-frame",
                    "canonical_request is the host line of Object A's params",
                    pointer("canonical_request"),
                )
            )
        else:
            checks.append(
                fail(
                    "binding.canonical-request-frame",
                    "canonical_request is not the host line of Object A's params",
                    pointer("canonical_request"),
                    expected=line,
                )
            )
    return checks


def _release_frame_bytes(doc: Doc) -> bytes | None:
    frame = doc.get("release_frame")
    if not isinstance(frame, dict) or not isinstance(frame.get("base64"), str):
        return None
    try:
        return b64_decode_cached(str(frame["base64"]))
    except ValueError:
        return None


def _line_binds_meta(doc: Doc, text: str, derived: Derived | None = None) -> bool | None:
    """Whether ``text`` strictly parses to a line whose params hold ``_meta``; None: no JSON.

    When ``text`` is the very line this verifier derives from the record, the answer is known
    without parsing: compact output is strict JSON (no duplicate names, no surrogate escapes,
    finite numbers) whose params are the record's members, so it holds ``_meta`` exactly when
    the record does. The limits are what could still refuse it; the text's length bounds its
    members and string bytes, and its bracket count bounds its depth, so under those bounds
    nothing can. tests/test_bindings_perf.py checks this against the parse.
    """
    limits = DEFAULT_LIMITS
    if (
        len(text) <= limits.max_string_bytes // 4
        and len(text) <= limits.max_members
        and text.count("[") + text.count("{") <= limits.max_depth
        and text == _derived_line(doc, derived)
    ):
        return "_meta" in doc
    return _parsed_line_binds_meta(text)


def _derived_line(doc: Doc, derived: Derived | None = None) -> str | None:
    if not isinstance(doc.get("tool"), str) or not isinstance(doc.get("arguments"), dict):
        return None
    return (derived or Derived(doc)).canonical_line()[0]


def _parsed_line_binds_meta(text: str) -> bool | None:
    """The reference for :func:`_line_binds_meta`: parse the line and look."""
    try:
        line = parse_text(text)
    except JsonError:
        return None
    line_params = line.get("params") if isinstance(line, dict) else None
    return isinstance(line_params, dict) and "_meta" in line_params


def _omits_meta(carrier: str, meta: JsonValue) -> Check:
    """The legacy finding: ``carrier`` shows a ``_meta`` that canonical_request leaves out."""
    keys = sorted(meta) if isinstance(meta, dict) else []
    return fail(
        "legacy.canonical-request-omits-meta",
        f"{carrier} (keys: {', '.join(keys) or 'none'}) but canonical_request omits it: "
        "legacy projection, _meta unbound",
        pointer("canonical_request"),
        keys=keys,
    )


def legacy_meta(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """Tell whether canonical_request binds the ``_meta`` its frame carries (legacy flag).

    Frames are Object A and the release frame. When a frame's params carry ``_meta`` and
    ``canonical_request`` does not, the receipt uses the pre-f967783 projection and leaves
    those ``_meta`` keys unbound. Without frame bytes it cannot be told.
    """
    text = doc.get("canonical_request")
    if not isinstance(text, str):
        return []
    derived = derived or Derived(doc)
    binds_meta = _line_binds_meta(doc, text, derived)
    if binds_meta is None:
        return []
    if binds_meta:
        return [
            passed(
                "legacy.canonical-request-omits-meta",
                "canonical_request binds _meta",
                pointer("canonical_request"),
            )
        ]
    if "_meta" in doc:
        return [_omits_meta("the record carries the request's _meta", doc["_meta"])]
    frames = [f for f in (derived.object_a()[0], _release_frame_bytes(doc)) if f is not None]
    if not frames:
        return [
            not_evaluated(
                "legacy.canonical-request-omits-meta",
                "cannot be told: no frame bytes in the receipt, and canonical_request has no _meta",
                pointer("canonical_request"),
            )
        ]
    for frame in frames:
        params = frame_params(frame)
        meta = params.get("_meta") if params is not None else None
        if params is not None and "_meta" in params:
            return [_omits_meta("the frame carries _meta", meta)]
    return [
        passed(
            "legacy.canonical-request-omits-meta",
            "the frame carries no _meta; nothing is left unbound",
            pointer("canonical_request"),
        )
    ]


# --- v3 release authority -----------------------------------------------------------------


def release_companions(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """v3: ALLOW carries its release companions; any other verdict carries none of them."""
    names = ("release_valid_until", "post_state_hash", "release_frame")
    if doc.get("verdict") == "ALLOW":
        problems = [n for n in names if n not in doc]
        frame = doc.get("release_frame")
        if "release_valid_until" in doc and not is_uint(doc["release_valid_until"]):
            problems.append("release_valid_until (not a non-negative integer)")
        if "post_state_hash" in doc and not hex64(doc["post_state_hash"]):
            problems.append("post_state_hash (not 64 lowercase hex)")
        if isinstance(frame, dict) and not (
            frame.get("encoding") == "base64"
            and is_uint(frame.get("length"))
            and hex64(frame.get("sha256"))
            and isinstance(frame.get("base64"), str)
        ):
            problems.append("release_frame (needs encoding base64, length, sha256, base64)")
        if doc.get("release_status") == "NOT_APPLICABLE":
            problems.append("release_status NOT_APPLICABLE on an ALLOW")
        if problems:
            return [
                fail(
                    "binding.release-companions",
                    "ALLOW companions missing or malformed: " + "; ".join(problems),
                    pointer("verdict"),
                )
            ]
        return [passed("binding.release-companions", "ALLOW carries its release companions")]
    present = [n for n in names if n in doc]
    if doc.get("release_status") != "NOT_APPLICABLE":
        present.append("release_status is not NOT_APPLICABLE")
    if present:
        return [
            fail(
                "binding.release-companions",
                "a non-ALLOW receipt must carry no release companions: " + ", ".join(present),
                pointer("verdict"),
            )
        ]
    return [
        passed("binding.release-companions", "non-ALLOW: NOT_APPLICABLE and no release companions")
    ]


def release(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """v3 ALLOW: release frame length and sha256, its operation_id, and post_state_hash."""
    frame_obj = doc.get("release_frame")
    if doc.get("verdict") != "ALLOW" or not isinstance(frame_obj, dict):
        return []
    try:
        frame = b64_decode_cached(str(frame_obj.get("base64")))
    except ValueError as exc:
        return [
            fail(
                "binding.release-frame",
                f"release_frame.base64: {exc}",
                pointer("release_frame", "base64"),
            )
        ]
    checks: list[Check] = []
    digest = sha256_hex(frame)
    if uint_value(frame_obj.get("length")) == len(frame) and frame_obj.get("sha256") == digest:
        checks.append(
            passed(
                "binding.release-frame",
                "release_frame length and sha256 match its bytes",
                pointer("release_frame"),
            )
        )
    else:
        checks.append(
            fail(
                "binding.release-frame",
                f"release_frame length/sha256 do not match its bytes "
                f"({len(frame)} bytes, sha256 {digest})",
                pointer("release_frame"),
            )
        )
    spliced, problem = _release_splice(doc, derived or Derived(doc))
    operation = _release_operation_id(doc, frame, spliced)
    if operation is not None and operation == doc.get("operation_id"):
        checks.append(
            passed(
                "binding.release-operation-id",
                "the release frame's injected operation_id is the signed one",
                pointer("operation_id"),
            )
        )
    else:
        checks.append(
            fail(
                "binding.release-operation-id",
                "the release frame is not a JSON object whose operation_id equals the "
                "receipt's operation_id",
                pointer("release_frame"),
            )
        )
    checks.extend(_release_is_object_a(frame, spliced, problem))
    operation_id = doc.get("operation_id")
    if isinstance(operation_id, str):
        expected = _sha(
            serdejson.compact({"operation_id": operation_id, "release_frame_sha256": digest})
        )
        if doc.get("post_state_hash") == expected:
            checks.append(
                passed(
                    "binding.post-state-hash",
                    "post_state_hash = sha256({operation_id, release_frame_sha256})",
                    pointer("post_state_hash"),
                )
            )
        else:
            checks.append(
                fail(
                    "binding.post-state-hash",
                    f"post_state_hash is not the recomputed {expected}",
                    pointer("post_state_hash"),
                )
            )
    return checks


# A string JSON writes between quotes as is: no quote, backslash or C0 character.
_PLAIN_STRING = re.compile(r'[^"\\\x00-\x1f]*')


def _release_operation_id(doc: Doc, frame: bytes, expected: bytes | None) -> JsonValue:
    """The ``operation_id`` member of the release frame's JSON body (None if there is none).

    When the frame is exactly Object A with the receipt's plain operation id spliced in, the
    answer is that id without parsing: Object A's body parsed (in the splice) as an object
    without the member, and the splice adds one string member spelled verbatim, before the
    closing brace, so the body parses to that object plus ``operation_id``. The limits cannot
    refuse it either: its length bounds its members and string bytes, and the splice adds no
    nesting. tests/test_bindings_perf.py checks this against the parse (_parsed_operation_id).
    """
    operation_id = doc.get("operation_id")
    limits = DEFAULT_LIMITS
    if (
        expected is not None
        and frame == expected
        and isinstance(operation_id, str)
        and _PLAIN_STRING.fullmatch(operation_id)
        and len(frame) <= min(limits.max_string_bytes // 4, limits.max_members)
    ):
        return operation_id
    return _parsed_operation_id(frame)


def _parsed_operation_id(frame: bytes) -> JsonValue:
    """The reference for :func:`_release_operation_id`: parse the body and look."""
    body = frame[:-2] if frame.endswith(b"\r\n") else frame[:-1] if frame.endswith(b"\n") else frame
    try:
        message = parse_bytes(body)
    except JsonError:
        return None
    return message.get("operation_id") if isinstance(message, dict) else None


def _release_splice(doc: Doc, derived: Derived) -> tuple[bytes | None, str | None]:
    """The release frame seal-host would send for Object A, or why it cannot be released.

    (None, None) when the receipt has no Object A or no string ``operation_id``.
    """
    object_a, problem = derived.object_a()
    operation_id = doc.get("operation_id")
    if object_a is None or problem or not isinstance(operation_id, str):
        return None, None
    try:
        return splice_operation_id(object_a, operation_id, parse=parse_frame_cached), None
    except (ValueError, JsonError) as exc:
        return None, f"Object A cannot be released: {exc}"


def _release_is_object_a(frame: bytes, expected: bytes | None, problem: str | None) -> list[Check]:
    """Object B v2: the released frame is the signed request frame plus only the operation id.

    seal-host forwards Object A with ``,"operation_id":"<id>"`` spliced in (``release.rs``);
    anything else released means the child saw another request than the one decided on.
    """
    where = pointer("release_frame", "base64")
    if problem is not None:
        return [fail("binding.release-frame-object-a", problem, where)]
    if expected is None:
        return []
    if frame == expected:
        return [
            passed(
                "binding.release-frame-object-a",
                "the release frame is Object A with only the operation id spliced in",
                where,
            )
        ]
    return [
        fail(
            "binding.release-frame-object-a",
            "the release frame is not the signed request frame (Object A) with only the "
            "operation id spliced in: the child was sent another request",
            where,
        )
    ]


# --- kernel-attested bytes ----------------------------------------------------------------


def _audit(doc: Doc) -> tuple[dict[str, JsonValue] | None, str | None, str | None]:
    emitted = doc.get("emitted_bytes")
    if not isinstance(emitted, str):
        return None, None, "emitted_bytes is missing"
    try:
        outer = parse_text(emitted)
        audit_text = outer.get("audit") if isinstance(outer, dict) else None
        if not isinstance(audit_text, str):
            return None, None, "emitted_bytes has no audit string"
        audit_value = parse_text(audit_text)
    except JsonError as exc:
        return None, None, f"emitted_bytes or its audit is not strict JSON: {exc}"
    if not isinstance(audit_value, dict):
        return None, None, "the audit in emitted_bytes is not an object"
    route = outer.get("route") if isinstance(outer, dict) else None
    return audit_value, route if isinstance(route, str) else None, None


def audit(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """``emitted_bytes.audit`` against the receipt: request hash, verdict, certs, tool, epoch."""
    if doc.get("bypass") is not False:
        return []
    audit_value, route, error = _audit(doc)
    if audit_value is None:
        return [fail("binding.audit-request-sha256", error or "no audit", pointer("emitted_bytes"))]
    checks: list[Check] = []
    expected = expected_request_hash(doc, derived)
    attested = audit_value.get("request_sha256")
    if hex64(attested) and attested == expected:
        checks.append(
            passed(
                "binding.audit-request-sha256",
                "the kernel-attested audit.request_sha256 is the receipt's request",
                pointer("emitted_bytes"),
            )
        )
    else:
        checks.append(
            fail(
                "binding.audit-request-sha256",
                "audit.request_sha256 "
                + ("is missing" if attested is None else f"{attested!s}")
                + f" does not equal the receipt's request identity {expected}",
                pointer("emitted_bytes"),
            )
        )
    verdict = doc.get("verdict")
    mapped = _VERDICT_MAP.get(str(audit_value.get("verdict")))
    routed = _ROUTE_MAP.get(route or "")
    if mapped == verdict and routed in (None, verdict):
        checks.append(
            passed(
                "binding.audit-verdict",
                f"audit verdict and route map to {verdict}",
                pointer("verdict"),
            )
        )
    else:
        checks.append(
            fail(
                "binding.audit-verdict",
                f"audit verdict {audit_value.get('verdict')!s} / route {route} do not "
                f"map to the receipt verdict {verdict!s}",
                pointer("verdict"),
            )
        )
    checks.extend(_audit_certs(doc, audit_value))
    tool = doc.get("tool")
    if isinstance(tool, str):
        if audit_value.get("tool") == tool:
            checks.append(
                passed("binding.audit-tool", "audit.tool is the receipt's tool", pointer("tool"))
            )
        else:
            checks.append(
                fail(
                    "binding.audit-tool",
                    "audit.tool differs from the receipt's tool",
                    pointer("tool"),
                )
            )
    config = doc.get("kernel_config")
    epoch = config.get("epoch") if isinstance(config, dict) else None
    if epoch is not None and "epoch" in audit_value:
        if audit_value["epoch"] == epoch:
            checks.append(
                passed(
                    "binding.audit-epoch",
                    "audit.epoch = kernel_config.epoch",
                    pointer("kernel_config", "epoch"),
                )
            )
        else:
            checks.append(
                fail(
                    "binding.audit-epoch",
                    "audit.epoch differs from kernel_config.epoch",
                    pointer("kernel_config", "epoch"),
                )
            )
    return checks


def _audit_certs(doc: Doc, audit_value: dict[str, JsonValue]) -> list[Check]:
    certs = doc.get("certs")
    if "request_parse_error" in doc:
        # seal-check auditConsistent: byte equality, member order included.
        same = _safe_compact(certs) == _safe_compact(audit_value.get("certs"))
        how = "byte-equal"
    else:
        # Compared as compact(identities.sort_keys(...)), which compact's sort_keys writes.
        same = _safe_compact(certs, sort_keys=True) == _safe_compact(
            audit_value.get("certs"), sort_keys=True
        )
        how = "equal (member order aside)"
    if same and certs is not None:
        return [
            passed(
                "binding.audit-certs",
                f"receipt certs are {how} to the audit certs",
                pointer("certs"),
            )
        ]
    return [
        fail(
            "binding.audit-certs",
            f"receipt certs are not {how} to the audit certs",
            pointer("certs"),
        )
    ]


def _safe_compact(value: JsonValue, *, sort_keys: bool = False) -> str | None:
    try:
        return serdejson.compact(value, sort_keys=sort_keys)
    except serdejson.NumberNotRepresentable:
        return None


def verdict_reason(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """``reason`` and ``deny_kernel`` follow from the certs and the verdict (host producer).

    seal-host ``authorization_decision.rs``: ALLOW is "every gating kernel allows" with no
    deny cert; BLOCK names the first deny cert as ``"<kernel> kernel: <cert reason>"`` and
    ``deny_kernel``, or "no kernel gated this call" with ``deny_kernel`` null. Upstream covers
    this only through replay; ERROR receipts are not checked.
    """
    verdict = doc.get("verdict")
    certs = doc.get("certs")
    if doc.get("bypass") is not False or verdict not in ("ALLOW", "BLOCK"):
        return []
    if not isinstance(certs, list):
        return []
    deny = next((c for c in certs if isinstance(c, dict) and c.get("verdict") == "deny"), None)
    if verdict == "ALLOW":
        expected: tuple[JsonValue, JsonValue] = ("every gating kernel allows", None)
        if deny is not None:
            return [
                fail("binding.verdict-reason", "an ALLOW carries a deny cert", pointer("certs"))
            ]
    elif deny is not None:
        kernel = deny.get("kernel")
        expected = (f"{kernel!s} kernel: {deny.get('reason')!s}", kernel)
    else:
        expected = ("no kernel gated this call", None)
    if (doc.get("reason"), doc.get("deny_kernel")) == expected:
        return [
            passed(
                "binding.verdict-reason",
                "reason and deny_kernel follow from the certs and the verdict",
                pointer("reason"),
            )
        ]
    return [
        fail(
            "binding.verdict-reason",
            f"reason/deny_kernel do not follow from the certs: expected {expected[0]!r} "
            f"and deny_kernel {expected[1]!s}",
            pointer("reason"),
        )
    ]


# --- policy, grants, guard targets --------------------------------------------------------


def _policy(doc: Doc) -> tuple[str, dict[str, dict[str, JsonValue]]]:
    config = doc.get("kernel_config")
    if not isinstance(config, dict):
        return "", {}
    safety = config.get("safety")
    safety = safety if isinstance(safety, dict) else {}
    server = config.get("server") or safety.get("server") or ""
    tools: dict[str, dict[str, JsonValue]] = {}
    entries = safety.get("tools")
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            tools.setdefault(str(entry["name"]), entry)
    return server if isinstance(server, str) else "", tools


def _scalar(value: JsonValue) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, JsonNumber):
        return lean_number_text(lean_number(value.lexeme))
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return None


def _spec_parts(spec: JsonValue, arguments: JsonValue) -> list[str] | None:
    """Resolve a policy target spec (mcp-seal-dev ``Seal/Policy.lean``) against arguments."""
    if not isinstance(spec, list):
        return None
    parts: list[str] = []
    for item in spec:
        if not isinstance(item, dict):
            return None
        if item.get("full_arguments") is True:
            parts.append(compress(arguments))
        elif isinstance(item.get("literal"), str):
            parts.append(str(item["literal"]))
        elif isinstance(item.get("arg"), str):
            value: JsonValue = arguments
            for step in str(item["arg"]).split("."):
                value = value.get(step) if isinstance(value, dict) else None
            text = _scalar(value)
            if text is None:
                return None
            parts.append(text)
        else:
            return None
    return parts


def kernel_number_refusal(value: JsonValue) -> str | None:
    """Why the kernel would refuse a number in ``value`` (over 6 exponent digits), or None.

    seal-host ``Host/JsonWire.lean`` refuses such lines before parsing, so no receipt of a
    parsed request can carry one; refusing here also keeps Lean number expansion bounded.
    """
    stack: list[JsonValue] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, JsonNumber):
            _, _, exponent = item.lexeme.lower().partition("e")
            if len(exponent.lstrip("+-")) > 6:
                return f"number {item.lexeme[:40]} has more than 6 exponent digits"
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return None


def _targets(server: str, tool: str, spec: JsonValue, arguments: JsonValue) -> list[str]:
    """Guard targets this call can have: the tagged host form, then the pre-2026-08-01 form."""
    if kernel_number_refusal(arguments) is not None:
        return []
    parts = _spec_parts(spec, arguments)
    if parts is None:
        return []
    prefix = [server] if server else []
    tagged = [
        identities.GUARD_TARGET_TAG,
        *prefix,
        tool,
        *parts,
        "meta.absent",
        "",
        "requestState.absent",
        "",
        "inputResponses.absent",
        "",
    ]
    return [hash_parts(tagged), hash_parts([*prefix, tool, *parts])]


def _safety_reason(doc: Doc) -> str | None:
    certs = doc.get("certs")
    for cert in certs if isinstance(certs, list) else []:
        if isinstance(cert, dict) and cert.get("kernel") == "safety":
            reason = cert.get("reason")
            return reason if isinstance(reason, str) else None
    return None


def _call_arguments(doc: Doc, derived: Derived) -> JsonValue:
    frame, _ = derived.object_a()
    params = frame_params(frame) if frame is not None else None
    if params is not None and "arguments" in params:
        return params["arguments"]
    return doc.get("arguments")


def guard_target(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """The safety cert reason, when it is a target, equals the guard target of the call.

    Computed as the deployed host kernel does (``Kernels/Safety.lean``: context pairs always
    "absent"), server from ``kernel_config``; Object A's wire arguments are used when present.
    The untagged pre-2026-08-01 form is accepted and reported as such.
    """
    if not _mediated_parsed(doc) or not isinstance(doc.get("tool"), str):
        return []
    reason = _safety_reason(doc)
    if reason is None or not hex64(reason):
        return [
            info(
                "binding.guard-target",
                "the safety cert reason is not a guard target",
                pointer("certs"),
            )
        ]
    server, tools = _policy(doc)
    entry = tools.get(str(doc["tool"]))
    if entry is None:
        return [
            fail(
                "binding.guard-target",
                "the safety cert names a target, but the policy has no rule for this tool",
                pointer("kernel_config"),
            )
        ]
    arguments = _call_arguments(doc, derived or Derived(doc))
    refusal = kernel_number_refusal(arguments)
    if refusal is not None:
        return [
            fail(
                "binding.guard-target",
                f"the kernel refuses these arguments: {refusal}",
                pointer("arguments"),
            )
        ]
    targets = _targets(server, str(doc["tool"]), entry.get("target"), arguments)
    if not targets:
        return [
            fail(
                "binding.guard-target",
                "the policy target spec of this tool cannot be resolved against the arguments",
                pointer("kernel_config"),
            )
        ]
    if reason == targets[0]:
        return [
            passed(
                "binding.guard-target",
                "safety reason = guard target of the call (seal.guard-target/v2)",
                pointer("certs"),
            )
        ]
    if reason == targets[1]:
        return [
            passed(
                "binding.guard-target",
                "safety reason = legacy untagged guard target (host before 2026-08-01)",
                pointer("certs"),
            )
        ]
    return [
        fail(
            "binding.guard-target",
            f"safety reason {reason} is not the guard target of the call ({targets[0]})",
            pointer("certs"),
            expected=targets[0],
        )
    ]


def grants(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """Grants resolve from the policy; an approval ALLOW's safety reason is a granted target."""
    if doc.get("bypass") is not False or not isinstance(doc.get("granted_capabilities"), list):
        return []
    server, tools = _policy(doc)
    resolved: set[str] = set()
    errors: list[str] = []
    grants_list = doc["granted_capabilities"]
    assert isinstance(grants_list, list)
    for index, grant in enumerate(grants_list):
        if not isinstance(grant, dict):
            errors.append(f"grant {index} is not an object")
        elif hex64(grant.get("target")):
            resolved.add(str(grant["target"]))
        elif isinstance(grant.get("tool"), str):
            entry = tools.get(str(grant["tool"]))
            found = (
                _targets(server, str(grant["tool"]), entry.get("target"), grant.get("arguments"))
                if entry
                else []
            )
            if not found:
                errors.append(f"grant {index} ({grant['tool']}) does not resolve under the policy")
            resolved.update(found)
        else:
            errors.append(f"grant {index} has neither a target nor a tool")
    checks: list[Check] = []
    if errors:
        checks.append(fail("binding.grants", "; ".join(errors), pointer("granted_capabilities")))
    if (
        doc.get("verdict") == "ALLOW"
        and doc.get("authorization") != "explicit_policy_allow"
        and "request_parse_error" not in doc
    ):
        reason = _safety_reason(doc)
        if reason is not None and reason in resolved:
            checks.append(
                passed(
                    "binding.approval-grant",
                    "the approved target (safety reason) is a granted capability",
                    pointer("granted_capabilities"),
                )
            )
        else:
            checks.append(
                fail(
                    "binding.approval-grant",
                    "the ALLOW's safety reason is not among the granted targets",
                    pointer("granted_capabilities"),
                )
            )
    return checks


# --- approval and policy hashes -----------------------------------------------------------


def approval_policy_hash(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """``approval.policy_hash == sha256(compact kernel_config) == sha256(signed payload)``."""
    approval = doc.get("approval")
    if not isinstance(approval, dict):
        return []
    expected, error = (derived or Derived(doc)).policy_hash()
    config = doc.get("signed_config")
    payload = config.get("payload") if isinstance(config, dict) else None
    value = approval.get("policy_hash")
    ok = (
        expected is not None
        and value == expected
        and (not isinstance(payload, str) or value == _sha(payload))
    )
    if ok:
        return [
            passed(
                "binding.approval-policy-hash",
                "approval.policy_hash = sha256(compact kernel_config) = sha256(payload)",
                pointer("approval", "policy_hash"),
            )
        ]
    return [
        fail(
            "binding.approval-policy-hash",
            error or f"approval.policy_hash is not sha256 of the policy ({expected})",
            pointer("approval", "policy_hash"),
        )
    ]


def approval_expiry(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """``approval.expiry == issued_at + safety.approval.ttl_seconds * 1000`` (host producer)."""
    approval = doc.get("approval")
    if not isinstance(approval, dict) or "expiry" not in approval or "issued_at" not in approval:
        return []
    issued, expiry = uint_value(approval.get("issued_at")), uint_value(approval.get("expiry"))
    config = doc.get("kernel_config")
    safety = config.get("safety") if isinstance(config, dict) else None
    approval_cfg = safety.get("approval") if isinstance(safety, dict) else None
    ttl = uint_value(approval_cfg.get("ttl_seconds")) if isinstance(approval_cfg, dict) else None
    if issued is None or expiry is None or ttl is None:
        return [
            fail(
                "binding.approval-expiry",
                "issued_at, expiry and safety.approval.ttl_seconds must be integers",
                pointer("approval", "expiry"),
            )
        ]
    if expiry == issued + ttl * 1000:
        return [
            passed(
                "binding.approval-expiry",
                "approval.expiry = issued_at + ttl",
                pointer("approval", "expiry"),
            )
        ]
    return [
        fail(
            "binding.approval-expiry",
            f"approval.expiry is not issued_at + ttl_seconds*1000 = {issued + ttl * 1000}",
            pointer("approval", "expiry"),
        )
    ]


_STATEMENT = "binding.approval-statement"


def _statement_payload(text: JsonValue) -> tuple[dict[str, JsonValue] | None, list[str]]:
    """Decode and judge an approval statement: (payload, problems as ``"member: why"``)."""
    if not isinstance(text, str):
        return None, ["approval_statement: must be a base64 string or null"]
    try:
        statement = b64_decode_cached(text)
    except ValueError as exc:
        return None, [f"approval_statement: {exc}"]
    try:
        payload = parse_bytes(statement)
    except JsonError as exc:
        return None, [f"approval_statement: not strict JSON: {exc}"]
    if not isinstance(payload, dict):
        return None, ["approval_statement: not a JSON object"]
    problems = [
        f"{name}: not an ApprovalRecord v2 payload member"
        for name in sorted(payload.keys() - approvals.PAYLOAD_MEMBERS)
    ]
    problems += [f"{name}: missing" for name in sorted(approvals.PAYLOAD_MEMBERS - payload.keys())]
    for name in sorted(approvals.PAYLOAD_MEMBERS & payload.keys()):
        problem = approvals.PAYLOAD_RULES[name](payload[name])
        if problem:
            problems.append(f"{name}: {problem}")
    renderer = payload.get("renderer")
    if isinstance(renderer, dict):
        if set(renderer) != approvals.RENDERER_MEMBERS:
            problems.append("renderer: members must be exactly name, version, manifest_sha256")
        for name in sorted(approvals.RENDERER_MEMBERS & renderer.keys()):
            problem = approvals.RENDERER_RULES[name](renderer[name])
            if problem:
                problems.append(f"renderer.{name}: {problem}")
    try:
        canonical = approvals.render(payload) == statement
    except approvals.NotRenderable as exc:
        problems.append(f"approval_statement: cannot be re-rendered: {exc}")
    else:
        if not canonical:
            problems.append(
                "approval_statement: not byte-equal to its re-render (keys sorted by UTF-8 "
                "bytes, no whitespace, C0 as \\u00xx)"
            )
    return payload, problems


def approval_statement(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """Object B v2 ``approval_statement``: the consumed ApprovalRecord v2 payload, bound.

    seal-host@099be66 ``authorization_decision.rs`` signs the canonical payload of the consumed
    ApprovalRecord v2 (``providers.rs`` ``canonical_approval_v2_payload``) under Object B v2,
    and builds the approval block from the same record (``from_v2``: ``nonce``,
    ``issued_at = authorized_at``; ``key_id`` = sha256 of the pinned approver key). Only the
    ``ed25519`` channel admits v2 records, and it admits nothing else, so a statement goes with
    exactly that channel: a null statement on an ``ed25519`` approval, or a statement on any
    other receipt, fails. Each payload member that disagrees with the receipt fails by name.
    """
    artifacts = doc.get("signed_artifacts")
    if not isinstance(artifacts, dict):
        return []
    where = pointer("signed_artifacts", "approval_statement")
    text = artifacts.get("approval_statement")
    approval = doc.get("approval")
    approval = approval if isinstance(approval, dict) else {}
    identity = approval.get("approval_identity")
    identity = identity if isinstance(identity, dict) else {}
    channel = identity.get("channel")
    if text is None:
        if channel != "ed25519":
            return []
        return [
            fail(
                _STATEMENT,
                "approval_statement is null but the approval channel is ed25519: seal-host "
                "admits only ApprovalRecord v2 on that channel and signs its payload here",
                where,
                member="approval_statement",
            )
        ]
    payload, problems = _statement_payload(text)
    if payload is not None:
        problems += _statement_bindings(doc, payload, approval, identity, derived or Derived(doc))
    if channel != "ed25519":
        problems.append(
            f"approval.approval_identity.channel: {channel!r}, but a statement is only carried "
            "for a consumed ed25519 (ApprovalRecord v2) approval"
        )
    if not problems:
        return [
            passed(
                _STATEMENT,
                "approval_statement is a canonical ApprovalRecord v2 payload bound to the "
                "safety target, Object A, approval nonce, issued_at and key_id",
                where,
            )
        ]
    return [
        fail(_STATEMENT, problem, where, member=problem.split(":", 1)[0]) for problem in problems
    ]


def _statement_bindings(
    doc: Doc, payload: dict[str, JsonValue], approval: Doc, identity: Doc, derived: Derived
) -> list[str]:
    frame, _ = derived.object_a()
    subject_sha = [doc.get("framed_subject_sha256")]
    subject_len = [uint_value(doc.get("framed_subject_length"))]
    if frame is not None:
        subject_sha.append(sha256_hex(frame))
        subject_len.append(len(frame))
    expected: list[tuple[str, object, Sequence[object], str]] = [
        ("target", payload.get("target"), [_safety_reason(doc)], "the safety cert reason"),
        (
            "subject_sha256",
            payload.get("subject_sha256"),
            subject_sha,
            "framed_subject_sha256 and sha256(Object A)",
        ),
        (
            "subject_length",
            uint_value(payload.get("subject_length")),
            subject_len,
            "framed_subject_length and the length of Object A",
        ),
        ("nonce", payload.get("nonce"), [approval.get("nonce")], "approval.nonce"),
        (
            "authorized_at",
            uint_value(payload.get("authorized_at")),
            [uint_value(approval.get("issued_at"))],
            "approval.issued_at",
        ),
        (
            "authorization_signer_key_id",
            payload.get("authorization_signer_key_id"),
            [identity.get("key_id")],
            "approval.approval_identity.key_id",
        ),
    ]
    problems: list[str] = []
    for member, value, wanted, what in expected:
        if value is None or any(value != w for w in wanted):
            problems.append(f"{member}: {value!s} is not {what} ({', '.join(map(str, wanted))})")
    return problems


def effect_view(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """Host ``effect_view``: raw preimage hash, policy hash, idempotency key and the effect."""
    view = doc.get("effect_view")
    if not isinstance(view, dict):
        return []
    checks: list[Check] = []
    request = doc.get("request_sha256")

    def check(name: str, ok: bool, what: str) -> None:
        where = pointer("effect_view", name)
        cid = f"binding.effect-view.{name.replace('_', '-')}"
        checks.append(passed(cid, what, where) if ok else fail(cid, f"not: {what}", where))

    check(
        "raw_preimage_sha256",
        hex64(request) and view.get("raw_preimage_sha256") == request,
        "effect_view.raw_preimage_sha256 = request_sha256",
    )
    expected, _ = (derived or Derived(doc)).policy_hash()
    check(
        "policy_hash",
        expected is not None and view.get("policy_hash") == expected,
        "effect_view.policy_hash = sha256(compact kernel_config)",
    )
    session = view.get("session")
    check(
        "idempotency_key",
        isinstance(session, str)
        and isinstance(request, str)
        and view.get("idempotency_key") == f"{session}:{request}",
        "effect_view.idempotency_key = session:request_sha256",
    )
    effect = view.get("effect")
    same = (
        isinstance(effect, dict)
        and effect.get("resource") == doc.get("tool")
        and (effect.get("action") == "call")
        and all(
            (m in effect) == (m in doc) and effect.get(m) == doc.get(m)
            for m in ("arguments", "_meta", "requestState", "inputResponses")
        )
    )
    check("effect", same, "effect_view.effect = {resource: tool, action: call, arguments, ...}")
    return checks


# --- signatures ---------------------------------------------------------------------------


def _payload_facts(payload: str) -> tuple[str | None, str, bool]:
    """(why the payload cannot be judged, or None; its epoch as shown; is it self-compact)."""
    if len(payload) > _CACHED_PAYLOAD_CHARS:
        return _judge_payload(payload)
    return _cached_payload_facts(payload)


def _judge_payload(payload: str) -> tuple[str | None, str, bool]:
    try:
        parsed = parse_text(payload)
        self_compact = _compact(parsed)
    except JsonError as exc:
        return f"payload is not strict JSON: {exc}", "", False
    except serdejson.NumberNotRepresentable as exc:
        return f"{CANNOT_RECONSTRUCT}: {exc}", "", False
    epoch = parsed.get("epoch") if isinstance(parsed, dict) else None
    return None, f"{epoch!s}", self_compact == payload


# A fleet signs few configs and every receipt carries one: what the payload text says about
# itself is a pure function of that text, so it is worked out once per distinct payload.
# Bounded in entries and in size (a hostile store of huge distinct payloads retains little).
_CACHED_PAYLOAD_CHARS = 65_536
_cached_payload_facts = functools.lru_cache(maxsize=64)(_judge_payload)


def config_binding(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """signed_config payload: its own compact rendering and byte-equal to compact kernel_config."""
    config = doc.get("signed_config")
    if doc.get("bypass") is not False:
        return []
    if not isinstance(config, dict) or not isinstance(config.get("payload"), str):
        return [
            fail(
                "binding.config-payload",
                "signed_config payload unavailable: a mediated receipt must carry one",
                pointer("signed_config"),
            )
        ]
    payload = str(config["payload"])
    checks: list[Check] = []
    refusal, epoch, self_compact = _payload_facts(payload)
    if refusal is not None:
        checks.append(
            fail("binding.config-self-compact", refusal, pointer("signed_config", "payload"))
        )
    else:
        checks.append(
            info(
                "config.epoch",
                f"payload epoch {epoch}: freshness is reported, rollback is not enforced",
                pointer("signed_config", "payload"),
            )
        )
        if self_compact:
            checks.append(
                passed(
                    "binding.config-self-compact",
                    "payload is its own compact rendering",
                    pointer("signed_config", "payload"),
                )
            )
        else:
            checks.append(
                fail(
                    "binding.config-self-compact",
                    "payload is not its own compact rendering",
                    pointer("signed_config", "payload"),
                )
            )
    rendered, error = (derived or Derived(doc)).config_text()
    if rendered == payload:
        checks.append(
            passed(
                "binding.config-payload",
                "compact kernel_config is byte-equal to the signed payload",
                pointer("kernel_config"),
            )
        )
    else:
        checks.append(
            fail(
                "binding.config-payload",
                error or "compact kernel_config differs from the signed payload bytes",
                pointer("kernel_config"),
            )
        )
    return checks


# A fleet signs few configs and every receipt carries one: each distinct (key, payload,
# signature) triple is verified once per process. The verdict is a pure function of those
# bytes, so a cache hit yields the identical check. Bounded, so memory stays flat in N.
_config_verdict = functools.lru_cache(maxsize=256)(ed25519_verify)


def config_signature(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """Ed25519 by ``signed_config.pubkey`` over the exact UTF-8 bytes of ``payload`` (S < L)."""
    config = doc.get("signed_config")
    if not isinstance(config, dict):
        return []
    try:
        key = hex_key(str(config.get("pubkey")))
        signature = bytes.fromhex(str(config.get("signature")))
    except ValueError as exc:
        return [
            fail(
                "signature.config",
                f"signed_config key or signature malformed: {exc}",
                pointer("signed_config"),
            )
        ]
    payload = str(config.get("payload")).encode("utf-8")
    if len(signature) == 64 and not s_below_order(signature):
        return [
            fail(
                "signature.config",
                "signed_config signature scalar S is not below L",
                pointer("signed_config", "signature"),
            )
        ]
    if _config_verdict(key, payload, signature):
        return [
            passed(
                "signature.config",
                f"signed_config verifies under its key {config.get('pubkey')}",
                pointer("signed_config", "signature"),
            )
        ]
    return [
        fail(
            "signature.config",
            "signature invalid: signed_config does not verify under its embedded pubkey",
            pointer("signed_config", "signature"),
        )
    ]


def object_b_signature(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """v3 Object B: exact member set, key_id, strict base64url, S < L, preimage by domain."""
    sig = doc.get("signature")
    where = pointer("signature")
    if not isinstance(sig, dict):
        return [fail("signature.object-b-shape", "signature must be an object", where)]
    problems: list[str] = []
    if set(sig) != _SIGNATURE_MEMBERS:
        problems.append("members must be exactly " + ", ".join(sorted(_SIGNATURE_MEMBERS)))
    if sig.get("algorithm") != "Ed25519":
        problems.append(f"unknown algorithm {sig.get('algorithm')!s}")
    if sig.get("encoding") != "base64url-nopad":
        problems.append(f"unknown encoding {sig.get('encoding')!s}")
    domain = sig.get("domain")
    if domain not in (objectb.OBJECT_B_V1, objectb.OBJECT_B_V2):
        problems.append(f"unknown domain {domain!s}")
    try:
        key = hex_key(str(sig.get("public_key")))
    except ValueError as exc:
        problems.append(f"public_key: {exc}")
        key = b""
    try:
        value = b64url_nopad_decode(str(sig.get("value")))
        if len(value) != 64:
            problems.append(f"value decodes to {len(value)} bytes, not 64")
    except ValueError as exc:
        problems.append(f"value: {exc}")
        value = b""
    if problems:
        return [fail("signature.object-b-shape", "; ".join(problems), where)]
    checks = [
        passed(
            "signature.object-b-shape", f"Object B signature object well formed ({domain})", where
        )
    ]
    if sig.get("key_id") == key_id(key):
        checks.append(
            passed(
                "signature.object-b-key-id",
                "key_id = sha256(public key bytes)",
                pointer("signature", "key_id"),
            )
        )
    else:
        checks.append(
            fail(
                "signature.object-b-key-id",
                f"key_id is not sha256(public key bytes) = {key_id(key)}",
                pointer("signature", "key_id"),
            )
        )
    if not s_below_order(value):
        checks.append(fail("signature.object-b", "signature scalar S is not below L", where))
        return checks
    preimage, error = _object_b_preimage(doc, str(domain), derived)
    if preimage is None:
        checks.append(fail("signature.cannot-reconstruct", f"{CANNOT_RECONSTRUCT}: {error}", where))
        return checks
    if ed25519_verify(key, preimage, value):
        checks.append(
            passed(
                "signature.object-b",
                f"Object B verifies under the embedded key {sig.get('public_key')}",
                where,
            )
        )
    else:
        checks.append(
            fail(
                "signature.object-b",
                f"signature invalid: Object B ({domain}) does not verify under the embedded key",
                where,
            )
        )
    return checks


def _object_b_preimage(
    doc: Doc, domain: str, derived: Derived | None = None
) -> tuple[bytes | None, str]:
    # A copy without "signature" keeps every other member in its order, as a filtered
    # rebuild would, at C speed.
    record = dict(doc)
    record.pop("signature", None)
    try:
        object_b = serdejson.compact_bytes(record, exact=True)
    except serdejson.NumberNotRepresentable as exc:
        return None, str(exc)
    if domain == objectb.OBJECT_B_V1:
        return objectb.preimage_v1(object_b), ""
    frame, error = (derived or Derived(doc)).object_a()
    if frame is None:
        return None, error or "Object B v2 needs signed_artifacts.object_a"
    artifacts = doc["signed_artifacts"]
    assert isinstance(artifacts, dict)
    statement_text = artifacts.get("approval_statement")
    statement: bytes | None = None
    if statement_text is not None:
        try:
            statement = b64_decode_cached(str(statement_text))
        except ValueError as exc:
            return None, f"approval_statement: {exc}"
    try:
        return objectb.preimage_v2(
            frame,
            statement,
            object_b,
            str(doc.get("release_status")),
            str(doc.get("operation_id")),
            str(doc.get("durability_class")),
        ), ""
    except ValueError as exc:
        return None, str(exc)


ALL_BINDINGS: tuple[Binding, ...] = (
    args_hash,
    canonical_request,
    object_a,
    legacy_meta,
    audit,
    verdict_reason,
    guard_target,
    grants,
    approval_policy_hash,
    approval_expiry,
    effect_view,
    config_binding,
    config_signature,
)
"""Bindings of every decision-receipt family (each returns [] where it does not apply)."""

V3_BINDINGS: tuple[Binding, ...] = (
    release_companions,
    release,
    approval_statement,
    object_b_signature,
)
"""Bindings only a ``record_version: 3`` receipt carries (release authority, Object B)."""
