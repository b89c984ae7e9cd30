"""Shared with other test modules by tests/receipts/test_adversarial_receipts.py."""

from __future__ import annotations

from sealverify_testkit import mint

from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import DEFAULT_KERNEL_SHA256, VerifyOptions
from tests.helpers import adversarial_corpus as corpus

PINNED = TrustStore.from_pins(
    config=[mint.CONFIG_KEY.public_hex],
    receipt=[mint.RECEIPT_KEY.public_hex],
    approval=[mint.APPROVER_KEY.public_hex],
)
OPTIONS = VerifyOptions(
    PINNED,
    kernel_pins=(DEFAULT_KERNEL_SHA256, corpus.KERNEL, corpus.DEMO_KERNEL),
    approval_tokens=corpus.approval_tokens(),
    allow_published_keys=True,
)
