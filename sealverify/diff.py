"""Forensic comparison of two frames or two receipts: bytes, identities, meaning, retry, verdict."""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from sealverify import identities, serdejson
from sealverify.frame import FrameAnalysis, FrameOptions, analyze_frame, analyze_stream
from sealverify.framing import FrameBytes, frame_of, raw_line, sha256_hex, split_stdio
from sealverify.metakeys import KEY_TABLE, VOLATILE_RETRY_KEYS
from sealverify.report import Check, Report, Subject, fail, info, not_evaluated, passed
from sealverify.strictjson import JsonError, JsonNumber, JsonValue, Limits, display, parse_bytes

__all__ = [
    "IDENTITY_NAMES",
    "VERDICTS",
    "Change",
    "DiffInputError",
    "Side",
    "byte_diff",
    "diff_report",
    "identity_rows",
    "input_required_reply",
    "json_diff",
    "load_side",
    "meta_key_rows",
    "receipt_drift",
    "receipt_integrity",
    "retry_view",
]

RECEIPT_DISCRIMINATORS = ("record_type", "seal_receipt", "seal_live_receipt")
# Receipts are trusted-producer output of bounded size, not wire input: only the document
# size and depth are bounded here (the wire limits apply to the frame bytes they carry).
RECEIPT_LIMITS = Limits(max_depth=256, max_string_bytes=64 * 1024 * 1024, max_meta_bytes=1 << 30)
CONTEXT = 16
SHOWN = 160

VERDICTS: dict[str, str] = {
    "identical-bytes": "identical bytes",
    "same-invocation": "same invocation, different bytes",
    "same-action": "same action, different invocation",
    "different-action": "different action",
    "not-comparable": "not comparable: identities could not be computed",
    "receipt-integrity-failed": "not compared: a receipt's stored hashes disagree with its content",
}
_AUTO = FrameOptions(era="auto")
SAME_EXIT = frozenset({"identical-bytes", "same-invocation"})

# (report name, where it is read). The exact-frame and raw-line digests come from the bytes;
# the rest are identities.Identities attributes (seal's byte rules, docs/byte-rules.md).
IDENTITY_NAMES: tuple[tuple[str, str], ...] = (
    ("exact_frame_sha256", "frame"),
    ("raw_line_sha256", "frame"),
    ("canonical_request_sha256", "canonical_request_sha256"),
    ("legacy_canonical_request_sha256", "legacy_canonical_request_sha256"),
    ("args_hash", "args_hash"),
    ("guard_target_meta_all", "guard_target"),
    ("guard_target_seal_host", "guard_target_host"),
    ("guard_target_legacy", "legacy_guard_target"),
    ("effect_v3", "effect_v3"),
    ("effect_v4", "effect_v4"),
)
_INVOCATION = tuple(name for name, where in IDENTITY_NAMES if where != "frame")


class DiffInputError(ValueError):
    """An input cannot be used at all (empty, no such frame index): the CLI maps it to exit 2."""


@dataclass(frozen=True, slots=True)
class Side:
    """One input, resolved to the frame bytes and tools/call params that get compared."""

    label: str
    source: str
    kind: Literal["frame", "receipt"]
    frame: FrameBytes | None
    origin: str
    analysis: FrameAnalysis | None
    message: JsonValue
    params: dict[str, JsonValue] | None
    ids: identities.Identities | None
    receipt: dict[str, JsonValue] | None = field(default=None, repr=False)
    notes: tuple[str, ...] = ()
    integrity: tuple[Check, ...] = ()

    @property
    def request_id(self) -> JsonValue:
        return self.message.get("id") if isinstance(self.message, dict) else None


@dataclass(frozen=True, slots=True)
class Change:
    """One difference at a JSON pointer: added, removed, changed, member-order, number-spelling."""

    pointer: str
    change: str
    a: JsonValue = None
    b: JsonValue = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pointer": self.pointer, "change": self.change}
        if self.change in ("removed", "changed", "number-spelling"):
            out["a"] = _show(self.a)
        if self.change in ("added", "changed", "number-spelling"):
            out["b"] = _show(self.b)
        return out


# --------------------------------------------------------------------------- helpers


def _pointer_token(key: str) -> str:
    """RFC 6901 escaping: ``~`` as ``~0`` and ``/`` as ``~1``."""
    return key.replace("~", "~0").replace("/", "~1")


def _show(value: JsonValue) -> str:
    """A bounded compact rendering of a value for the report (producer order kept)."""
    try:
        text = serdejson.compact(value)
    except (ValueError, OverflowError):
        text = display(value)  # a spelling serde refuses: show it as received
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def _escaped(data: bytes) -> str:
    """Printable ASCII as itself, everything else as ``\\xNN`` (backslash doubled)."""
    out = []
    for byte in data:
        if byte == 0x5C:
            out.append("\\\\")
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\x{byte:02x}")
    return "".join(out)


def _receipt_kind(value: JsonValue) -> bool:
    return isinstance(value, dict) and any(k in value for k in RECEIPT_DISCRIMINATORS)


# --------------------------------------------------------------------------- loading


def _frame_side(
    label: str,
    source: str,
    frame: FrameBytes,
    analysis: FrameAnalysis,
    origin: str,
    notes: list[str],
) -> Side:
    message = analysis.message
    params = None
    if analysis.method == "tools/call" and isinstance(message, dict):
        raw = message.get("params")
        params = raw if isinstance(raw, dict) else None
    return Side(
        label,
        source,
        "frame",
        frame,
        origin,
        analysis,
        message,
        params,
        analysis.identities,
        None,
        tuple(notes),
    )


def _pick_frame(
    data: bytes, label: str, source: str, index: int | None, options: FrameOptions, transport: str
) -> Side:
    if transport == "http":
        frame = frame_of(data, "http")
        return _frame_side(label, source, frame, analyze_frame(frame, options), "http body", [])
    frames = split_stdio(data)
    results = {r.frame.offset: r for r in analyze_stream(frames, options)}
    notes: list[str] = []
    if index is not None:
        if index >= len(frames):
            raise DiffInputError(
                f"{source}: --index-{label.lower()} {index}: the input has {len(frames)} frame(s)"
            )
        chosen = index
    elif len(frames) == 1:
        chosen = 0
    else:
        calls = [
            i
            for i, f in enumerate(frames)
            if f.offset in results and results[f.offset].method == "tools/call"
        ]
        chosen = calls[0] if calls else 0
        what = "tools/call" if calls else "frame (no tools/call in the input)"
        notes.append(
            f"{source} holds {len(frames)} frames; compared the first {what}, "
            f"frame #{chosen}; pass --index-{label.lower()} to choose another"
        )
    frame = frames[chosen]
    analysis = results.get(frame.offset) or analyze_frame(frame, options)
    return _frame_side(label, source, frame, analysis, f"frame #{chosen}", notes)


def _b64(text: JsonValue) -> bytes | None:
    if not isinstance(text, str):
        return None
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        return None


def unsplice_operation_id(frame: bytes, operation_id: str) -> bytes | None:
    """Undo seal-host's release splice: drop the ``"operation_id"`` member it appended.

    seal-host ``rust/src/release.rs`` ``frame_with_operation_id`` inserts
    ``,"operation_id":"<id>"`` (no comma in ``{}``) before the closing brace of the forwarded
    frame and re-appends its terminator. Returns None when the frame is not shaped that way.
    """
    body = raw_line(frame)
    terminator = frame[len(body) :]
    member = b'"operation_id":"' + operation_id.encode("ascii", "replace") + b'"'
    stripped = body.rstrip(b" \t")
    if not stripped.endswith(member + b"}"):
        return None
    head = stripped[: -len(member) - 1]
    if head.endswith(b","):
        head = head[:-1]
    elif not head.rstrip(b" \t").endswith(b"{"):
        return None
    return head + b"}" + terminator


def _receipt_side(
    label: str, source: str, receipt: dict[str, JsonValue], options: FrameOptions, notes: list[str]
) -> Side:
    artifacts = receipt.get("signed_artifacts")
    release = receipt.get("release_frame")
    frame_bytes: bytes | None = None
    origin = "receipt fields (no frame bytes in the receipt)"
    if isinstance(artifacts, dict) and "object_a" in artifacts:
        frame_bytes = _b64(artifacts["object_a"])
        origin = "signed_artifacts.object_a"
    elif isinstance(release, dict) and "base64" in release:
        spliced = _b64(release["base64"])
        op = receipt.get("operation_id")
        frame_bytes = spliced
        origin = "release_frame.base64 (as released, operation_id spliced in)"
        if spliced is not None and isinstance(op, str):
            plain = unsplice_operation_id(spliced, op)
            if plain is not None:
                frame_bytes = plain
                origin = "release_frame.base64 with the spliced operation_id member removed"
            else:
                notes.append(
                    "release_frame carries no removable operation_id member; compared as released"
                )
    unspliced = frame_bytes if origin.endswith("operation_id member removed") else None
    integrity = tuple(receipt_integrity(receipt, frame_bytes, unspliced))
    if frame_bytes is not None:
        frame = frame_of(frame_bytes, "stdio")
        analysis = analyze_frame(frame, replace(options, era="auto"))
        side = _frame_side(label, source, frame, analysis, origin, notes)
        return replace(side, kind="receipt", receipt=receipt, integrity=integrity)
    params: dict[str, JsonValue] | None = None
    ids = None
    if isinstance(receipt.get("tool"), str) and "arguments" in receipt:
        params = {"name": receipt["tool"], "arguments": receipt["arguments"]}
        for member in ("_meta", "requestState", "inputResponses"):
            if member in receipt:
                params[member] = receipt[member]
        try:
            ids = identities.compute(params, server=options.server)
        except (ValueError, TypeError):
            ids = None
        notes.append(
            "the receipt carries no frame bytes: its tool, arguments and any "
            "_meta/requestState/inputResponses are compared as tools/call params"
        )
    message: JsonValue = {"params": params} if params is not None else None
    return Side(
        label,
        source,
        "receipt",
        None,
        origin,
        None,
        message,
        params,
        ids,
        receipt,
        tuple(notes),
        integrity,
    )


def load_side(
    data: bytes,
    label: str,
    source: str,
    *,
    index: int | None = None,
    options: FrameOptions = _AUTO,
    transport: str = "stdio",
) -> Side:
    """Resolve one input: a raw frame (or capture), a receipt, or a JSON-lines receipt file.

    A receipt is a JSON object with one of the members ``record_type``, ``seal_receipt`` or
    ``seal_live_receipt``. Raises :class:`DiffInputError` when there is nothing to compare.
    """
    if not data.strip(b" \t\r\n"):
        raise DiffInputError(f"{source}: empty input")
    try:
        whole = parse_bytes(data.strip(b" \t\r\n"), RECEIPT_LIMITS)
    except JsonError:
        whole = None
    if isinstance(whole, dict) and _receipt_kind(whole):
        if index not in (None, 0):
            raise DiffInputError(f"{source}: holds one receipt; --index-{label.lower()} {index}")
        return _receipt_side(label, source, whole, options, [])
    if transport == "stdio":
        lines = [f for f in split_stdio(data) if f.line.strip(b" \t")]
        parsed: list[JsonValue] = []
        for line in lines:
            try:
                parsed.append(parse_bytes(line.line, RECEIPT_LIMITS))
            except JsonError:
                parsed.append(None)
        if parsed and _receipt_kind(parsed[0]):
            notes: list[str] = []
            if index is None:
                index = 0
                if len(parsed) > 1:
                    notes.append(
                        f"{source} holds {len(parsed)} lines; compared the first "
                        f"receipt (line 0); pass --index-{label.lower()} to choose"
                    )
            if index >= len(parsed):
                raise DiffInputError(
                    f"{source}: --index-{label.lower()} {index}: the input "
                    f"has {len(parsed)} line(s)"
                )
            chosen = parsed[index]
            if not isinstance(chosen, dict) or not _receipt_kind(chosen):
                raise DiffInputError(f"{source}: line {index} is not a receipt")
            return _receipt_side(label, source, chosen, options, notes)
    return _pick_frame(data, label, source, index, options, transport)


# --------------------------------------------------------------------------- receipt checks


def _hash_check(check_id: str, stored: object, computed: str | int, what: str) -> Check:
    if stored == computed:
        return passed(check_id, f"{what} matches the receipt's own content", stored=stored)
    return fail(
        check_id,
        f"stored {what} {stored!r} disagrees with the receipt's own content ({computed!r})",
        stored=stored,
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
    checks: list[Check] = []
    request = receipt.get("canonical_request")
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
    artifacts = receipt.get("signed_artifacts")
    subject: bytes | None = None
    named = ""
    if isinstance(artifacts, dict) and "object_a" in artifacts:
        subject = _b64(artifacts["object_a"])
        named = "object_a"
        if subject is None:
            checks.append(
                fail(
                    "diff.receipt.object-a",
                    "signed_artifacts.object_a is not standard base64",
                    "/signed_artifacts/object_a",
                )
            )
    elif unspliced is not None:
        subject, named = unspliced, "release_frame with operation_id removed"
    if subject is not None:
        checks.extend(_subject_checks(receipt, subject, named))
    release = receipt.get("release_frame")
    if isinstance(release, dict) and "base64" in release:
        released = _b64(release["base64"])
        if released is None:
            checks.append(
                fail(
                    "diff.receipt.release-frame",
                    "release_frame.base64 is not standard base64",
                    "/release_frame/base64",
                )
            )
        else:
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
    if frame is not None and isinstance(request, str):
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
            checks.append(
                passed(
                    "diff.receipt.canonical-request-frame",
                    "canonical_request is rebuilt from the receipt's frame bytes",
                )
            )
        else:
            checks.append(
                fail(
                    "diff.receipt.canonical-request-frame",
                    "canonical_request is not what the receipt's own frame bytes give "
                    "(current or legacy projection)",
                )
            )
    return checks


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


# --------------------------------------------------------------------------- comparisons


def byte_diff(a: FrameBytes, b: FrameBytes) -> dict[str, Any]:
    """Identical, or the first differing offset with an escaped and a hex context window."""
    out: dict[str, Any] = {
        "identical": a.data == b.data,
        "length_a": a.length,
        "length_b": b.length,
        "terminator_a": a.terminator,
        "terminator_b": b.terminator,
        "terminator_equal": a.terminator == b.terminator,
        "raw_line_equal": a.line == b.line,
    }
    if a.data == b.data:
        return out
    limit = min(a.length, b.length)
    offset = next((i for i in range(limit) if a.data[i] != b.data[i]), limit)
    start = max(0, offset - CONTEXT)
    out["first_difference_offset"] = offset
    out["window_start"] = start
    for side, data in (("a", a.data), ("b", b.data)):
        window = data[start : offset + CONTEXT]
        out[f"window_{side}_escaped"] = _escaped(window)
        out[f"window_{side}_hex"] = window.hex(" ")
    return out


def identity_rows(a: Side, b: Side) -> list[dict[str, Any]]:
    """Each identity of both sides, equal or different; None where a side has none."""
    rows = []
    for name, where in IDENTITY_NAMES:
        values: list[str | None] = []
        for side in (a, b):
            if where == "frame":
                frame = side.frame
                value = (
                    None
                    if frame is None
                    else (
                        frame.exact_sha256
                        if name == "exact_frame_sha256"
                        else frame.raw_line_sha256
                    )
                )
            else:
                value = None if side.ids is None else getattr(side.ids, where)
            values.append(value)
        equal = None if None in values else values[0] == values[1]
        rows.append({"name": name, "a": values[0], "b": values[1], "equal": equal})
    return rows


def _numbers_equal(a: JsonNumber, b: JsonNumber) -> bool:
    try:
        return Decimal(a.lexeme) == Decimal(b.lexeme)
    except InvalidOperation:
        return False


def json_diff(a: JsonValue, b: JsonValue, pointer: str = "") -> list[Change]:
    """JSON-pointer differences from ``a`` to ``b``, sorted by pointer.

    Objects compare by member name; a changed order of the common members is its own
    ``member-order`` change at the object's pointer. Numbers with different spellings of one
    value are ``number-spelling``. Arrays compare by position.
    """
    out: list[Change] = []
    _diff(a, b, pointer, out)
    return sorted(out, key=lambda c: (c.pointer, c.change))


def _diff(a: JsonValue, b: JsonValue, pointer: str, out: list[Change]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a:
            child = f"{pointer}/{_pointer_token(key)}"
            if key not in b:
                out.append(Change(child, "removed", a[key], None))
            else:
                _diff(a[key], b[key], child, out)
        out.extend(
            Change(f"{pointer}/{_pointer_token(k)}", "added", None, b[k]) for k in b if k not in a
        )
        if [k for k in a if k in b] != [k for k in b if k in a]:
            out.append(Change(pointer, "member-order", None, None))
    elif isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            _diff(x, y, f"{pointer}/{i}", out)
        out.extend(Change(f"{pointer}/{i}", "removed", a[i], None) for i in range(len(b), len(a)))
        out.extend(Change(f"{pointer}/{i}", "added", None, b[i]) for i in range(len(a), len(b)))
    elif isinstance(a, JsonNumber) and isinstance(b, JsonNumber):
        if a.lexeme != b.lexeme:
            kind = "number-spelling" if _numbers_equal(a, b) else "changed"
            out.append(Change(pointer, kind, a, b))
    elif type(a) is not type(b) or a != b:
        out.append(Change(pointer, "changed", a, b))


def _strip_insignificant(data: bytes) -> bytes:
    """The bytes with JSON whitespace outside strings removed."""
    out = bytearray()
    in_string = escaped = False
    for byte in data:
        if in_string:
            out.append(byte)
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte in b" \t\r\n":
            continue
        else:
            out.append(byte)
            in_string = byte == 0x22
    return bytes(out)


def _meta_key_of(pointer: str) -> str | None:
    prefix = "/params/_meta/"
    if not pointer.startswith(prefix):
        return None
    token = pointer[len(prefix) :].split("/", 1)[0]
    return token.replace("~1", "/").replace("~0", "~")


def meta_key_rows(changes: list[Change]) -> list[dict[str, Any]]:
    """For each differing ``_meta`` key: its seed 000 §2.2 row and each partition's reading.

    Option A (ruled 2026-07-28) commits the complete ``_meta``: every difference changes
    authority identity. Option C commits or excludes by exact name (seed 000 §3.2, §3.3); an
    unknown key is refused (C-refuse-unknown) or committed (C-commit-unknown), never excluded.
    """
    rows: dict[str, dict[str, Any]] = {}
    for change in changes:
        key = _meta_key_of(change.pointer)
        if key is None or change.change == "member-order" or key in rows:
            continue
        known = KEY_TABLE.get(key)
        row: dict[str, Any] = {
            "key": key,
            "change": change.change,
            "option_a": "changes authority identity",
        }
        if known is not None:
            row.update(
                in_key_table=True,
                carried_by=known.carried_by,
                may_change_between_identical_actions=known.may_change,
                server_can_act=known.server_can_act,
                option_c=(
                    "committed: changes authority identity"
                    if known.option_c == "committed"
                    else "excluded from authority identity (still bound by the exact-frame subject)"
                ),
            )
        else:
            row.update(
                in_key_table=False,
                carried_by="not in the key table of seed 000 §2.2 (extension or unknown key)",
                may_change_between_identical_actions="not established",
                server_can_act="assume yes: a server may read any _meta key",
                option_c="unknown key: refused under C-refuse-unknown, committed under "
                "C-commit-unknown; never excluded",
            )
        row["volatile_in_retry"] = key in VOLATILE_RETRY_KEYS
        rows[key] = row
    return [rows[k] for k in sorted(rows)]


def input_required_reply(stream: bytes, request_id: JsonValue) -> dict[str, JsonValue] | None:
    """The ``result`` of the server's response to ``request_id`` in a server-to-client capture."""
    for frame in split_stdio(stream):
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
    to A is given), and the same ``_meta`` apart from the volatile keys of seed 003
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


# --------------------------------------------------------------------------- verdict


def _area(change: Change) -> str:
    parts = change.pointer.split("/")
    if len(parts) < 2:
        return "envelope"
    if parts[1] != "params":
        return "envelope"
    if len(parts) == 2:
        return "params member order" if change.change == "member-order" else "params"
    member = parts[2]
    if member == "_meta":
        return "metadata"
    if member in ("requestState", "inputResponses"):
        return "MRTR context"
    if member in ("arguments", "name"):
        if change.change == "member-order":
            return "argument member order"
        if change.change == "number-spelling":
            return "argument number spelling"
        return member
    return "params"


def _member_named(change: Change) -> str:
    """The `_meta` key, MRTR member or pointer a change is reported under in the verdict."""
    key = _meta_key_of(change.pointer)
    if key is not None:
        return key
    parts = change.pointer.split("/")
    if len(parts) > 2 and parts[2] in ("requestState", "inputResponses"):
        return parts[2]
    return change.pointer


def _verdict(
    a: Side, b: Side, rows: list[dict[str, Any]], changes: list[Change]
) -> tuple[str, str]:
    if a.frame is not None and b.frame is not None and a.frame.data == b.frame.data:
        return "identical-bytes", VERDICTS["identical-bytes"]
    no_bytes = a.frame is None or b.frame is None
    if a.ids is None or b.ids is None:
        if (
            no_bytes
            and a.receipt is not None
            and b.receipt is not None
            and not json_diff(a.receipt, b.receipt)
        ):
            return "same-invocation", "same invocation (identical receipt content; no frame bytes)"
        missing = [s.label for s in (a, b) if s.ids is None]
        why = []
        for side in (a, b):
            if side.ids is None:
                if side.analysis is not None and side.analysis.refusals:
                    why.append(f"{side.label} must be refused ({side.analysis.refusals[0].code})")
                elif side.params is None:
                    why.append(f"{side.label} is not a tools/call")
                else:
                    why.append(f"{side.label}: seal cannot build its identities")
        return (
            "not-comparable",
            f"{VERDICTS['not-comparable']} for {', '.join(missing)} (" + "; ".join(why) + ")",
        )
    equal = {r["name"]: r["equal"] for r in rows}
    both_absent = {r["name"] for r in rows if r["a"] is None and r["b"] is None}
    if all(equal[n] or n in both_absent for n in _INVOCATION):
        if no_bytes:
            return "same-invocation", "same invocation (no frame bytes to compare)"
        return "same-invocation", VERDICTS["same-invocation"]
    if equal["effect_v3"] and equal["guard_target_legacy"]:
        areas = sorted({_area(c) for c in changes} - {"envelope", "params member order"})
        named = []
        for area in areas:
            members = sorted({_member_named(c) for c in changes if _area(c) == area})
            named.append(f"{area}: {', '.join(members)}")
        if areas == ["metadata"]:
            named = [f"metadata only: {named[0].split(': ', 1)[1]}"]
        qualifier = "; ".join(named) or "no member-level change"
        return "same-action", f"{VERDICTS['same-action']} ({qualifier})"
    return "different-action", VERDICTS["different-action"]


def _meaning_summary(a: Side, b: Side, changes: list[Change]) -> str:
    if a.frame is not None and b.frame is not None:
        if a.frame.data == b.frame.data:
            return "identical"
        if a.frame.line == b.frame.line:
            return f"terminator only ({a.frame.terminator} vs {b.frame.terminator})"
    if changes:
        kinds = sorted({c.change for c in changes})
        if kinds == ["member-order"]:
            return "member order only"
        if set(kinds) <= {"member-order", "number-spelling"}:
            return "member order and number spelling only"
        return f"{len(changes)} member-level change(s)"
    if a.frame is not None and b.frame is not None and a.message is not None:
        if _strip_insignificant(a.frame.line) == _strip_insignificant(b.frame.line):
            return "whitespace only"
        return "string escape spelling only (parsed values equal)"
    return "no member-level change"


# --------------------------------------------------------------------------- report


def _side_facts(side: Side) -> dict[str, Any]:
    facts: dict[str, Any] = {"source": side.source, "kind": side.kind, "frame_from": side.origin}
    if side.analysis is not None:
        facts["method"] = side.analysis.method
        facts["id"] = side.analysis.request_id
        facts["era"] = side.analysis.era + (" (inferred)" if side.analysis.era_inferred else "")
        facts["admissible"] = side.analysis.admissible
        if side.analysis.refusals:
            facts["refusals"] = [r.code for r in side.analysis.refusals]
    if side.notes:
        facts["notes"] = list(side.notes)
    return facts


def diff_report(a: Side, b: Side, reply: dict[str, JsonValue] | None = None) -> Report:
    """Compare two resolved inputs; exit 0 when the invocation is the same, else 1."""
    checks: list[Check] = []
    facts: dict[str, Any] = {"a": _side_facts(a), "b": _side_facts(b)}
    for side in (a, b):
        checks.extend(
            replace(c, location=f"{side.label}:{c.location or side.origin}") for c in side.integrity
        )
    broken = [s.label for s in (a, b) if any(c.status == "fail" for c in s.integrity)]
    if broken:
        code = "receipt-integrity-failed"
        text = f"{VERDICTS[code]} (receipt {', '.join(broken)}); not diffed"
        checks.append(fail("diff.verdict", text, verdict=code))
        facts["verdict"] = code
        return _finish(a, b, text, checks, facts, 1)
    for side in (a, b):
        checks.extend(info("diff.note", note, side.label) for note in side.notes)

    if a.frame is not None and b.frame is not None:
        bytes_facts = byte_diff(a.frame, b.frame)
        facts["bytes"] = bytes_facts
        if bytes_facts["identical"]:
            checks.append(passed("diff.bytes", f"identical bytes ({a.frame.length} bytes)"))
        else:
            first = bytes_facts["first_difference_offset"]
            checks.append(
                info(
                    "diff.bytes",
                    f"bytes differ first at offset {first}; lengths {a.frame.length} and "
                    f"{b.frame.length}",
                    f"offset {first}",
                )
            )
        if not bytes_facts["terminator_equal"]:
            checks.append(
                info(
                    "diff.terminator",
                    f"terminator differs: A ends {a.frame.terminator}, B ends {b.frame.terminator}",
                )
            )
    else:
        checks.append(
            not_evaluated(
                "diff.bytes",
                "a side has no frame bytes (a receipt without "
                "signed_artifacts.object_a or release_frame)",
            )
        )

    rows = identity_rows(a, b)
    facts["identities"] = {r["name"]: {"a": r["a"], "b": r["b"], "equal": r["equal"]} for r in rows}
    for row in rows:
        check_id = f"diff.identity.{row['name']}"
        if row["equal"] is None:
            checks.append(
                not_evaluated(
                    check_id,
                    "not computed for "
                    + " and ".join(s.label for s, v in ((a, row["a"]), (b, row["b"])) if v is None),
                )
            )
        elif row["equal"]:
            checks.append(passed(check_id, f"{row['name']} equal"))
        else:
            checks.append(info(check_id, f"{row['name']} differs"))

    if a.params is not None and b.params is not None and (a.frame is None or b.frame is None):
        base_a: JsonValue = {"params": a.params}
        base_b: JsonValue = {"params": b.params}
    else:
        base_a, base_b = a.message, b.message
    changes = json_diff(base_a, base_b) if base_a is not None and base_b is not None else []
    facts["meaning"] = {
        "summary": _meaning_summary(a, b, changes),
        "changes": [c.to_dict() for c in changes],
    }
    for change in changes:
        checks.append(
            info(
                f"diff.meaning.{change.change}", f"{_area(change)}: {change.change}", change.pointer
            )
        )
    meta_rows = meta_key_rows(changes)
    facts["meta_keys"] = meta_rows
    for row in meta_rows:
        checks.append(
            info(
                "diff.meta-key",
                f"{row['key']} {row['change']}; option A: "
                f"{row['option_a']}; option C: {row['option_c']}",
                f"/params/_meta/{_pointer_token(row['key'])}",
            )
        )

    retry = retry_view(a, b, reply)
    facts["retry"] = retry
    retry_text = {
        "legitimate": "B is a legitimate multi-round-trip retry of A",
        "not-legitimate": "B is not a legitimate retry of A: " + "; ".join(retry["reasons"]),
        "not-a-retry": "B is not a multi-round-trip retry (no inputResponses or requestState)",
        "not-evaluated": "retry view not evaluated: " + "; ".join(retry["reasons"]),
    }[retry["state"]]
    if retry.get("unchecked"):
        retry_text += " (not checked: " + "; ".join(retry["unchecked"]) + ")"
    checks.append(
        Check(
            "diff.retry",
            "not-evaluated" if retry["state"] == "not-evaluated" else "info",
            retry_text,
        )
    )

    code, text = _verdict(a, b, rows, changes)
    facts["verdict"] = code
    exit_code = 0 if code in SAME_EXIT else 1
    if a.receipt is not None and b.receipt is not None:
        drift = receipt_drift(a.receipt, b.receipt)
        facts["receipt_fields"] = [{**c.to_dict(), "class": cls} for c, cls in drift]
        surface = sorted({c.pointer.split("/")[1] for c, cls in drift if cls != "minor"})
        minor = sorted({c.pointer.split("/")[1] for c, cls in drift if cls == "minor"})
        for change, cls in drift:
            shown = change.to_dict()
            values = " -> ".join(str(shown[k])[:60] for k in ("a", "b") if k in shown)
            checks.append(
                info(f"diff.receipt.{cls}", f"{change.change} in B: {values}", change.pointer)
            )
        if surface:
            text += "; receipts: authorization-surface drift in " + ", ".join(surface)
            exit_code = 1
        elif minor:
            text += "; receipts: minor fields only (" + ", ".join(minor) + ")"
    checks.append(
        Check("diff.verdict", "pass" if exit_code == 0 else "info", text, "", {"verdict": code})
    )
    return _finish(a, b, text, checks, facts, exit_code)


def _finish(
    a: Side, b: Side, text: str, checks: list[Check], facts: dict[str, Any], exit_code: int
) -> Report:
    facts["verdict_text"] = text
    subject = Subject(
        name=f"{a.source} vs {b.source}", outcome=text, checks=tuple(checks), facts=facts
    )
    return Report(
        command="diff",
        subjects=(subject,),
        summary={"verdict": facts["verdict"], "exit_code": exit_code},
        exit_code=exit_code,
        layout="detail",
    )
