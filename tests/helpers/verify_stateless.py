"""Shared with other test modules by tests/kernel/test_verify_stateless.py."""

from __future__ import annotations

from collections.abc import Sequence

from sealverify_testkit.kernel_model import overall_verdict
from sealverify_testkit.records import Cert, emitted_bytes

from sealverify._internal.kernel.ljson import parse
from sealverify._internal.wire.strictjson import JsonNumber, parse_bytes
from tests.helpers.kernel_minting import (
    Receipt,
)


def parsed_receipt(raw: bytes) -> Receipt:
    doc = parse_bytes(raw)
    assert isinstance(doc, dict)
    return doc


def restate(doc: Receipt, certs: Sequence[Cert], blame: str | None = None) -> Receipt:
    """The receipt re-written, consistently everywhere, to claim these certs (and blame)."""
    out = parse(str(doc["emitted_bytes"]))
    assert isinstance(out, dict)
    audit = parse(str(out["audit"]))
    assert isinstance(audit, dict)
    sha = str(audit.get("request_sha256", ""))
    emitted = emitted_bytes(JsonNumber("1"), str(audit["tool"]), certs, sha, JsonNumber("1"))
    if blame is not None:
        step = parse(emitted)
        assert isinstance(step, dict)
        first = next(c.reason for c in certs if c.verdict == "deny")
        emitted = emitted.replace(f"approval required: {first}", f"approval required: {blame}")
    doc["emitted_bytes"] = emitted
    host = "record_type" in doc
    doc["certs"] = [c.host_form() if host else c.fleet_form() for c in certs]
    verdict, reason, deny_kernel = overall_verdict(certs)
    doc["verdict"], doc["reason"], doc["deny_kernel"] = verdict, reason, deny_kernel
    return doc
