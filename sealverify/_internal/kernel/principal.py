"""Signatures as the kernel checks them: the config envelope and the V2.2 principal envelope.

The kernel verifies Ed25519 with vendored TweetNaCl (mcp-seal-dev ``SealV2/Crypto.lean``,
``c/seal_ed25519.c``). TweetNaCl does not require the scalar ``S`` to be below the group order
``L``; it multiplies the base point by the full 256-bit ``S``, which equals multiplying by
``S mod L``. So its verdict is the OpenSSL verdict on the signature with ``S`` reduced mod ``L``
(both decode keys and compare the encoded ``R`` alike). ``verify_envelope`` mirrors seal-host
``Host/Principal.lean``: the first registry entry with the claimed id, 32-byte key, authority and
nonce, and a signature over ``tag || authority || u64be(len keyId) || keyId || nonce ||
u64be(issuedAt) || line``.
"""

from __future__ import annotations

from collections.abc import Mapping

from sealverify._internal.kernel.config import PrincipalKey
from sealverify._internal.primitives.signatures import ED25519_L, ed25519_verify_openssl

__all__ = ["ENVELOPE_TAG", "hex_decode", "nacl_verify", "verify_envelope"]

ENVELOPE_TAG = b"seal/v2.2/principal-envelope\x00"
_HEX = frozenset("0123456789abcdefABCDEF")


def hex_decode(text: str) -> bytes | None:
    """``SealV2.hexDecode?``: pairs of hex digits (either case); None on odd length or junk."""
    if len(text) % 2 or not _HEX.issuperset(text):
        return None
    return bytes.fromhex(text)


def nacl_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """``SealV2.ed25519Verify``: TweetNaCl's ``crypto_sign_open`` verdict."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    scalar = int.from_bytes(signature[32:], "little") % ED25519_L
    return ed25519_verify_openssl(
        public_key, message, signature[:32] + scalar.to_bytes(32, "little")
    )


def _u64be(value: int) -> bytes:
    return (value % (1 << 64)).to_bytes(8, "big")


def verify_envelope(
    authority: bytes,
    registry: Mapping[str, PrincipalKey],
    key_id: str,
    sig_hex: str,
    nonce_hex: str,
    issued_at: int,
    line: str,
) -> str | None:
    """``Host.verifyEnvelope``: the registered principal id, or None (fail closed).

    ``registry`` maps each id to its first registry entry (``PrincipalsConfig.by_id``).
    """
    key = registry.get(key_id)
    if key is None:
        return None
    public_key, signature, nonce = (
        hex_decode(key.pubkey),
        hex_decode(sig_hex),
        hex_decode(nonce_hex),
    )
    if public_key is None or signature is None or nonce is None:
        return None
    if len(authority) != 32 or len(public_key) != 32 or len(nonce) != 32:
        return None
    key_bytes = key_id.encode("utf-8")
    message = (
        ENVELOPE_TAG
        + authority
        + _u64be(len(key_bytes))
        + key_bytes
        + nonce
        + _u64be(issued_at)
        + line.encode("utf-8")
    )
    return key.id if nacl_verify(public_key, message, signature) else None
