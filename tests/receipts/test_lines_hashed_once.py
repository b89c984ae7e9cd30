"""One SHA-256 of a receipt's request line and one of its host line, whoever reads them.

The request binding (``request_sha256``) and the kernel's audit line both need the raw request
line's digest, ``canonical_request`` and the Object A binding both the host line's: each is
hashed once per receipt (the view's parse keeps the first, the bindings' derivations the
second). A digest handed down is used only for the very bytes it was made of.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from typing import Any

import pytest
from sealverify_testkit import mint
from sealverify_testkit.mint import KERNEL_VALID_CONFIG

from sealverify._internal.kernel.receipt_inputs import ParsedLine
from sealverify._internal.receipts.families import read_document
from sealverify._internal.receipts.verify import verify_receipt
from sealverify._internal.receipts.view import ReceiptView, read_view
from sealverify._internal.wire.framing import raw_line


def _receipts() -> list[bytes]:
    return list(mint.mint_many(8, kernel_config=KERNEL_VALID_CONFIG, ruled_target=False))


def _lines(raw: bytes) -> tuple[bytes, bytes]:
    """The receipt's raw request line and its host line (``canonical_request``), as bytes."""
    read = read_document(raw)
    assert read.document is not None
    view = read_view(read.document, read.family)
    assert view.request_frame is not None
    host = read.document["canonical_request"]
    assert isinstance(host, str)
    return raw_line(view.request_frame), host.encode("utf-8")


def _counting(counts: dict[bytes, int]) -> Callable[..., Any]:
    real = hashlib.sha256

    def sha256(data: bytes = b"", *args: Any, **kwargs: Any) -> Any:
        if bytes(data) in counts:
            counts[bytes(data)] += 1
        return real(data, *args, **kwargs)

    return sha256


def test_each_request_line_and_host_line_is_hashed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    receipts = _receipts()
    counts: dict[bytes, int] = {}
    for raw in receipts:
        for line in _lines(raw):
            counts[line] = 0
    monkeypatch.setattr(hashlib, "sha256", _counting(counts))
    subjects = [verify_receipt(raw, f"r{index}") for index, raw in enumerate(receipts)]
    assert {s.facts.get("rederivation") for s in subjects} == {"pass"}  # the kernel hashed too
    assert set(counts.values()) == {1}, counts


def _with_request(view: ReceiptView, request: ParsedLine) -> ReceiptView:
    return dataclasses.replace(view, frames=dataclasses.replace(view.frames, request=request))


def test_a_digest_of_other_bytes_is_never_used() -> None:
    """A receipt handed another receipt's parsed line, digest made, is judged as without it."""
    first, second = _receipts()[:2]
    read, other = read_document(first), read_document(second)
    assert read.document is not None and other.document is not None
    own = read_view(read.document, read.family)
    foreign = read_view(other.document, other.family).frames.request
    assert foreign is not None and own.frames.request is not None
    assert foreign.raw != own.frames.request.raw
    foreign.sha256()  # its digest is made, as the other receipt's verification made it
    expected = verify_receipt(first, "r").to_dict()
    handed = verify_receipt(first, "r", read=read, view=_with_request(own, foreign))
    assert handed.to_dict() == expected
    statuses = {c["id"]: c["status"] for c in expected["checks"]}
    assert statuses["binding.request-sha256"] == "pass"
    assert expected["facts"]["rederivation"] == "pass"


def test_the_digest_is_of_the_lines_own_bytes() -> None:
    for raw in _receipts()[:3]:
        read = read_document(raw)
        assert read.document is not None
        parsed = read_view(read.document, read.family).frames.request
        assert parsed is not None
        assert parsed.sha256() == hashlib.sha256(parsed.raw).hexdigest()
        assert parsed.sha256() == parsed.sha256()


def test_the_frame_and_its_line_are_hashed_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Object A and its raw line: one SHA-256 over the line, the terminator hashed on."""
    receipts = _receipts()
    lines = {_lines(raw)[0]: 0 for raw in receipts}
    real = hashlib.sha256

    def sha256(data: bytes = b"", *args: Any, **kwargs: Any) -> Any:
        for line in lines:
            if bytes(data).startswith(line):
                lines[line] += 1
        return real(data, *args, **kwargs)

    monkeypatch.setattr(hashlib, "sha256", sha256)
    subjects = [verify_receipt(raw, f"r{index}") for index, raw in enumerate(receipts)]
    framed = {
        next(c for c in s.checks if c.id == "binding.framed-subject").status for s in subjects
    }
    assert framed == {"pass"}
    assert set(lines.values()) == {1}, lines


@pytest.mark.parametrize("tail", [b"", b"\n", b"\r\n", b"\r"])
def test_a_framed_digest_is_the_frames_own(tail: bytes) -> None:
    for raw in _receipts()[:2]:
        read = read_document(raw)
        assert read.document is not None
        parsed = read_view(read.document, read.family).frames.request
        assert parsed is not None
        fresh = ParsedLine(parsed.raw, parsed.value)
        frame = parsed.raw + tail
        assert fresh.framed_sha256(frame) == hashlib.sha256(frame).hexdigest()
        assert fresh.sha256() == hashlib.sha256(parsed.raw).hexdigest()
        other = b" " + frame  # not a frame of this line: hashed as it is
        assert fresh.framed_sha256(other) == hashlib.sha256(other).hexdigest()
        assert parsed.framed_sha256(frame) == hashlib.sha256(frame).hexdigest()  # digest kept
