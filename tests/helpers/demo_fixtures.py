"""Shared with other test modules by tests/cli/test_demo_fixtures.py."""

from __future__ import annotations

# What each demo file shows once published keys are allowed (fixtures/demo/README.md).
DEMO_ALLOWED_OUTCOMES = {
    "verified-block.receipt.json": "VERIFIED",
    "verified-allow.receipt.json": "VERIFIED",
    "verified-fleet-v2.receipt.json": "VERIFIED",
    "reduced-unparseable.receipt.json": "REDUCED",
    "reduced-unknown-build.receipt.json": "REDUCED",
    "other-signer.receipt.json": "FAIL",
    "fail-forged-binding.receipt.json": "FAIL",
    "fail-edited-arguments.receipt.json": "FAIL",
    "fail-bypass.receipt.json": "FAIL",
    "receipts.jsonl:1": "VERIFIED",
    "receipts.jsonl:2": "VERIFIED",
    "receipts.jsonl:4": "VERIFIED",
    "receipts.jsonl:5": "REDUCED",
}
