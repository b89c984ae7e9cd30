"""Shared with other test modules by tests/receipts/test_verify_bindings.py."""

from __future__ import annotations

from sealverify._internal.receipts.verify import VerifyOptions, verify_receipt
from sealverify._internal.results.model import Subject
from tests.conftest import shared_path

KIT_V2_CONFIG = "88d2d0c0cbb47cfc637efda0d9dc2f4277dfc7d7e686049fae89ac2153b740c3"


def fixture(relative: str) -> bytes:
    return shared_path("fixtures", "seal", *relative.split("/")).read_bytes()


def flip(hexdigits: str) -> str:
    return hexdigits[:-1] + ("0" if hexdigits[-1] != "0" else "1")


def status_of(subject: Subject, check_id: str) -> set[str]:
    return {c.status for c in subject.checks if c.id == check_id}


def assert_flip(before: bytes, after: bytes, opts: VerifyOptions, check_id: str) -> Subject:
    baseline = verify_receipt(before, "baseline", opts)
    assert status_of(baseline, check_id) == {"pass"}, [
        (c.id, c.reason) for c in baseline.checks if c.status == "fail"
    ]
    assert baseline.outcome != "FAIL"
    mutated = verify_receipt(after, "mutated", opts)
    assert mutated.outcome == "FAIL"
    assert "fail" in status_of(mutated, check_id)
    return mutated


KIT = "seal-assurance-kit/fixtures/object-b-v2-host-04f7ba83.json"
