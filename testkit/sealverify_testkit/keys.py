"""The testkit's Ed25519 keys, derived from public seeds: anyone can sign with them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

__all__ = [
    "APPROVER_KEY",
    "CONFIG_KEY",
    "OTHER_CONFIG_KEY",
    "OTHER_RECEIPT_KEY",
    "RECEIPT_KEY",
    "RFC8032_TEST1_KEY",
    "TestKey",
    "demo_key",
    "demo_operation_id",
]


# Test keys


@dataclass(frozen=True, slots=True)
class TestKey:
    """An Ed25519 key from a public 32-byte seed: for tests only, never for real trust."""

    __test__ = False  # not a pytest test class

    label: str
    seed: bytes

    def _private(self) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(self.seed)

    @property
    def public_key(self) -> bytes:
        """Return the raw 32-byte public key."""
        return self._private().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @property
    def public_hex(self) -> str:
        """Return the public key as 64 lowercase hex, the spelling receipts and pins use."""
        return self.public_key.hex()

    def sign(self, message: bytes) -> bytes:
        """Sign ``message`` (Ed25519 is deterministic, so the result is reproducible)."""
        return self._private().sign(message)


def demo_key(name: str) -> TestKey:
    """The project's test key ``name``: seed = ``sha256(b"sealverify-demo-<name>-key")``."""
    return TestKey(name, hashlib.sha256(f"sealverify-demo-{name}-key".encode()).digest())


CONFIG_KEY = demo_key("config")


RECEIPT_KEY = demo_key("receipt")


OTHER_CONFIG_KEY = demo_key("other-config")


OTHER_RECEIPT_KEY = demo_key("other-receipt")


APPROVER_KEY = demo_key("approver")


# Signs the sample verification summary (fixtures/attest, testkit/attestsample.py).
ATTEST_KEY = demo_key("attest")


# RFC 8032 §7.1 TEST 1: its secret key is published in the RFC; seal's fleet fixtures use it
# as their config signer, which lets tests re-mint those fixtures byte for byte.
RFC8032_TEST1_KEY = TestKey(
    "rfc8032-test-1",
    bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"),
)


def demo_operation_id(seed: bytes) -> str:
    """A fixed stand-in for the host's 32 random bytes: ``sha256("...operation-id" 0 seed)``."""
    return hashlib.sha256(b"sealverify-demo-operation-id\x00" + seed).hexdigest()
