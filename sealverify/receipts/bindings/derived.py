"""What several bindings of one receipt share: its derived values, caches and locations."""

from __future__ import annotations

import functools
import hashlib
from typing import Protocol

from sealverify.receipts import families as receipts
from sealverify.reports.model import Check
from sealverify.seal import identities
from sealverify.seal.releaseframe import unsplice_operation_id
from sealverify.seal.signatures import (
    b64_std_decode_canonical,
)
from sealverify.wire import serdejson
from sealverify.wire.framing import raw_line
from sealverify.wire.strictjson import (
    JsonError,
    JsonValue,
    parse_bytes,
)

__all__ = [
    "CANNOT_RECONSTRUCT",
    "Binding",
    "Derived",
    "b64_decode_cached",
    "frame_params",
    "parse_frame_cached",
]


Doc = dict[str, JsonValue]


CANNOT_RECONSTRUCT = "cannot reconstruct signed bytes"


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


def sha256_of(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def compact_exact(value: JsonValue) -> str:
    """Producer (serde) bytes of a value taken from the receipt; numbers must already be exact."""
    return serdejson.compact(value, exact=True)


def mediated_parsed(doc: Doc) -> bool:
    return doc.get("bypass") is False and "request_parse_error" not in doc


class Derived:
    """What several bindings of one receipt derive from it, each worked out at most once.

    verify makes one per receipt and hands it to every binding; a binding called without one
    makes its own, so each binding stays a function of the document alone. Every member is a
    pure function of the document, which no binding changes, so the first result is the one
    each later binding would have computed. An exception other than the refusal a member
    records is not kept: the next caller computes afresh and raises it again.
    """

    __slots__ = ("_config", "_doc", "_frame", "_line", "_object_a", "_policy")

    def __init__(self, doc: Doc) -> None:
        self._doc = doc
        self._line: tuple[str | None, ValueError | None] | None = None
        self._config: tuple[str | None, str] | None = None
        self._policy: tuple[str | None, str | None] | None = None
        self._object_a: tuple[bytes | None, str | None] | None = None
        self._frame: tuple[bytes | None, str] | None = None

    def canonical_line(self) -> tuple[str | None, ValueError | None]:
        """The host line of the record's own params, or None and the refusal.

        Callers check first that ``tool`` is a string and ``arguments`` an object.
        """
        if self._line is None:
            try:
                self._line = identities.canonical_request(request_params(self._doc)), None
            except ValueError as exc:  # NumberNotRepresentable is one
                self._line = None, exc
        return self._line

    def config_text(self) -> tuple[str | None, str]:
        """Compact ``kernel_config`` (``null`` when absent), or None and why it cannot be."""
        if self._config is None:
            try:
                self._config = compact_exact(self._doc.get("kernel_config")), ""
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
                self._policy = (None, error) if text is None else (sha256_of(text), None)
        return self._policy

    def object_a(self) -> tuple[bytes | None, str | None]:
        """Object A's bytes, or None and what is wrong with ``signed_artifacts`` (if any)."""
        if self._object_a is None:
            self._object_a = object_a_bytes(self._doc)
        return self._object_a

    def request_frame(self) -> tuple[bytes | None, str]:
        """The request frame the decision was made on, and where it came from.

        Object A when the receipt carries ``signed_artifacts``; otherwise, for a release frame
        (an ALLOW under Object B v1), the frame less exactly its operation-id splice. None
        when the receipt carries neither, or the release frame is not such a splice.
        """
        if self._frame is None:
            frame, _ = self.object_a()
            if frame is not None or "signed_artifacts" in self._doc:
                self._frame = frame, "Object A"
            else:
                self._frame = recovered_object_a(self._doc), RECOVERED
        return self._frame


class Binding(Protocol):
    """A binding: its checks for a receipt (``[]`` where it does not apply).

    ``derived`` is the receipt's :class:`Derived`, shared with its other bindings; a binding
    that derives nothing another one needs ignores it, so all are called alike.
    """

    __name__: str

    def __call__(self, doc: Doc, derived: Derived | None = None, /) -> list[Check]: ...


def request_params(doc: Doc) -> dict[str, JsonValue]:
    params: dict[str, JsonValue] = {"name": doc.get("tool"), "arguments": doc.get("arguments")}
    for member in ("_meta", "requestState", "inputResponses"):
        if member in doc:
            params[member] = doc[member]
    return params


RECOVERED = "Object A recovered from the release frame"


def release_frame_bytes(doc: Doc) -> bytes | None:
    """The decoded ``release_frame.base64``, or None when there is none to decode."""
    frame = doc.get("release_frame")
    if not isinstance(frame, dict) or not isinstance(frame.get("base64"), str):
        return None
    try:
        return b64_decode_cached(str(frame["base64"]))
    except ValueError:
        return None


def recovered_object_a(doc: Doc) -> bytes | None:
    """Object A as a release frame carries it: the frame less its operation-id splice."""
    release = release_frame_bytes(doc)
    operation_id = doc.get("operation_id")
    if release is None or not isinstance(operation_id, str):
        return None
    return unsplice_operation_id(release, operation_id)


def object_a_bytes(doc: Doc) -> tuple[bytes | None, str | None]:
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
