"""Shared with other test modules by tests/approvals/test_approvals.py."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from sealverify._internal.wire.strictjson import parse_text

# The executed refusal in seal-host@099be66377052954e7c9381b7f29174b02266b6f docs/DEPLOY.md
# ("Executed v0.1.5 SQLite and approval evidence"): framed_subject base64/length/sha256 and the
# approval challenge the host printed for it, and the approver's printed nonce/authorizedAt.
DEPLOY_FRAME = base64.b64decode(
    "eyJqc29ucnBjIjoiMi4wIiwiaWQiOjMsIm1ldGhvZCI6InRvb2xzL2NhbGwiLCJwYXJhbXMiOnsibmFtZSI6ImV4ZW"
    "N1dGVfc3FsIiwiYXJndW1lbnRzIjp7InNxbCI6ImRyb3AgdGFibGUgaWYgZXhpc3RzIHJlY2VpcHRfc2FuZGJveCJ9"
    "fX0K"
)
DEPLOY_FRAME_SHA256 = "2b572e7e4c0976baf1b7d4f596dec6ebd725208c77956e2f58666eebdd39b03f"
DEPLOY_TARGET = "63e7b1bb1aba1db39fe3fb30836aa6c14a37ac23034198e0bb3d83883f62e740"
DEPLOY_NONCE = "b7a5f0229c8b4dab9a2a177e7b574156"
DEPLOY_AUTHORIZED_AT = 1786327294970
TTL_MS = 120_000  # docs/DEPLOY.md payload.json: ttl_seconds 120
# Deterministic approver key, as the upstream providers.rs tests use (SigningKey [23u8; 32]).
KEY = Ed25519PrivateKey.from_private_bytes(bytes([23]) * 32)
PUB = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
KEY_ID = hashlib.sha256(PUB).hexdigest()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def payload(**changes: Any) -> dict[str, Any]:
    """The upstream test payload shape (providers.rs `v2_payload`) for the DEPLOY.md frame."""
    base: dict[str, Any] = {
        "approval_record_version": 2,
        "target": DEPLOY_TARGET,
        "authorized_at": DEPLOY_AUTHORIZED_AT,
        "expiry": DEPLOY_AUTHORIZED_AT + TTL_MS,
        "nonce": DEPLOY_NONCE,
        "session": "approval-v2-session-1",
        "subject_sha256": DEPLOY_FRAME_SHA256,
        "subject_length": 138,
        "subject_scope": "mcp-jsonrpc-request-frame-including-delimiter",
        "subject_encoding": "bytes",
        "shown_sha256": digest(b"drop table if exists receipt_sandbox"),
        "shown_length": 37,
        "shown_media_type": "text/plain",
        "shown_character_encoding": "utf-8",
        "renderer": {
            "name": "seal-test-renderer",
            "version": "2.0.0",
            "manifest_sha256": digest(b"immutable renderer manifest"),
        },
        "approver": "human@example.test",
        "authorization_signer_key_id": KEY_ID,
        "authorization_signature_algorithm": "Ed25519",
        "authorization_domain": "seal.approval-record/v2",
    }
    base.update(changes)
    return base


def canonical(doc: dict[str, Any]) -> str:
    # Independent of the code under test: for ASCII text without control characters the
    # renderer equals sorted-key, separator-free json.dumps.
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(text: str, key: Ed25519PrivateKey = KEY, **outer: Any) -> bytes:
    sig = key.sign(b"seal.approval-record/v2\x00" + text.encode())
    doc: dict[str, Any] = {
        "payload": text,
        "signature_algorithm": "Ed25519",
        "signature_encoding": "base64url-nopad",
        "signer_key_id": KEY_ID,
        "signature": b64url(sig),
    }
    doc.update(outer)
    return json.dumps(doc, separators=(",", ":")).encode()


def receipt(statement: bytes, nonce: str = DEPLOY_NONCE) -> dict[str, Any]:
    doc = {
        "now": DEPLOY_AUTHORIZED_AT + 5,
        "approval": {
            "approval_identity": {"channel": "ed25519", "key_id": KEY_ID},
            "nonce": nonce,
            "issued_at": DEPLOY_AUTHORIZED_AT,
            "expiry": DEPLOY_AUTHORIZED_AT + TTL_MS,
            "policy_hash": "0" * 64,
        },
        "certs": [
            {"certHash": "1", "kernel": "safety", "reason": DEPLOY_TARGET, "verdict": "allow"}
        ],
        "kernel_config": {"epoch": 1},
        "signed_artifacts": {
            "encoding": "base64",
            "object_a": base64.b64encode(DEPLOY_FRAME).decode(),
            "approval_statement": base64.b64encode(statement).decode(),
        },
    }
    parsed = parse_text(json.dumps(doc))
    assert isinstance(parsed, dict)
    return parsed  # type: ignore[return-value]
