"""Tests for the seal CLI spine receipts: byte rule, real seal-check examples, minted receipts."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from sealverify._internal.primitives.signatures import ED25519_L
from sealverify._internal.receipts import spine
from sealverify._internal.receipts.spine import (
    SPINE_DISCRIMINATOR,
    NotReconstructable,
    SpineResult,
    canonical,
    check_spine,
    js_number_text,
    js_string,
)
from sealverify._internal.results.model import Check
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue, parse_bytes
from tests.conftest import shared_path

EXAMPLES = ("fixtures", "seal", "seal-check", "examples")


def by_id(result: SpineResult, check_id: str) -> list[Check]:
    return [check for check in result.checks if check.id == check_id]


def one(result: SpineResult, check_id: str) -> Check:
    found = by_id(result, check_id)
    assert len(found) == 1, (check_id, result.checks)
    return found[0]


def run(raw: bytes, pins: list[bytes]) -> SpineResult:
    document = parse_bytes(raw)
    assert isinstance(document, dict)
    return check_spine(raw, document, pins)


def line_of_member(text: str, name: str) -> int:
    """1-based line of a top-level member name, found by reading the text, not by spine.py."""
    lines = text.splitlines()
    hits = [i for i, line in enumerate(lines, 1) if line.lstrip().startswith(f'"{name}"')]
    assert len(hits) == 1
    return hits[0]


def test_discriminator_constant() -> None:
    assert SPINE_DISCRIMINATOR == ("receipt", "seal.spine/v1")


# --- the byte rule: vectors computed with node 20 running velvetmonkey/seal@b15c876
# spine/receipt-seal.cjs (canonical) and JSON.stringify(JSON.parse(lexeme)) ----------------

JS_NUMBERS = [
    ("0", "0"),
    ("-0", "0"),
    ("1.0", "1"),
    ("1e2", "100"),
    ("1E2", "100"),
    ("12e-1", "1.2"),
    ("-1.5", "-1.5"),
    ("0.1", "0.1"),
    ("1e21", "1e+21"),
    ("1e20", "100000000000000000000"),
    ("123456789012345678901", "123456789012345680000"),
    ("1e-6", "0.000001"),
    ("0.0000001", "1e-7"),
    ("-1e-7", "-1e-7"),
    ("1.23e-18", "1.23e-18"),
    ("9007199254740993", "9007199254740992"),
    ("1786873203318", "1786873203318"),
    ("5e-324", "5e-324"),
    ("1.7976931348623157e308", "1.7976931348623157e+308"),
    ("2.5e+25", "2.5e+25"),
    ("123.456", "123.456"),
    ("0.30000000000000004", "0.30000000000000004"),
]


@pytest.mark.parametrize(("lexeme", "js"), JS_NUMBERS)
def test_js_number_text_matches_node(lexeme: str, js: str) -> None:
    assert js_number_text(lexeme) == js


def test_js_number_text_refuses_overflow() -> None:
    with pytest.raises(ValueError, match="Infinity"):
        js_number_text("1e400")


@pytest.mark.parametrize(("lexeme", "js"), [pair for pair in JS_NUMBERS if pair[0] != pair[1]])
def test_canonical_refuses_a_spelling_the_producer_cannot_write(lexeme: str, js: str) -> None:
    with pytest.raises(NotReconstructable) as caught:
        canonical({"a": [JsonNumber(lexeme)]})
    assert caught.value.pointer == "/a/0"
    assert js in caught.value.reason


CANONICAL_INPUT = (
    b'{"b":1,"a":[true,false,null,"x\\u0000\\u001f\\u007f\\u2028/\\"\\\\\\b\\f\\n\\r\\t"],'
    b'"\\u00e9":"\\u00e9","z":{},"\\u00e9x":2,"Z":"\\ud83d\\ude00","\\uff41":"fullwidth",'
    b'"\\ud83d\\ude00":0,"\\uffff":1}'
)
# Keys in UTF-8 byte order: U+FF41 and U+FFFF (EF ..) before U+1F600 (F0 ..), although UTF-16
# code-unit order would put U+1F600 (D83D ..) first.
CANONICAL_OUTPUT = (
    '{"Z":"\U0001f600","a":[true,false,null,"x\\u0000\\u001f\x7f\u2028/\\"\\\\\\b\\f\\n\\r\\t"],'
    '"b":1,"z":{},"\xe9":"\xe9","\xe9x":2,"\uff41":"fullwidth","\uffff":1,"\U0001f600":0}'
)
CANONICAL_SHA256 = "5654b114ca4573f565f4f35a2c4ff48f6f7faf2035f85eb914891fa7fcc4de74"


def test_canonical_matches_the_sealer() -> None:
    text = canonical(parse_bytes(CANONICAL_INPUT))
    assert text == CANONICAL_OUTPUT
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == CANONICAL_SHA256


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("ALLOW", "ALLOW"),
        (JsonNumber("1e+21"), "1e+21"),
        (True, "true"),
        (None, "null"),
        ([JsonNumber("1"), None, "a"], "1,,a"),
        ([[JsonNumber("1"), JsonNumber("2")], [JsonNumber("3")]], "1,2,3"),
        ([None], ""),
        ({}, "[object Object]"),
        ([{}], "[object Object]"),
    ],
)
def test_js_string_matches_node(value: JsonValue, expected: str) -> None:
    assert js_string(value) == expected


# --- minted receipts (no ../shared needed) ---------------------------------------------------

SEED = hashlib.sha256(b"sealverify test key: spine").digest()
BODY = """{
  "receipt": "seal.spine/v1",
  "at": 1786873203318,
  "decision": "ALLOW",
  "tool": "fs.write",
  "arguments": {"path": "/tmp/\\u00e9.txt", "text": "line\\n\\"quoted\\"\\u0001\\u007f\\u2028",
    "n": 12.5, "big": 1e+21, "\\uff41": [1, null, true], "\\ud83d\\ude00": {}, "Z": -0.000001},
  "child": {"argv": ["node", "server.cjs"]},
  "evidence": {"human_present": "unknown", "within_expiry": true}"""
# sealReceipt() of velvetmonkey/seal@b15c876 spine/receipt-seal.cjs over BODY with the key from
# SEED, run under node 20 (Ed25519 is deterministic, so the signature is a fixed vector).
NODE_PUBLIC_KEY = "cb4db942aced18220ef0c9c2e60bf9b7b9ea4a9001a9f828f63dc3f8fc0e60de"
NODE_SEAL = {
    "decision_sha256": "25a2778c67ba986882a577479bff5aa3a854b34635d6647cdf11e08550169503",
    "tool_sha256": "b2b36607228a5784d28bf50dd5ac27f5e566ba885bb9887a242521843e7b8d19",
    "args_sha256": "2b14633b9f50b8c4764bd0c8eb209b7cf415ad940873993c634a244927f82bc3",
    "effect_sha256": "87cbcc7210ea92f5478f1c0a2586ee32555505dcdf69187b87e58865a8061ad6",
}
NODE_SIG = (
    "f64f6a2579a2a453d4c1f88de780ab932a1954b0ba95d17c150945bfbcdda18b"
    "bd37ef28ce7c595b0719aad6dc6ff9d5014e0a9ea4ca6d58e93a36cd7c29cb02"
)


def signing_key() -> tuple[Ed25519PrivateKey, bytes]:
    key = Ed25519PrivateKey.from_private_bytes(SEED)
    return key, key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def mint(body: str = BODY) -> str:
    """Seal ``body`` with the test key using this module's byte rule; one seal member a line."""
    private, _ = signing_key()
    document = parse_bytes((body + "\n}").encode())
    assert isinstance(document, dict)
    commitments = spine.commitments(document)
    document["seal"] = {"alg": "ed25519", **commitments}
    sig = private.sign(spine.signing_message(document)).hex()
    members = [("alg", "ed25519"), *commitments.items(), ("sig", sig)]
    seal_text = ",\n".join(f'    "{name}": "{value}"' for name, value in members)
    return body + ',\n  "seal": {\n' + seal_text + "\n  }\n}\n"


def test_minted_receipt_equals_the_node_sealer() -> None:
    _, public = signing_key()
    assert public.hex() == NODE_PUBLIC_KEY
    document = parse_bytes(mint().encode())
    assert isinstance(document, dict)
    seal = document["seal"]
    assert isinstance(seal, dict)
    assert {name: seal[name] for name in NODE_SEAL} == NODE_SEAL
    assert seal["sig"] == NODE_SIG


def test_minted_receipt_verifies_with_its_pin() -> None:
    _, public = signing_key()
    result = run(mint().encode(), [public])
    assert result.outcome == "VERIFIED"
    assert result.signer_key_id == hashlib.sha256(public).hexdigest()
    assert one(result, "spine.signature").status == "pass"
    assert not [check for check in result.checks if check.status in ("fail", "not-evaluated")]


def test_minted_receipt_is_unpinned_without_a_pin() -> None:
    result = run(mint().encode(), [])
    assert result.outcome == "UNPINNED"
    assert result.signer_key_id is None
    assert one(result, "spine.signature").status == "not-evaluated"


def test_wrong_pin_fails_and_any_matching_pin_verifies() -> None:
    _, public = signing_key()
    other = Ed25519PrivateKey.from_private_bytes(bytes(32)).public_key()
    wrong = other.public_bytes(Encoding.Raw, PublicFormat.Raw)
    failed = run(mint().encode(), [wrong])
    assert failed.outcome == "FAIL"
    assert one(failed, "spine.signature").data["upstream_code"] == "signature_invalid"
    assert run(mint().encode(), [wrong, public]).outcome == "VERIFIED"


def test_a_pin_that_is_not_32_bytes_fails() -> None:
    _, public = signing_key()
    result = run(mint().encode(), [public[:31]])
    assert result.outcome == "FAIL"
    assert one(result, "spine.signature").data["upstream_code"] == "pubkey_invalid"


def flip_hex(text: str, value: str) -> str:
    assert text.count(value) == 1
    flipped = value[:-1] + ("0" if value[-1] != "0" else "1")
    return text.replace(value, flipped)


@pytest.mark.parametrize(
    ("member", "check_id", "field", "direct"),
    [
        ("decision_sha256", "spine.decision-commitment", "decision", True),
        ("tool_sha256", "spine.tool-commitment", "tool", True),
        ("args_sha256", "spine.arguments-commitment", "arguments", False),
        ("effect_sha256", "spine.effect-commitment", "tool and arguments", False),
    ],
)
def test_minted_flipped_commitment_fails_naming_it(
    member: str, check_id: str, field: str, direct: bool
) -> None:
    _, public = signing_key()
    text = mint()
    tampered = flip_hex(text, NODE_SEAL[member])
    result = run(tampered.encode(), [public])
    assert result.outcome == "FAIL"
    failed = [check for check in result.checks if check.status == "fail"]
    assert {check.id for check in failed} == {check_id, "spine.signature"}
    named = one(result, check_id)
    assert named.data["field"] == field
    assert named.data["commitment"] == member
    if direct:
        assert named.data["line"] == line_of_member(text, field)
        assert f"receipt line {line_of_member(text, field)}, field {field}" in named.reason
    else:
        assert "line" not in named.data


def test_minted_flipped_signature_fails_only_the_signature() -> None:
    _, public = signing_key()
    result = run(flip_hex(mint(), NODE_SIG).encode(), [public])
    assert result.outcome == "FAIL"
    assert [check.id for check in result.checks if check.status == "fail"] == ["spine.signature"]
    assert "every commitment matched" in one(result, "spine.signature").reason


def test_signature_with_s_not_below_l_fails() -> None:
    _, public = signing_key()
    sig = bytes.fromhex(NODE_SIG)
    s = int.from_bytes(sig[32:], "little") + ED25519_L
    malleable = (sig[:32] + s.to_bytes(32, "little")).hex()
    result = run(mint().replace(NODE_SIG, malleable).encode(), [public])
    assert result.outcome == "FAIL"
    assert one(result, "spine.signature").status == "fail"


def test_malformed_signature_is_named() -> None:
    _, public = signing_key()
    result = run(mint().replace(NODE_SIG, NODE_SIG.upper()).encode(), [public])
    assert result.outcome == "FAIL"
    check = one(result, "spine.signature-format")
    assert check.data["upstream_code"] == "signature_malformed"


def test_changed_decision_value_names_its_line() -> None:
    text = mint()
    result = run(text.replace('"decision": "ALLOW"', '"decision": "BLOCK"').encode(), [])
    assert result.outcome == "FAIL"
    check = one(result, "spine.decision-commitment")
    assert check.status == "fail"
    assert check.data["line"] == line_of_member(text, "decision") == 4
    assert '"BLOCK"' in check.reason


def test_uncommitted_member_change_is_caught_by_the_signature_only() -> None:
    _, public = signing_key()
    text = mint().replace('"within_expiry": true', '"within_expiry": false')
    result = run(text.encode(), [public])
    assert [check.id for check in result.checks if check.status == "fail"] == ["spine.signature"]
    assert run(text.encode(), []).outcome == "UNPINNED"  # nothing but the signature covers it


def test_number_the_producer_cannot_write_is_cannot_reconstruct() -> None:
    _, public = signing_key()
    text = mint().replace('"n": 12.5', '"n": 12.50')
    result = run(text.encode(), [public])
    assert result.outcome == "FAIL"
    reconstruct = one(result, "spine.cannot-reconstruct")
    assert (reconstruct.status, reconstruct.location) == ("fail", "/arguments/n")
    assert reconstruct.data["lexeme"] == "12.50"
    assert one(result, "spine.signature").status == "not-evaluated"
    assert one(result, "spine.arguments-commitment").status == "not-evaluated"
    assert one(result, "spine.effect-commitment").status == "not-evaluated"
    assert one(result, "spine.decision-commitment").status == "pass"


def test_overflowing_number_is_cannot_reconstruct() -> None:
    _, public = signing_key()
    result = run(mint().replace('"at": 1786873203318', '"at": 1e400').encode(), [public])
    assert result.outcome == "FAIL"
    assert one(result, "spine.cannot-reconstruct").location == "/at"
    assert one(result, "spine.signature").status == "not-evaluated"


def test_evidence_claims_are_stated_not_verified() -> None:
    _, public = signing_key()
    result = run(mint().encode(), [public])
    stated = {check.location: check for check in by_id(result, "spine.evidence-stated")}
    assert set(stated) == {"/evidence/human_present", "/evidence/within_expiry"}
    assert all(check.status == "info" for check in stated.values())
    assert "stated, not verified" in stated["/evidence/human_present"].reason
    assert '"unknown"' in stated["/evidence/human_present"].reason


@pytest.mark.parametrize(
    ("old", "new", "check_id", "code"),
    [
        (
            '"receipt": "seal.spine/v1"',
            '"receipt": "seal.spine/v2"',
            "spine.discriminator",
            "unknown_format",
        ),
        ('"alg": "ed25519"', '"alg": "ed448"', "spine.seal-alg", "unknown_algorithm"),
        ('"tool": "fs.write",\n', "", "spine.field-present", "incomplete_receipt"),
    ],
)
def test_shape_refusals(old: str, new: str, check_id: str, code: str) -> None:
    _, public = signing_key()
    text = mint()
    assert old in text
    result = run(text.replace(old, new).encode(), [public])
    assert result.outcome == "FAIL"
    assert one(result, check_id).data["upstream_code"] == code


def test_missing_tool_leaves_its_commitments_unevaluated() -> None:
    result = run(mint().replace('"tool": "fs.write",\n', "").encode(), [])
    assert one(result, "spine.tool-commitment").status == "not-evaluated"
    assert one(result, "spine.effect-commitment").status == "not-evaluated"
    assert one(result, "spine.decision-commitment").status == "pass"


def test_absent_commitment_fails_saying_so() -> None:
    text = mint().replace(f'    "tool_sha256": "{NODE_SEAL["tool_sha256"]}",\n', "")
    result = run(text.encode(), [])
    check = one(result, "spine.tool-commitment")
    assert check.status == "fail"
    assert "seal.tool_sha256 is absent" in check.reason


def test_array_root_and_array_seal_are_refused() -> None:
    root = parse_bytes(b"[1]")
    refused = check_spine(b"[1]", root, [])  # type: ignore[arg-type]  # a caller's mistake
    assert refused.outcome == "FAIL"
    assert one(refused, "spine.receipt-object").status == "fail"
    result = run(b'{"receipt": "seal.spine/v1", "seal": []}', [])
    assert result.outcome == "FAIL"
    assert one(result, "spine.sealed").status == "fail"


def test_unsealed_receipt_fails() -> None:
    result = run(BODY.encode() + b"\n}", [])
    assert result.outcome == "FAIL"
    assert one(result, "spine.sealed").data["upstream_code"] == "unsealed"


# --- the real seal-check examples (velvetmonkey/seal-check@0632f318 examples/) ---------------


def example(name: str) -> Path:
    return shared_path(*EXAMPLES, name)


def published_key() -> bytes:
    # spine-signer.pub: 64 lowercase hex digits and a newline (what seal-receipt-check.mjs
    # --pubkey FILE reads and trims).
    return bytes.fromhex(example("spine-signer.pub").read_text("ascii").strip())


def test_real_allow_verifies_with_its_published_key() -> None:
    key = published_key()
    result = run(example("spine-allow.receipt.json").read_bytes(), [key])
    assert result.outcome == "VERIFIED"
    assert result.signer_key_id == hashlib.sha256(key).hexdigest()
    assert one(result, "spine.signature").data["public_key"] == key.hex()


def test_real_allow_is_unpinned_without_a_key() -> None:
    result = run(example("spine-allow.receipt.json").read_bytes(), [])
    assert result.outcome == "UNPINNED"
    human = [c for c in result.checks if c.location == "/evidence/human_present"]
    assert len(human) == 1 and "stated, not verified" in human[0].reason


def test_real_allow_fails_under_a_wrong_pin() -> None:
    wrong = bytes(a ^ b for a, b in zip(published_key(), b"\x01" + bytes(31), strict=True))
    result = run(example("spine-allow.receipt.json").read_bytes(), [wrong])
    assert result.outcome == "FAIL"
    assert one(result, "spine.signature").status == "fail"


def test_real_tampered_fails_naming_arguments() -> None:
    result = run(example("spine-arguments-tampered.receipt.json").read_bytes(), [published_key()])
    assert result.outcome == "FAIL"
    check = one(result, "spine.arguments-commitment")
    assert check.status == "fail"
    assert check.data["field"] == "arguments"
    assert check.data["upstream_code"] == "arguments_binding_mismatch"
    assert "line" not in check.data  # arguments is an object, so no single line is named
    assert one(result, "spine.decision-commitment").status == "pass"
    assert one(result, "spine.signature").status == "fail"


REAL_SEAL = {
    "decision_sha256": ("spine.decision-commitment", "decision"),
    "tool_sha256": ("spine.tool-commitment", "tool"),
    "args_sha256": ("spine.arguments-commitment", "arguments"),
    "effect_sha256": ("spine.effect-commitment", "tool and arguments"),
}


@pytest.mark.parametrize("member", sorted(REAL_SEAL))
def test_real_allow_flipped_commitment_fails_naming_it(member: str) -> None:
    text = example("spine-allow.receipt.json").read_text("utf-8")
    document = parse_bytes(text.encode())
    assert isinstance(document, dict) and isinstance(document["seal"], dict)
    stated = document["seal"][member]
    assert isinstance(stated, str)
    result = run(flip_hex(text, stated).encode(), [published_key()])
    assert result.outcome == "FAIL"
    check_id, field = REAL_SEAL[member]
    assert {c.id for c in result.checks if c.status == "fail"} == {check_id, "spine.signature"}
    named = one(result, check_id)
    assert named.data["field"] == field
    if field in ("decision", "tool"):
        assert named.data["line"] == line_of_member(text, field)


def test_real_allow_flipped_signature_fails_naming_it() -> None:
    text = example("spine-allow.receipt.json").read_text("utf-8")
    document = parse_bytes(text.encode())
    assert isinstance(document, dict) and isinstance(document["seal"], dict)
    sig = document["seal"]["sig"]
    assert isinstance(sig, str)
    result = run(flip_hex(text, sig).encode(), [published_key()])
    assert result.outcome == "FAIL"
    assert [c.id for c in result.checks if c.status == "fail"] == ["spine.signature"]
