"""Shared with other test modules by tests/receipts/test_verify_wiring.py."""

from __future__ import annotations

import base64
import json

from sealverify_testkit import mint

from tests.helpers.history_learning import CONFIG_KEY as UNPUBLISHED_CONFIG
from tests.helpers.history_learning import RECEIPT_KEY as UNPUBLISHED_RECEIPT

KERNEL = mint.HostContext().wasm_sha256
# The testkit keys are published keys, allowed here as a test suite that knows it. History
# learns only from receipts under keys that are not published: those of the approvals below.
PINS = [
    "--config-pubkey", mint.CONFIG_KEY.public_hex,
    "--receipt-pubkey", mint.RECEIPT_KEY.public_hex,
    "--config-pubkey", UNPUBLISHED_CONFIG.public_hex,
    "--receipt-pubkey", UNPUBLISHED_RECEIPT.public_hex,
    "--kernel-sha256", KERNEL,
    "--allow-published-keys",
]  # fmt: skip


def block_with_meta() -> tuple[bytes, bytes]:
    """A receipt whose request carries _meta, minted under the current build (re-derived)."""
    meta = (
        '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",'
        '"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        '"io.modelcontextprotocol/clientInfo":{"name":"sealverify-demo","version":"1.0"},'
        '"io.modelcontextprotocol/clientCapabilities":{}}'
    )
    frame = mint.tools_call_frame("search_notes", '{"query":"invoice"}', request_id=3, meta=meta)
    raw = mint.mint_host_v3(frame, mint.DEMO_KERNEL_CONFIG)
    doc = json.loads(raw)
    return raw, base64.b64decode(doc["signed_artifacts"]["object_a"])
