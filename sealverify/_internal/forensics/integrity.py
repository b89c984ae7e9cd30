"""A receipt's stored hashes against its own content, and which receipt fields drifted."""

from __future__ import annotations

import hashlib
import json

from sealverify._internal.forensics.changes import (
    Change,
    json_diff,
)
from sealverify._internal.primitives import identities
from sealverify._internal.primitives.signatures import b64_std_decode_canonical
from sealverify._internal.results.model import Check, fail, not_evaluated, passed
from sealverify._internal.wire import serdejson
from sealverify._internal.wire.framing import raw_line, sha256_hex
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonNumber,
    JsonValue,
    Limits,
    display,
    parse_bytes,
)

__all__ = [
    "receipt_drift",
    "receipt_integrity",
]


# Receipts are trusted-producer output of bounded size, not wire input: only the document
# size and depth are bounded here (the wire limits apply to the frame bytes they carry).
RECEIPT_LIMITS = Limits(max_depth=256, max_string_bytes=64 * 1024 * 1024, max_meta_bytes=1 << 30)


def decode_b64(text: JsonValue) -> bytes | None:
    """``text`` read by seal's base64 rule, the one ``verify`` binds, or None.

    Canonical padded standard base64 (primitives/signatures.py): a spelling with non-zero trailing
    bits names the same bytes to a lenient decoder, but it is not what the producer wrote, so
    ``verify`` refuses it and ``diff`` does too, rather than recompute hashes from it.
    """
    if not isinstance(text, str):
        return None
    try:
        return b64_std_decode_canonical(text)
    except ValueError:
        return None


def _shown(value: object) -> str:
    """A value in a reason as JSON text (numbers as received), never a Python repr."""
    if isinstance(value, JsonNumber):
        return value.lexeme
    return json.dumps(value, ensure_ascii=False, default=str)


def _hash_check(check_id: str, stored: object, computed: str | int, what: str) -> Check:
    if stored == computed:
        return passed(check_id, f"{what} matches the receipt's own content", stored=stored)
    # A stored member of the wrong type (a number such as 1e-400, an object) goes into the
    # check's data as its JSON text: report data holds plain JSON values only.
    plain = display(stored) if isinstance(stored, (JsonNumber, dict, list)) else stored
    return fail(
        check_id,
        f"stored {what} {_shown(stored)} disagrees with the receipt's own content "
        f"({_shown(computed)})",
        stored=plain,
        computed=computed,
    )


def _subject_checks(receipt: dict[str, JsonValue], subject: bytes, named: str) -> list[Check]:
    """framed_subject_sha256/length (exact frame) and request_sha256 (its raw line)."""
    checks: list[Check] = []
    if "framed_subject_sha256" in receipt:
        checks.append(
            _hash_check(
                "diff.receipt.framed-subject-sha256",
                receipt["framed_subject_sha256"],
                sha256_hex(subject),
                f"framed_subject_sha256 (of {named})",
            )
        )
    if "framed_subject_length" in receipt:
        checks.append(
            _hash_check(
                "diff.receipt.framed-subject-length",
                _integer(receipt["framed_subject_length"]),
                len(subject),
                f"framed_subject_length (of {named})",
            )
        )
    if "request_sha256" in receipt:
        checks.append(
            _hash_check(
                "diff.receipt.request-sha256",
                receipt["request_sha256"],
                sha256_hex(raw_line(subject)),
                f"request_sha256 (raw line of {named})",
            )
        )
    return checks


def _integer(value: JsonValue) -> object:
    if isinstance(value, JsonNumber) and value.as_int() is not None:
        return value.as_int()
    return value


def receipt_integrity(
    receipt: dict[str, JsonValue], frame: bytes | None, unspliced: bytes | None = None
) -> list[Check]:
    """Recompute the hashes a receipt stores from the content it carries.

    canonical_request_sha256 from canonical_request; args_hash from arguments (seal-host's
    serde rule, identities.args_hash); framed_subject_sha256/length and request_sha256 from
    signed_artifacts.object_a (or, without it, from ``unspliced``: the release frame with the
    spliced operation_id removed); release_frame length and sha256 from its own bytes; and
    canonical_request rebuilt from ``frame`` (current or legacy projection).
    """
    request = receipt.get("canonical_request")
    checks = _content_hash_checks(receipt, request)
    checks.extend(_object_a_checks(receipt, unspliced))
    release = receipt.get("release_frame")
    if _recovers_object_a(receipt, release) and unspliced is None:
        checks.append(
            fail(
                "diff.receipt.release-frame-object-a",
                "the release frame is not a request with exactly the operation-id splice "
                "(seal-host release.rs): no request frame can be recovered from it",
                "/release_frame/base64",
            )
        )
    if isinstance(release, dict) and "base64" in release:
        checks.extend(_release_checks(release))
    elif isinstance(release, dict):
        checks.append(
            fail(
                "diff.receipt.release-frame",
                "release_frame has no base64: the bytes its sha256 and length commit to are "
                "not in the receipt",
                "/release_frame",
            )
        )
    if frame is not None and isinstance(request, str):
        checks.append(_request_frame_check(request, frame))
    return checks


def _content_hash_checks(receipt: dict[str, JsonValue], request: JsonValue) -> list[Check]:
    """canonical_request_sha256 and args_hash recomputed from the members they hash."""
    checks: list[Check] = []
    if isinstance(request, str) and "canonical_request_sha256" in receipt:
        checks.append(
            _hash_check(
                "diff.receipt.canonical-request-sha256",
                receipt["canonical_request_sha256"],
                hashlib.sha256(request.encode("utf-8")).hexdigest(),
                "canonical_request_sha256",
            )
        )
    if "args_hash" in receipt and "arguments" in receipt:
        try:
            checks.append(
                _hash_check(
                    "diff.receipt.args-hash",
                    receipt["args_hash"],
                    identities.args_hash(receipt["arguments"]),
                    "args_hash",
                )
            )
        except serdejson.NumberNotRepresentable as exc:
            checks.append(
                not_evaluated("diff.receipt.args-hash", f"cannot reconstruct signed bytes: {exc}")
            )
    return checks


def _object_a_checks(receipt: dict[str, JsonValue], unspliced: bytes | None) -> list[Check]:
    """The subject hashes recomputed from Object A, else from the unspliced release frame."""
    checks: list[Check] = []
    artifacts = receipt.get("signed_artifacts")
    subject: bytes | None = None
    named = ""
    if isinstance(artifacts, dict) and "object_a" in artifacts:
        subject = decode_b64(artifacts["object_a"])
        named = "object_a"
        if subject is None:
            checks.append(
                fail(
                    "diff.receipt.object-a",
                    "signed_artifacts.object_a is not canonical padded standard base64",
                    "/signed_artifacts/object_a",
                )
            )
    elif unspliced is not None:
        subject, named = unspliced, "release_frame with operation_id removed"
    if subject is not None:
        checks.extend(_subject_checks(receipt, subject, named))
    return checks


def _release_checks(release: dict[str, JsonValue]) -> list[Check]:
    """release_frame's sha256 and length recomputed from its own base64 bytes."""
    released = decode_b64(release["base64"])
    if released is None:
        return [
            fail(
                "diff.receipt.release-frame",
                "release_frame.base64 is not canonical padded standard base64",
                "/release_frame/base64",
            )
        ]
    checks: list[Check] = []
    if "sha256" in release:
        checks.append(
            _hash_check(
                "diff.receipt.release-frame-sha256",
                release["sha256"],
                sha256_hex(released),
                "release_frame.sha256",
            )
        )
    if "length" in release:
        checks.append(
            _hash_check(
                "diff.receipt.release-frame-length",
                _integer(release["length"]),
                len(released),
                "release_frame.length",
            )
        )
    return checks


def _request_frame_check(request: str, frame: bytes) -> Check:
    """canonical_request rebuilt from the frame bytes (current or legacy projection)."""
    try:
        message = parse_bytes(raw_line(frame), RECEIPT_LIMITS)
        params = message.get("params") if isinstance(message, dict) else None
        forms = set()
        if isinstance(params, dict):
            forms = {
                identities.canonical_request(params),
                identities.legacy_canonical_request(params),
            }
    except (JsonError, ValueError):
        forms = set()
    if request in forms:
        return passed(
            "diff.receipt.canonical-request-frame",
            "canonical_request is rebuilt from the receipt's frame bytes",
        )
    return fail(
        "diff.receipt.canonical-request-frame",
        "canonical_request is not what the receipt's own frame bytes give "
        "(current or legacy projection)",
    )


def _recovers_object_a(receipt: dict[str, JsonValue], release: JsonValue) -> bool:
    """Whether the receipt's request frame is its release frame less the splice (Object B v1).

    An ALLOW without ``signed_artifacts`` carries its request only inside the release frame,
    as ``verify`` reads it (receipts/bindings/releases.py); a base64 text that does not decode
    is its own failure (``diff.receipt.release-frame``).
    """
    if "signed_artifacts" in receipt or receipt.get("verdict") != "ALLOW":
        return False
    if not isinstance(release, dict):
        return False
    return "base64" not in release or decode_b64(release["base64"]) is not None


# Longest pointer prefix wins. Anything not listed is "unclassified" and is treated like
# authorization surface (reported, never waved through as minor).
_RECEIPT_CLASSES: dict[str, str] = {
    "/tool": "authorization-surface",
    "/arguments": "authorization-surface",
    "/_meta": "authorization-surface",
    "/requestState": "authorization-surface",
    "/inputResponses": "authorization-surface",
    "/verdict": "authorization-surface",
    "/authorization": "authorization-surface",
    "/bypass": "authorization-surface",
    "/reason": "authorization-surface",
    "/deny_kernel": "authorization-surface",
    "/certs": "authorization-surface",
    "/emitted_bytes": "authorization-surface",
    "/approval": "authorization-surface",
    "/approval/nonce": "minor",
    "/approval/issued_at": "minor",
    "/approval/expiry": "minor",
    "/kernel_config": "authorization-surface",
    "/signed_config": "authorization-surface",
    "/policy_id": "authorization-surface",
    "/granted_capabilities": "authorization-surface",
    "/canonical_request": "authorization-surface",
    "/canonical_request_sha256": "authorization-surface",
    "/args_hash": "authorization-surface",
    "/request_sha256": "authorization-surface",
    "/request_parse_error": "authorization-surface",
    "/framed_subject_sha256": "authorization-surface",
    "/framed_subject_length": "authorization-surface",
    "/principal": "authorization-surface",
    "/effect_view": "authorization-surface",
    "/effect_view/session": "minor",
    "/effect_view/idempotency_key": "minor",
    "/kernel_identity": "authorization-surface",
    "/kernel_identity/note": "minor",
    "/host_identity": "authorization-surface",
    "/record_type": "authorization-surface",
    "/record_version": "authorization-surface",
    "/seal_receipt": "authorization-surface",
    "/gateway/bypass": "authorization-surface",
    "/now": "minor",
    "/gateway/ts_mono_ms": "minor",
    "/operation_id": "minor",
    "/release_status": "minor",
    "/release_valid_until": "minor",
    "/post_state_hash": "minor",
    "/release_frame": "minor",
    "/signature": "minor",
    "/durability_class": "minor",
    "/asserted_provenance": "minor",
    "/signed_artifacts": "minor",
}


def receipt_field_class(pointer: str) -> str:
    """authorization-surface, minor, or unclassified for a pointer into a receipt."""
    best = ""
    for prefix in _RECEIPT_CLASSES:
        if (pointer == prefix or pointer.startswith(prefix + "/")) and len(prefix) > len(best):
            best = prefix
    return _RECEIPT_CLASSES[best] if best else "unclassified"


def receipt_drift(a: dict[str, JsonValue], b: dict[str, JsonValue]) -> list[tuple[Change, str]]:
    """Every receipt-field difference with its class (the frame bytes are compared apart)."""
    return [
        (c, receipt_field_class(c.pointer)) for c in json_diff(a, b) if c.change != "member-order"
    ]
