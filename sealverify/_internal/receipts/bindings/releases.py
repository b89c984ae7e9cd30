"""v3 release authority: the release companions, the release frame and its operation_id splice."""

from __future__ import annotations

import re

from sealverify._internal.primitives.releaseframe import splice_operation_id
from sealverify._internal.receipts.bindings.derived import (
    Derivations,
    Doc,
    pointer,
    sha256_of,
)
from sealverify._internal.receipts.families import hex64, is_uint
from sealverify._internal.results.model import Check, fail, passed
from sealverify._internal.wire import serdejson
from sealverify._internal.wire.framing import sha256_hex
from sealverify._internal.wire.strictjson import (
    DEFAULT_LIMITS,
    JsonError,
    JsonValue,
    parse_bytes,
    uint_value,
)

__all__ = [
    "release",
    "release_companions",
]


def release_companions(doc: Doc, derived: Derivations | None = None) -> list[Check]:
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


def release(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """v3 ALLOW: release frame length and sha256, its operation_id, and post_state_hash."""
    frame_obj = doc.get("release_frame")
    if doc.get("verdict") != "ALLOW" or not isinstance(frame_obj, dict):
        return []
    derived = derived or Derivations(doc)
    frame = derived.view.release
    if frame is None:
        return _release_refused(doc, frame_obj, derived)
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
    spliced, problem = _release_splice(doc, derived)
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
    if "signed_artifacts" in doc:
        checks.extend(_release_is_object_a(frame, spliced, problem))
    else:
        checks.append(_release_recovers_object_a(doc, derived))
    operation_id = doc.get("operation_id")
    if isinstance(operation_id, str):
        expected = sha256_of(
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
    nesting. tests/perf/test_bindings_perf.py checks this against the parse (_parsed_operation_id).
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


def _release_splice(doc: Doc, derived: Derivations) -> tuple[bytes | None, str | None]:
    """The release frame seal-host would send for Object A, or why it cannot be released.

    (None, None) when the receipt has no Object A or no string ``operation_id``.
    """
    object_a, problem = derived.object_a()
    operation_id = doc.get("operation_id")
    if object_a is None or problem or not isinstance(operation_id, str):
        return None, None
    try:
        return splice_operation_id(object_a, operation_id, parse=derived.view.parse_body), None
    except (ValueError, JsonError) as exc:
        return None, f"Object A cannot be released: {exc}"


def _release_refused(doc: Doc, frame_obj: Doc, derived: Derivations) -> list[Check]:
    """A release frame with no bytes to bind: its refusal, and for Object B v1 no request."""
    refused = fail(
        "binding.release-frame",
        f"release_frame.base64: {derived.view.release_error}",
        pointer("release_frame", "base64"),
    )
    if "signed_artifacts" in doc or "base64" in frame_obj:
        return [refused]  # a text that does not decode is its own failure
    # Object B v1 with no release bytes at all: the record is bound to no request
    return [refused, _release_recovers_object_a(doc, derived)]


def _release_recovers_object_a(doc: Doc, derived: Derivations) -> Check:
    """Object B v1: Object A is the release frame less exactly its operation-id splice.

    The receipt carries no Object A, so the frame the child was sent is the only request the
    record can be bound to: it must be a splice of one (and every Object A binding is then
    checked on what is recovered, bindings.object_a).
    """
    where = pointer("release_frame", "base64")
    frame, _ = derived.request_frame()
    if frame is None:
        return fail(
            "binding.release-frame-object-a",
            "the release frame is not a request with exactly the operation-id splice (seal-host "
            "release.rs): no Object A can be recovered, so the record is bound to no request",
            where,
        )
    return passed(
        "binding.release-frame-object-a",
        "the release frame less its operation-id splice is Object A, and every Object A "
        "binding is checked on it",
        where,
    )


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
