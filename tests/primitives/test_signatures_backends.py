"""libsodium and OpenSSL Ed25519 backends: the combined verdict is always OpenSSL's.

Small-order and non-canonical keys are refused before either backend is asked.
"""

import json
import sys

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit.mint import CONFIG_KEY, RECEIPT_KEY

from sealverify._internal import fastpath
from sealverify._internal.primitives import signatures
from sealverify._internal.primitives.signatures import (
    ED25519_L,
    ed25519_verify,
    ed25519_verify_openssl,
    ed25519_verify_sodium,
)
from tests.conftest import shared_path

P = 2**255 - 19  # the field prime of edwards25519 (RFC 8032 §5.1)


def _point(y: int, sign: int = 0) -> bytes:
    """A 32-byte point encoding: y little-endian with the x sign in the top bit (RFC 8032)."""
    return (y | (sign << 255)).to_bytes(32, "little")


def _wycheproof() -> list[tuple[str, bytes, bytes, bytes, bool]]:
    data = json.loads(shared_path("vectors", "wycheproof", "ed25519_test.json").read_bytes())
    return [
        (
            f"tc{t['tcId']}",
            bytes.fromhex(group["publicKey"]["pk"]),
            bytes.fromhex(t["msg"]),
            bytes.fromhex(t["sig"]),
            t["result"] == "valid",
        )
        for group in data["testGroups"]
        for t in group["tests"]
    ]


def test_every_wycheproof_case_same_verdict_on_both_backends() -> None:
    cases = _wycheproof()
    assert len(cases) == 151  # the vendored file's count; a truncated file must not pass
    for name, key, message, signature, valid in cases:
        assert ed25519_verify_openssl(key, message, signature) is valid, name
        assert ed25519_verify_sodium(key, message, signature) is valid, name
        assert ed25519_verify(key, message, signature) is valid, name


def _valid() -> tuple[bytes, bytes, bytes]:
    message = b"seal object b preimage"
    return RECEIPT_KEY.public_key, message, RECEIPT_KEY.sign(message)


def test_s_at_or_above_order_refused_by_every_path() -> None:
    key, message, signature = _valid()
    s = int.from_bytes(signature[32:], "little")
    for scalar in (s + ED25519_L, ED25519_L, 2**256 - 1):
        forged = signature[:32] + scalar.to_bytes(32, "little")
        assert not ed25519_verify_openssl(key, message, forged)
        assert not ed25519_verify_sodium(key, message, forged)
        assert not ed25519_verify(key, message, forged)


def test_wrong_lengths_refused_by_every_path() -> None:
    key, message, signature = _valid()
    for args in ((key[:31], message, signature), (key, message, signature[:63])):
        assert not ed25519_verify_openssl(*args)
        assert not ed25519_verify_sodium(*args)
        assert not ed25519_verify(*args)


# Signature (R = identity, S = 0) under a small-order or non-canonical key: sB - hA is the
# identity whenever hA is, so OpenSSL itself accepts; libsodium refuses small-order and
# non-canonical keys before computing anything. Expected OpenSSL verdicts are worked out
# from the group law, not from the code under test. sealverify refuses such keys before
# either library is asked (weak_key_reason), so every one of its verdicts is False.
IDENTITY = _point(1)
SMALL_ORDER_CASES = [
    ("A identity (order 1)", _point(1), IDENTITY, True),
    ("A y=0 (order 4)", _point(0), IDENTITY, True),
    ("A y=p+1, non-canonical identity", _point(P + 1), IDENTITY, True),
    ("R y=p+1, non-canonical identity", _point(1), _point(P + 1), False),
    ("R identity with x sign set", _point(1), _point(1, 1), False),
]


@pytest.mark.parametrize(("name", "key", "r", "openssl"), SMALL_ORDER_CASES)
def test_small_order_and_non_canonical_points(
    name: str, key: bytes, r: bytes, openssl: bool
) -> None:
    signature = r + bytes(32)
    assert _raw_openssl(key, b"msg", signature) is openssl, name
    for verdict in (ed25519_verify_openssl, ed25519_verify_sodium, ed25519_verify):
        assert verdict(key, b"msg", signature) is False, (name, verdict.__name__)


def _raw_openssl(key: bytes, message: bytes, signature: bytes) -> bool:
    """The library alone, without sealverify's key rules: what a careless verifier says."""
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(
    message=st.binary(max_size=200),
    flip=st.integers(min_value=0, max_value=64 * 8 + 32 * 8 - 1),
    use_config_key=st.booleans(),
)
def test_sodium_acceptance_implies_openssl_acceptance(
    message: bytes, flip: int, use_config_key: bool
) -> None:
    signer = CONFIG_KEY if use_config_key else RECEIPT_KEY
    key, signature = signer.public_key, signer.sign(message)
    assert ed25519_verify_sodium(key, message, signature)
    assert ed25519_verify_openssl(key, message, signature)
    # One flipped bit in the signature or the key: the backends still agree.
    blob = bytearray(signature + key)
    blob[flip // 8] ^= 1 << (flip % 8)
    sig2, key2 = bytes(blob[:64]), bytes(blob[64:])
    sodium = ed25519_verify_sodium(key2, message, sig2)
    openssl = ed25519_verify_openssl(key2, message, sig2)
    assert not sodium or openssl
    assert ed25519_verify(key2, message, sig2) is openssl


# libsodium asked two ways: the detached call sealverify makes, and PyNaCl's crypto_sign_open
# (the reference). Raw, without sealverify's key and S rules, so every input reaches libsodium.
def _detached_raw(key: bytes, message: bytes, signature: bytes) -> bool:
    detached = signatures._detached()
    assert detached is not None
    assert len(key) == 32 and len(signature) == 64  # what the C routine reads
    return detached(signature, message, len(message), key) == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the shipped wheels' symbol")
def test_the_detached_call_is_found_where_the_bench_runs() -> None:
    # On Linux PyNaCl's library exports it: the fast call is the one in use, not the fallback.
    assert signatures._detached() is not None


def test_detached_and_open_agree_raw_on_every_wycheproof_case() -> None:
    if signatures._detached() is None:
        pytest.skip("libsodium's detached call is not exported here")
    cases = [case for case in _wycheproof() if len(case[1]) == 32 and len(case[3]) == 64]
    assert len(cases) > 100
    for name, key, message, signature, _expected in cases:
        assert _detached_raw(key, message, signature) is signatures._sodium_open(
            key, message, signature
        ), name
    for name, key, r, _openssl in SMALL_ORDER_CASES:
        signature = r + bytes(32)
        assert _detached_raw(key, b"msg", signature) is signatures._sodium_open(
            key, b"msg", signature
        ), name


@settings(max_examples=300, deadline=None)
@given(
    message=st.binary(max_size=200),
    flip=st.integers(min_value=0, max_value=64 * 8 + 32 * 8 - 1),
)
def test_detached_and_open_agree_on_flipped_bits(message: bytes, flip: int) -> None:
    if signatures._detached() is None:
        pytest.skip("libsodium's detached call is not exported here")
    blob = bytearray(RECEIPT_KEY.sign(message) + RECEIPT_KEY.public_key)
    assert _detached_raw(bytes(blob[64:]), message, bytes(blob[:64]))
    blob[flip // 8] ^= 1 << (flip % 8)
    sig2, key2 = bytes(blob[:64]), bytes(blob[64:])
    assert _detached_raw(key2, message, sig2) is signatures._sodium_open(key2, message, sig2)
    with fastpath.use_reference():
        reference = ed25519_verify_sodium(key2, message, sig2)
    assert ed25519_verify_sodium(key2, message, sig2) is reference
