"""A received receipt read once: its carried frames, request line and time, for every check.

verify builds one :class:`ReceiptView` per received document (:func:`read_view`) and hands it
to every binding, the approval binding, the wording lint, the attestation check and the
kernel re-derivation: Object A, the release frame and the approval statement are
base64-decoded here once, and the request line is strictly parsed here once. Two readings of
one text are kept apart because the checks differ in what they accept: the bindings take
Object A only in canonical base64 under the ``signed_artifacts`` member rules, while the
re-derivation, the wording lint, the approval token and the attestation read whatever
standard base64 gives (``Frames``); for a canonical text (every honest receipt) the two are
the very same bytes, and a non-canonical text is decoded a second time only to say why.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from sealverify._internal.approvals.consumed import SignedTime, receipt_server
from sealverify._internal.kernel.receipt_inputs import Frames, ParsedLine
from sealverify._internal.primitives.releaseframe import unsplice_operation_id
from sealverify._internal.primitives.signatures import b64_std_decode_canonical
from sealverify._internal.results.vocabulary import Family
from sealverify._internal.wire.framing import raw_line
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonValue,
    decode_utf8,
    parse_bytes,
    parse_text,
    uint_value,
)

__all__ = ["RECOVERED", "ReceiptView", "meta_keys", "read_view", "signed_time"]

Doc = dict[str, JsonValue]

RECOVERED = "Object A recovered from the release frame"

_MEMBERS = "signed_artifacts members must be encoding, object_a[, approval_statement]"
_ENCODING = 'signed_artifacts.encoding must be "base64" and object_a a string'


@dataclass(frozen=True, slots=True)
class Decoded:
    """One base64 text decoded: canonical bytes or why not, and what standard base64 gives."""

    canonical: bytes | None
    lenient: bytes | None
    error: str | None  # why the text is not canonical padded base64 (None: it is)


_ABSENT = Decoded(None, None, None)


def decode(text: str, known: bytes | None = None) -> Decoded:
    """``text`` decoded once; a text the canonical rule refuses is decoded leniently as well.

    ``known`` is what an earlier reader decoded the text to: taken, without decoding again,
    when its canonical encoding is exactly ``text`` (the canonical rule's own re-encode test).
    """
    if known is not None and binascii.b2a_base64(known, newline=False).decode() == text:
        return Decoded(known, known, None)
    try:
        data = b64_std_decode_canonical(text)
    except ValueError as exc:
        try:
            lenient: bytes | None = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            lenient = None
        return Decoded(None, lenient, str(exc))
    return Decoded(data, data, None)


@dataclass(frozen=True, slots=True)
class ReceiptView:
    """What every check of one receipt reads of it, decoded and parsed once.

    ``frames`` are the carried frames as standard base64 gives them (re-derivation, wording,
    approval token, attestation). ``object_a`` is Object A under the bindings' rules, or None
    and ``object_a_error`` (None too when there is no ``signed_artifacts``). ``release`` is the
    release frame's canonical decoding, ``release_error`` why there is none (for a
    ``release_frame`` object). ``request_frame`` is the frame the decision was made on (Object
    A, or recovered from the release frame, ``request_source`` says which), ``request`` the
    strict parse of its raw line or the refusal. ``meta_keys`` are the ``_meta`` names of the
    carried Object A's request (None: no frame, or it does not parse). ``statement`` is the
    approval statement's decoding, when it is a string.
    """

    frames: Frames
    object_a: bytes | None
    object_a_error: str | None
    release: bytes | None
    release_error: str | None
    request_frame: bytes | None
    request_source: str
    request: JsonValue | JsonError
    meta_keys: frozenset[str] | None
    statement: Decoded | None
    time: SignedTime
    server: tuple[str, str] | None

    def request_params(self) -> dict[str, JsonValue] | None:
        """The ``params`` object of the request line, or None if it has none (read only)."""
        return _params(self.request)

    def params_of(self, frame: bytes) -> dict[str, JsonValue] | None:
        """The ``params`` of ``frame``'s raw line: the request's own parse when it is the frame."""
        if frame is self.request_frame or frame == self.request_frame:
            return self.request_params()
        return frame_params(frame)

    def parse_body(self, body: bytes) -> JsonValue:
        """A strict parse of ``body``, the request's own when it is the request line."""
        if self.request_frame is not None and body == raw_line(self.request_frame):
            if isinstance(self.request, JsonError):
                raise self.request
            return self.request
        return parse_bytes(body)


def _params(message: JsonValue | JsonError) -> dict[str, JsonValue] | None:
    params = message.get("params") if isinstance(message, dict) else None
    return params if isinstance(params, dict) else None


def frame_params(frame: bytes) -> dict[str, JsonValue] | None:
    """The ``params`` object of a frame's raw line (parsed here), or None if it has none."""
    try:
        return _params(parse_bytes(raw_line(frame)))
    except JsonError:
        return None


def signed_time(doc: Doc, family: str | None) -> SignedTime:
    """The receipt's time, when a verified signature covers it, else None and why not.

    Only Object B (v3) signs ``now``; on every other family ``now`` is the kernel's logical
    clock that nothing signs, so no pin window or expiry is judged at it (docs/claims.md).
    A v3 record whose Object B fails is FAIL whatever its time says.
    """
    if family != Family.V3:
        return SignedTime(None, f"a {family} receipt's now is covered by no signature")
    now = uint_value(doc.get("now"))
    return SignedTime(now) if now is not None else SignedTime(None, "the receipt carries no now")


def meta_keys(message: JsonValue) -> frozenset[str]:
    """The ``_meta`` member names of a request message (none when it has no ``_meta`` object)."""
    params = _params(message)
    meta = params.get("_meta") if params is not None else None
    return frozenset(meta) if isinstance(meta, dict) else frozenset()


def _object_a(doc: Doc, known: bytes | None) -> tuple[Decoded, bytes | None, str | None]:
    """``signed_artifacts.object_a`` decoded, and Object A under the bindings' rules or why not."""
    artifacts = doc.get("signed_artifacts")
    if not isinstance(artifacts, dict):
        return _ABSENT, None, None
    text = artifacts.get("object_a")
    decoded = decode(text, known) if isinstance(text, str) else _ABSENT
    if set(artifacts) not in (
        {"encoding", "object_a"},
        {"encoding", "object_a", "approval_statement"},
    ):
        return decoded, None, _MEMBERS
    if artifacts.get("encoding") != "base64" or not isinstance(text, str):
        return decoded, None, _ENCODING
    if decoded.error is not None:
        return decoded, None, f"signed_artifacts.object_a: {decoded.error}"
    return decoded, decoded.canonical, None


def _release(doc: Doc, known: bytes | None) -> Decoded | None:
    """``release_frame.base64`` decoded (a text that is no string: its refusal), or None."""
    frame = doc.get("release_frame")
    if not isinstance(frame, dict):
        return None
    text = frame.get("base64")
    if isinstance(text, str):
        return decode(text, known)
    return Decoded(None, None, "not a string" if "base64" in frame else "missing")


def _request_frame(
    doc: Doc, object_a: bytes | None, release: Decoded | None, parsed: dict[bytes, JsonValue]
) -> tuple[bytes | None, str]:
    """The request frame the decision was made on, and where it came from.

    Object A when the receipt carries ``signed_artifacts``; otherwise, for a release frame
    (an ALLOW under Object B v1), the frame less exactly its operation-id splice, whose
    round trip parses the request's body: that parse is kept in ``parsed``, by body.
    """
    if object_a is not None or "signed_artifacts" in doc:
        return object_a, "Object A"
    operation_id = doc.get("operation_id")
    if release is None or release.canonical is None or not isinstance(operation_id, str):
        return None, RECOVERED

    def kept(body: bytes) -> JsonValue:
        value = parsed[body] = parse_bytes(body)
        return value

    return unsplice_operation_id(release.canonical, operation_id, parse=kept), RECOVERED


def _parse_line(frame: bytes | None, parsed: dict[bytes, JsonValue]) -> JsonValue | JsonError:
    """The request line strictly parsed (the recovery's parse of these very bytes, when made)."""
    if frame is None:
        return JsonError("json.absent", "no request frame")
    line = raw_line(frame)
    if line in parsed:
        return parsed[line]
    try:
        return parse_bytes(line)
    except JsonError as exc:
        return exc


def _carried_meta_keys(
    carried: bytes | None, frame: bytes | None, request: JsonValue | JsonError
) -> frozenset[str] | None:
    """The ``_meta`` names of the carried Object A's request, from the one parse when it is it.

    The size limit of the strict parse is the only refusal the wording lint does not share
    (it reads any line's names), so only an oversized line is parsed again, without it.
    """
    if carried is None:
        return None
    if carried is frame or carried == frame:
        if not isinstance(request, JsonError):
            return meta_keys(request)
        if request.code != "json.too-large":
            return None
    try:
        return meta_keys(parse_text(decode_utf8(raw_line(carried))))
    except JsonError:
        return None


def _statement(doc: Doc) -> Decoded | None:
    artifacts = doc.get("signed_artifacts")
    text = artifacts.get("approval_statement") if isinstance(artifacts, dict) else None
    return decode(text) if isinstance(text, str) else None


def read_view(doc: Doc, family: str | None = None, known: Frames | None = None) -> ReceiptView:
    """The view of one received receipt document (``family`` as the reader found it).

    ``known`` are frames an earlier reader of the same document decoded (a run's session
    pass, in another process): a frame is taken from them only when it is the canonical
    decoding of the text the document carries (:func:`decode`), so nothing is decoded twice.
    """
    carried, object_a, object_a_error = _object_a(doc, known.object_a if known else None)
    release = _release(doc, known.release if known else None)
    parsed: dict[bytes, JsonValue] = {}  # a recovered request's body, as the splice read it
    frame, source = _request_frame(doc, object_a, release, parsed)
    request = _parse_line(frame, parsed)
    lenient = release.lenient if release is not None else None
    # The recovery was made of the canonical bytes: the step may use it when they are its own.
    same = release is not None and lenient is not None and lenient == release.canonical
    recovered = frame if source == RECOVERED and same else None
    # The request line's parse, with the very bytes it was made of: the re-derivation takes
    # it for its judged line only when that line is these bytes.
    handed = None
    if frame is not None and not isinstance(request, JsonError):
        handed = ParsedLine(raw_line(frame), request)
    return ReceiptView(
        frames=Frames(carried.lenient, lenient, recovered, handed),
        object_a=object_a,
        object_a_error=object_a_error,
        release=release.canonical if release is not None else None,
        release_error=release.error if release is not None else None,
        request_frame=frame,
        request_source=source,
        request=request,
        meta_keys=_carried_meta_keys(carried.lenient, frame, request),
        statement=_statement(doc),
        time=signed_time(doc, family),
        server=receipt_server(doc),
    )
