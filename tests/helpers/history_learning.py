"""Shared with other test modules by tests/history/test_history_learning.py."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

from sealverify_testkit import mint
from sealverify_testkit.keys import TestKey

from tests.helpers.kernel_minting import CONFIG, GUARDED, HOST, TARGET


def key(name: str) -> TestKey:
    return TestKey(name, hashlib.sha256(f"test-history-learning-{name}".encode()).digest())


CONFIG_KEY, RECEIPT_KEY, APPROVER_KEY = key("config"), key("receipt"), key("approver")
PINS = ("--config-pubkey", CONFIG_KEY.public_hex, "--receipt-pubkey", RECEIPT_KEY.public_hex)


def unpublished_evidence(directory: Path, count: int = 3) -> list[str]:
    """Receipts under keys no one has published, each spending its own nonce; their pins.

    ``count`` of them are written to ``directory``; the pins returned make them VERIFIED, so
    they are receipts history learns from.
    """
    directory.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        ctx = dataclasses.replace(
            HOST,
            config_key=CONFIG_KEY,
            receipt_key=RECEIPT_KEY,
            approver_key=APPROVER_KEY,
            approval_channel="ed25519",
            operation_seed=b"evidence-%d" % n,
        )
        receipt = mint.mint_host_v3(GUARDED, CONFIG, approvals=[TARGET], ctx=ctx)
        (directory / f"r{n}.json").write_bytes(receipt)
    return list(PINS)
