"""Signing and verifying keys for attestations, read with securesystemslib's signer API.

A private key is an Ed25519 or ECDSA P-256 key in PEM (PKCS#8 or the key type's own PEM, not
encrypted); securesystemslib's ``CryptoSigner`` signs with it and names it by the key id
securesystemslib computes (the SHA-256 of its canonical key dictionary). A public key is a PEM
SubjectPublicKeyInfo or a raw Ed25519 key as 64 hex digits.
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.serialization import load_pem_private_key, load_pem_public_key
from securesystemslib.signer import CryptoSigner, SSlibKey

from sealverify._internal.wire.spelling import hex64_any_case
from sealverify.errors import InputFileError

__all__ = ["AttestKeyError", "public_key", "signer"]


class AttestKeyError(InputFileError):
    """A signing or verifying key that cannot be used (the CLI: exit 2)."""


def signer(pem: bytes, source: str) -> CryptoSigner:
    """A securesystemslib signer for an Ed25519 or ECDSA P-256 private key in PEM."""
    try:
        key = load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as exc:
        raise AttestKeyError(f"{source}: not an unencrypted PEM private key ({exc})") from None
    except Exception as exc:  # cryptography's UnsupportedAlgorithm and kin
        raise AttestKeyError(f"{source}: {type(exc).__name__}: {exc}") from None
    if isinstance(key, ec.EllipticCurvePrivateKey) and not isinstance(key.curve, ec.SECP256R1):
        raise AttestKeyError(f"{source}: an ECDSA key must be on P-256, not {key.curve.name}")
    if not isinstance(key, ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey):
        raise AttestKeyError(f"{source}: expected an Ed25519 or ECDSA P-256 private key")
    return CryptoSigner(key)


def public_key(text: bytes, source: str) -> SSlibKey:
    """A securesystemslib public key: a PEM SubjectPublicKeyInfo, or 64 hex digits (Ed25519)."""
    stripped = text.strip()
    if hex64_any_case(stripped.decode("ascii", "replace")):
        raw = bytes.fromhex(stripped.decode("ascii"))
        try:
            return SSlibKey.from_crypto(ed25519.Ed25519PublicKey.from_public_bytes(raw))
        except ValueError as exc:
            raise AttestKeyError(f"{source}: {exc}") from None
    try:
        key = load_pem_public_key(stripped)
    except (ValueError, TypeError) as exc:
        raise AttestKeyError(
            f"{source}: expected a PEM public key or 64 hex digits ({exc})"
        ) from None
    except Exception as exc:  # cryptography's UnsupportedAlgorithm and kin
        raise AttestKeyError(f"{source}: {type(exc).__name__}: {exc}") from None
    try:
        return SSlibKey.from_crypto(key)
    except ValueError as exc:  # a key type securesystemslib does not support
        raise AttestKeyError(f"{source}: {exc}") from None
