import base64
import hashlib
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from sealverify._internal.primitives.signatures import (
    ED25519_L,
    b64_std_decode_canonical,
    b64url_nopad_decode,
    ed25519_verify,
    hex_key,
    key_id,
    s_below_order,
)
from tests.conftest import shared_path

# RFC 8032 §7.1 TEST 1: public key and signature of the empty message (published test key).
RFC8032_PK = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
RFC8032_SIG = bytes.fromhex(
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46b"
    "d25bf5f0595bbe24655141438e7a100b"
)


def _wycheproof_cases() -> list[tuple[str, bytes, bytes, bytes, str]]:
    data = json.loads(shared_path("vectors", "wycheproof", "ed25519_test.json").read_bytes())
    cases = []
    for group in data["testGroups"]:
        pk = bytes.fromhex(group["publicKey"]["pk"])
        for t in group["tests"]:
            cases.append(
                (
                    f"tc{t['tcId']}",
                    pk,
                    bytes.fromhex(t["msg"]),
                    bytes.fromhex(t["sig"]),
                    t["result"],
                )
            )
    assert len(cases) == data["numberOfTests"]
    return cases


def test_wycheproof_every_case() -> None:
    # Wycheproof's "acceptable" verdict (none in this file today) would mean "valid only under a
    # lenient rule"; our rule is strict (S < L, canonical encodings), so acceptable must be False.
    expected = {"valid": True, "invalid": False, "acceptable": False}
    wrong = [
        name
        for name, pk, msg, sig, result in _wycheproof_cases()
        if ed25519_verify(pk, msg, sig) is not expected[result]
    ]
    assert wrong == []


def test_wycheproof_has_both_verdicts() -> None:
    results = {case[4] for case in _wycheproof_cases()}
    assert {"valid", "invalid"} <= results


def test_rfc8032_test1() -> None:
    assert ed25519_verify(RFC8032_PK, b"", RFC8032_SIG)
    assert not ed25519_verify(RFC8032_PK, b"x", RFC8032_SIG)


def test_s_plus_l_refused() -> None:
    # S + L is the same scalar mod L; a lax verifier reducing S would accept it.
    s = int.from_bytes(RFC8032_SIG[32:], "little") + ED25519_L
    assert s < 2**256
    malleated = RFC8032_SIG[:32] + s.to_bytes(32, "little")
    assert not s_below_order(malleated)
    assert not ed25519_verify(RFC8032_PK, b"", malleated)
    assert s_below_order(RFC8032_SIG)


def test_l_constant_is_the_group_order() -> None:
    # Independent spelling of L from RFC 8032 §5.1 (hex, big-endian).
    spelled = int("1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3ed", 16)
    assert spelled == ED25519_L


@pytest.mark.parametrize(
    ("pk", "sig"),
    [
        (b"", RFC8032_SIG),
        (RFC8032_PK[:31], RFC8032_SIG),
        (RFC8032_PK, RFC8032_SIG[:63]),
        (RFC8032_PK + b"\0", RFC8032_SIG),
        (RFC8032_PK, RFC8032_SIG + b"\0"),
        (b"\xff" * 32, RFC8032_SIG),
    ],
)
def test_bad_lengths_and_points_are_false_not_errors(pk: bytes, sig: bytes) -> None:
    assert ed25519_verify(pk, b"", sig) is False


def test_key_id_is_sha256_of_raw_bytes() -> None:
    assert key_id(RFC8032_PK) == hashlib.sha256(RFC8032_PK).hexdigest()
    assert key_id(RFC8032_PK) != hashlib.sha256(RFC8032_PK.hex().encode()).hexdigest()


def test_hex_key() -> None:
    assert hex_key(RFC8032_PK.hex()) == RFC8032_PK
    for bad in [
        RFC8032_PK.hex().upper(),
        RFC8032_PK.hex()[:62],
        RFC8032_PK.hex() + "00",
        "g" * 64,
        " " + RFC8032_PK.hex()[1:],
    ]:
        with pytest.raises(ValueError):
            hex_key(bad)


def test_b64url_roundtrip_all_lengths() -> None:
    for n in range(0, 70):
        data = bytes(range(256))[n : n + n] or bytes(n)
        text = base64.urlsafe_b64encode(data).rstrip(b"=").decode()
        assert b64url_nopad_decode(text) == data


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("AA==", "not in"),  # padding refused
        ("A+", "not in"),  # standard alphabet refused
        ("A/", "not in"),
        ("AA A", "not in"),  # whitespace refused
        ("AAAAA", "1 mod 4"),  # impossible length
        ("AB", "trailing bits"),  # 'B' leaves a 1 in the 4 unused bits
        ("AAB", "trailing bits"),  # 'B' leaves a 1 in the 2 unused bits
    ],
)
def test_b64url_strict(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        b64url_nopad_decode(text)


def test_b64url_accepts_canonical_neighbours() -> None:
    assert b64url_nopad_decode("AA") == b"\0"
    assert b64url_nopad_decode("AAE") == b"\0\x01"
    assert b64url_nopad_decode("-_8") == b"\xfb\xff"


def test_b64_std_canonical() -> None:
    assert b64_std_decode_canonical("") == b""
    assert b64_std_decode_canonical("+/8=") == b"\xfb\xff"
    assert b64_std_decode_canonical("AA==") == b"\0"
    for bad in ["AA", "AA=", "-_8=", "AB==", "AAB=", "AA==AA==", "A===", " AA==", "AA==\n"]:
        with pytest.raises(ValueError):
            b64_std_decode_canonical(bad)


def test_fresh_key_signs_and_verifies() -> None:
    sk = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"test").digest())
    pk = sk.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    sig = sk.sign(b"message")
    assert ed25519_verify(pk, b"message", sig)
    flipped = bytes([sig[0] ^ 1]) + sig[1:]
    assert not ed25519_verify(pk, b"message", flipped)
