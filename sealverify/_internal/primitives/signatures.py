"""Ed25519 verification and the strict key, id and base64 spellings seal receipts use."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import sys
from collections.abc import Callable

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from nacl.bindings import crypto_sign_open
from nacl.exceptions import BadSignatureError

from sealverify._internal import fastpath
from sealverify._internal.wire.spelling import HEX64, hex64_any_case

__all__ = [
    "ED25519_L",
    "b64_std_decode_canonical",
    "b64url_nopad_decode",
    "ed25519_verify",
    "ed25519_verify_openssl",
    "ed25519_verify_sodium",
    "hex_key",
    "key_id",
    "s_below_order",
    "weak_key_reason",
]

# Order of the Ed25519 base point (RFC 8032 §5.1). seal-host refuses signatures whose scalar
# S = sig[32:64] (little-endian) is >= L (seal-host rust/src/ed25519.rs); so do we, explicitly,
# instead of trusting whatever the backing library happens to do.
ED25519_L = 2**252 + 27742317777372353535851937790883648493

_B64URL_ALPHABET = re.compile(r"[A-Za-z0-9_-]*")
_B64_STD_CANONICAL = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


_P = 2**255 - 19
_Y_MASK = (1 << 255) - 1
# The y coordinates of the eight points of small order (the identity y = 1, order 2 y = -1,
# order 4 y = 0, order 8 y = +-Y8): on such a key, (R = identity, S = 0) verifies for many
# messages under a cofactorless check, so anyone can forge for it. OpenSSL accepts these
# keys, libsodium refuses them; sealverify refuses them whichever backend answers.
_Y8 = 0x05FC536D880238B13933C6D305ACDFD5F098EFF289F4C345B027B2C28F95E826
_SMALL_ORDER_Y = frozenset({0, 1, _P - 1, _Y8, _P - _Y8})


def weak_key_reason(public_key: bytes) -> str | None:
    """Why a raw Ed25519 key can never authenticate anything, or None for a usable one.

    Refused: a key that is not 32 bytes, a non-canonical encoding (y >= p), and every
    encoding of a point of small order (the identity included).
    """
    if len(public_key) != 32:
        return f"public key is {len(public_key)} bytes, not 32"
    y = int.from_bytes(public_key, "little") & _Y_MASK
    if y >= _P:
        return "public key is not canonically encoded (y >= p)"
    if y in _SMALL_ORDER_Y:
        return (
            "public key is a point of small order (the identity or a torsion point): any "
            "signature can be forged for it"
        )
    return None


def s_below_order(signature: bytes) -> bool:
    """Tell whether a 64-byte signature's scalar S (little-endian ``sig[32:]``) is below L."""
    return len(signature) == 64 and int.from_bytes(signature[32:], "little") < ED25519_L


def ed25519_verify_openssl(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """The reference verdict: OpenSSL (via ``cryptography``) after seal's S < L and key rules.

    False for a key that is not 32 bytes, a signature that is not 64 bytes, a scalar S >= L,
    a small-order or non-canonically encoded key (:func:`weak_key_reason`), a key that is
    not a curve point, or a signature that does not verify. Never raises.
    """
    if weak_key_reason(public_key) or len(signature) != 64 or not s_below_order(signature):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def ed25519_verify_sodium(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """The libsodium verdict (``crypto_sign_open``) after the same key, length and S < L rules.

    libsodium is stricter than OpenSSL on some inputs (non-canonical R); docs/performance.md
    lists the cases. Never raises.
    """
    if weak_key_reason(public_key) or len(signature) != 64 or not s_below_order(signature):
        return False
    # Both calls reach the one libsodium routine (crypto_sign_ed25519_open verifies with
    # crypto_sign_ed25519_verify_detached, then copies the message out): the same verdict
    # (tests/primitives/test_signatures_backends.py compares them over all of Wycheproof).
    detached = None if fastpath.reference() else _detached()
    if detached is None:
        return _sodium_open(public_key, message, signature)
    return detached(signature, bytes(message), len(message), bytes(public_key)) == 0


def _sodium_open(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """The libsodium verdict through PyNaCl's ``crypto_sign_open`` (the reference call)."""
    try:
        crypto_sign_open(signature + message, public_key)
    except (BadSignatureError, ValueError):
        return False
    return True


_Detached = Callable[[bytes, bytes, int, bytes], int]
_LOADED: dict[str, _Detached | None] = {}


def _detached() -> _Detached | None:
    """``crypto_sign_verify_detached(sig, m, mlen, pk)`` of PyNaCl's own libsodium, or None.

    PyNaCl's binding leaves the detached call out; its ``crypto_sign_open`` joins signature
    and message and copies the message out, which costs about 60 K instructions per Object B
    preimage (docs/performance.md). So the routine is called by name from the library PyNaCl
    loaded (its exported symbol, or its libsodium's), through ctypes, imported on first use.
    None where the symbol cannot be found: ``crypto_sign_open`` answers instead. Callers pass
    a 64-byte signature and a 32-byte key (checked first), bytes only.
    """
    if "verify" not in _LOADED:
        _LOADED["verify"] = _load_detached()
    return _LOADED["verify"]


def _load_detached() -> _Detached | None:
    import ctypes  # only a run that verifies a signature pays for it

    # The compiled module PyNaCl's bindings loaded (nacl.bindings imports it): its libsodium.
    library = getattr(sys.modules.get("nacl._sodium"), "__file__", None)
    if not isinstance(library, str):
        return None
    try:
        function = ctypes.CDLL(library).crypto_sign_verify_detached
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulonglong, ctypes.c_char_p]
    function.restype = ctypes.c_int
    verify: _Detached = function
    return verify


def ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Return True only for a valid Ed25519 signature by the raw 32-byte key over ``message``.

    The verdict is always :func:`ed25519_verify_openssl`'s. libsodium answers first
    (docs/adr/0005-ed25519-libsodium-then-openssl.md): its acceptance is final, because every
    signature libsodium accepts OpenSSL accepts too (proven over all of Wycheproof and seal's
    S and encoding rules in tests/primitives/test_signatures_backends.py); a rejection is confirmed
    by OpenSSL, since libsodium rejects some inputs (non-canonical R) that OpenSSL accepts.
    Small-order and non-canonical keys are refused before either is asked
    (:func:`weak_key_reason`): OpenSSL alone would accept forgeries for them. Invalid
    signatures are rare in a real store, so they may cost both.
    """
    if ed25519_verify_sodium(public_key, message, signature):
        return True
    return ed25519_verify_openssl(public_key, message, signature)


def b64url_nopad_decode(text: str) -> bytes:
    """Decode strict, canonical base64url without padding; ValueError says what is wrong.

    Only ``[A-Za-z0-9_-]`` is accepted (no ``=``, no whitespace, no ``+/``), a length of 1 mod 4
    is impossible, and the unused low bits of the last character must be zero, so every byte
    string has exactly one accepted spelling (as Rust's ``URL_SAFE_NO_PAD`` and seal-check's
    ``base64Bytes`` require).
    """
    if text.isascii():
        # "+", "/" and "=" become "*", which the strict decoder refuses like any non-alphabet byte.
        padded = text.encode().translate(_URL_TO_STD_ONLY) + b"=" * (-len(text) % 4)
        data = _b64_strict(padded)
        if data is not None and _canonical_tail(padded):
            return data
    return _b64url_nopad_decode_strict(text)


def _b64_strict(text: bytes) -> bytes | None:
    """The bytes ``binascii`` decodes in strict mode (alphabet, padding placement), or None."""
    try:
        return binascii.a2b_base64(text, strict_mode=True)
    except binascii.Error:
        return None


# The standard alphabet in value order. Before "==" a canonical encoder writes a character
# whose low 4 bits are zero (every 16th), before "=" one whose low 2 bits are zero (every 4th).
_STD_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_BEFORE_TWO_PADS = _STD_ALPHABET[::16]
_BEFORE_ONE_PAD = _STD_ALPHABET[::4]


def _canonical_tail(padded: bytes) -> bool:
    """Whether a text strict decoding accepted is the encoder's own spelling of its bytes.

    Exact (tests/primitives/test_base64_tail.py holds it to the re-encode definition): strict
    decoding leaves only the length, excess padding and the unused bits of the last data
    character to decide, and only the final characters carry them.
    """
    if len(padded) % 4:
        return False
    if padded.endswith(b"=="):
        return padded[-3] in _BEFORE_TWO_PADS
    if padded.endswith(b"="):
        return padded[-2] in _BEFORE_ONE_PAD
    return True


_URL_TO_STD_ONLY = bytes.maketrans(b"-_+/=", b"+/***")


def _b64url_nopad_decode_strict(text: str) -> bytes:
    """The rule-by-rule reference for :func:`b64url_nopad_decode`, with its error messages."""
    if not _B64URL_ALPHABET.fullmatch(text):
        bad = next(ch for ch in text if not _B64URL_ALPHABET.fullmatch(ch))
        raise ValueError(f"base64url-nopad: character {bad!r} is not in [A-Za-z0-9_-]")
    if len(text) % 4 == 1:
        raise ValueError(f"base64url-nopad: length {len(text)} is 1 mod 4, which no bytes encode")
    padded = text + "=" * (-len(text) % 4)
    try:
        data = base64.b64decode(padded.translate(str.maketrans("-_", "+/")), validate=True)
    except binascii.Error as exc:  # pragma: no cover - alphabet and length already checked
        raise ValueError(f"base64url-nopad: {exc}") from exc
    if base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii") != text:
        raise ValueError("base64url-nopad: non-zero trailing bits (not the canonical spelling)")
    return data


def b64_std_decode_canonical(text: str) -> bytes:
    """Decode canonical padded standard base64 (RFC 4648 §4); ValueError says what is wrong.

    Padding is required, and the trailing bits must be zero (the regex seal-assurance-kit
    applies to ``signed_artifacts``, plus a re-encode check).
    """
    if text.isascii():
        # Exact as in b64url_nopad_decode: strict decoding, then the final characters.
        raw = text.encode()
        data = _b64_strict(raw)
        if data is not None and _canonical_tail(raw):
            return data
    return _b64_std_decode_canonical_strict(text)


def _b64_std_decode_canonical_strict(text: str) -> bytes:
    """The rule-by-rule reference for :func:`b64_std_decode_canonical`, with its messages."""
    if not _B64_STD_CANONICAL.fullmatch(text):
        raise ValueError(
            "base64: not canonical padded standard base64 "
            "(alphabet [A-Za-z0-9+/], length a multiple of 4, '=' only as final padding)"
        )
    data = base64.b64decode(text, validate=True)
    if base64.b64encode(data).decode("ascii") != text:
        raise ValueError("base64: non-zero trailing bits (not the canonical spelling)")
    return data


def key_id(public_key: bytes) -> str:
    """Return the receipt ``key_id``: sha256 hex of the raw 32 key bytes (not of the hex)."""
    if len(public_key) != 32:
        return hashlib.sha256(public_key).hexdigest()
    return _key_id_of_key(bytes(public_key))


# A run meets a few keys, each in every receipt: one OpenSSL hash set-up per key, not per
# receipt (about 9 K instructions each). Pure in the key; bounded.
@fastpath.cache(maxsize=64)
def _key_id_of_key(public_key: bytes) -> str:
    return hashlib.sha256(public_key).hexdigest()


def hex_key(text: str) -> bytes:
    """Parse a raw Ed25519 key spelled as exactly 64 lowercase hex digits; else ValueError."""
    if not HEX64.fullmatch(text):
        if hex64_any_case(text):
            raise ValueError("public key has uppercase hex digits: write it in lowercase hex")
        raise ValueError(
            f"public key must be exactly 64 lowercase hex digits, got {len(text)} characters"
            + ("" if re.fullmatch(r"[0-9a-f]*", text) else " including non-lowercase-hex")
        )
    return bytes.fromhex(text)
