"""What several bindings of one receipt share: its view, derived values and locations."""

from __future__ import annotations

import hashlib
from typing import Protocol

from sealverify._internal import fastpath
from sealverify._internal.primitives import identities
from sealverify._internal.receipts.view import RECOVERED, ReceiptView, frame_params, read_view
from sealverify._internal.results.model import Check
from sealverify._internal.wire import serdejson, spelling
from sealverify._internal.wire.strictjson import JsonValue

__all__ = [
    "CANNOT_RECONSTRUCT",
    "RECOVERED",
    "Binding",
    "Derivations",
    "frame_params",
]


Doc = dict[str, JsonValue]


CANNOT_RECONSTRUCT = "cannot reconstruct signed bytes"


# Every location a binding reports is one of a few literal member paths, asked for some thirty
# times per receipt. ``spelling.pointer`` is pure in its arguments, so rendering each path once
# is exact; ``typed`` keeps ``1`` and ``True`` apart. Bounded: the paths are a fixed set.
pointer = fastpath.cache(maxsize=128, typed=True)(spelling.pointer)


def sha256_of(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def compact_exact(value: JsonValue) -> str:
    """Producer (serde) bytes of a value taken from the receipt; numbers must already be exact."""
    return serdejson.compact(value, exact=True)


def mediated_parsed(doc: Doc) -> bool:
    return doc.get("bypass") is False and "request_parse_error" not in doc


class Derivations:
    """What several bindings of one receipt derive from it, each worked out at most once.

    verify makes one per receipt, around the receipt's :class:`ReceiptView` (its frames
    decoded and its request line parsed once), and hands it to every binding; a binding
    called without one makes its own, so each binding stays a function of the document
    alone. Every member is a pure function of the document, which no binding changes, so the
    first result is the one each later binding would have computed. An exception other than
    the refusal a member records is not kept: the next caller computes afresh and raises it.
    """

    __slots__ = ("_config", "_doc", "_line", "_line_sha256", "_policy", "view")

    def __init__(self, doc: Doc, view: ReceiptView | None = None) -> None:
        self._doc = doc
        self.view = view if view is not None else read_view(doc)
        self._line: tuple[str | None, ValueError | None] | None = None
        self._line_sha256: str | None = None
        self._config: tuple[str | None, str] | None = None
        self._policy: tuple[str | None, str | None] | None = None

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

    def line_sha256(self, line: str) -> str:
        """``sha256_of(line)``, hashed once per receipt when ``line`` is :meth:`canonical_line`'s.

        ``canonical_request`` and the Object A binding both hash the record's host line; the
        digest is kept only for that very line, so any other text is hashed as it is.
        """
        if self._line is None or line is not self._line[0]:
            return sha256_of(line)
        if self._line_sha256 is None:
            self._line_sha256 = sha256_of(line)
        return self._line_sha256

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
        return self.view.object_a, self.view.object_a_error

    def request_frame(self) -> tuple[bytes | None, str]:
        """The request frame the decision was made on, and where it came from.

        Object A when the receipt carries ``signed_artifacts``; otherwise, for a release frame
        (an ALLOW under Object B v1), the frame less exactly its operation-id splice. None
        when the receipt carries neither, or the release frame is not such a splice.
        """
        return self.view.request_frame, self.view.request_source


class Binding(Protocol):
    """A binding: its checks for a receipt (``[]`` where it does not apply).

    ``derived`` is the receipt's :class:`Derivations`, shared with its other bindings; a binding
    that derives nothing another one needs ignores it, so all are called alike.
    """

    __name__: str

    def __call__(self, doc: Doc, derived: Derivations | None = None, /) -> list[Check]: ...


def request_params(doc: Doc) -> dict[str, JsonValue]:
    params: dict[str, JsonValue] = {"name": doc.get("tool"), "arguments": doc.get("arguments")}
    for member in ("_meta", "requestState", "inputResponses"):
        if member in doc:
            params[member] = doc[member]
    return params
