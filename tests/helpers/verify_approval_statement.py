"""Shared with other test modules by tests/receipts/test_verify_approval_statement.py."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from sealverify_testkit import mint

from sealverify._internal.cli.main import cli
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import DEFAULT_KERNEL_SHA256, VerifyOptions

DEMO_WASM = mint.DEMO_WASM_SHA256  # the made-up build, pinned as a user may
# The testkit keys are published keys: allowed here, as a test suite that knows it.
OPTS = VerifyOptions(
    TrustStore.from_pins(
        config=[mint.CONFIG_KEY.public_hex],
        receipt=[mint.RECEIPT_KEY.public_hex],
        approval=[mint.APPROVER_KEY.public_hex],
    ),
    (DEFAULT_KERNEL_SHA256, DEMO_WASM),
    allow_published_keys=True,
)


def verify_with_approvals(receipt: Path, tokens: Path) -> tuple[int, str, set[tuple[str, str]]]:
    """``verify`` of one minted receipt with its tokens, every testkit key pinned.

    Returns the exit code, the output and every ``(check id, status)`` of the JSON report.
    """
    args = [
        "verify",
        str(receipt),
        "--config-pubkey",
        mint.CONFIG_KEY.public_hex,
        "--receipt-pubkey",
        mint.RECEIPT_KEY.public_hex,
        "--approval-pubkey",
        mint.APPROVER_KEY.public_hex,
        "--kernel-sha256",
        DEMO_WASM,
        "--approvals",
        str(tokens),
        "--allow-published-keys",
        "--format",
        "json",
    ]
    result = CliRunner().invoke(cli, args)
    report = json.loads(result.stdout)
    checks = {(c["id"], c["status"]) for s in report["subjects"] for c in s["checks"]}
    return result.exit_code, result.output, checks
