"""`sealverify.verify` on every real seal receipt, with and without pins, and the input classes.

Expected outcomes are upstream's (seal-check/seal-verify-action P-ENFORCE, assurance-kit
VERIFY-PROFILES §7), as recorded per fixture in docs/verify.md "Real receipts"; where
sealverify differs from a fleet surface the difference is named there and in the test.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import (
    DEFAULT_KERNEL_SHA256,
    VerifyOptions,
    verify_jsonl,
    verify_receipt,
)
from sealverify._internal.results.model import Subject
from tests.conftest import shared_path

SEAL = ("fixtures", "seal")
# RFC 8032 §7.1 TEST 1 public key: the config signer of every fleet, action and live-demo fixture.
RFC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
HOST_V2_CONFIG = "a1c7f2c1cfe8651990f14de4a36d25380a79b6346c9332f34f9a6be053271669"
HOST_V3_CONFIG = "bdf3db19a2007e5b6ab0d2a6578006d07ff8f7a35a7a8c0b3ed51de411d2e8ff"
HOST_V3_RECEIPT = "85d7bdc4f48aebef2ef5d2e5f75f7ec5b921c1a03f50e4ed786d775b18fff87c"
KIT_V2_CONFIG = "88d2d0c0cbb47cfc637efda0d9dc2f4277dfc7d7e686049fae89ac2153b740c3"
KIT_V2_RECEIPT = "e74e48b61d5b203a3346b001af5a9aabe8890e75e3df2c932b5023dd5f6ec948"
# Older kernel builds named by fixtures (verify-rules §5): accepted only with --kernel-sha256.
ERA_0B5E = "0b5e792500592b56847f70b1e27e47aecdc65023c7c59fd79695102c465f26ec"
ERA_D7D8 = "d7d81e277ba0b5e9df385129d86abf6f7469e6da2a65bb2ec35626caa44ea2be"

FLEET_PASS = [
    "seal-check/examples/allow.receipt.json",
    "seal-check/test/fixtures/cross-receipt.json",
    "seal-verify-action/fixtures/pass/allow.receipt.json",
    "seal-verify-action/fixtures/pass/crosstool.receipt.json",
    "seal-verify-action/fixtures/pass/block.receipt.json",
]
UNPARSEABLE = [
    "seal-check/test/fixtures/unparseable-block.receipt.json",
    "seal-verify-action/fixtures/reduced/unparseable.receipt.json",
]
KIT_CONFIGLESS = [
    "seal-assurance-kit/fixtures/receipt-allow.json",
    "seal-assurance-kit/fixtures/receipt-block.json",
    "seal-assurance-kit/fixtures/receipt-crosstool.json",
]


def raw(relative: str) -> bytes:
    return shared_path(*SEAL, *relative.split("/")).read_bytes()


def options(
    config: tuple[str, ...] = (),
    receipt: tuple[str, ...] = (),
    kernels: tuple[str, ...] = (),
    allow: bool = False,
) -> VerifyOptions:
    return VerifyOptions(
        TrustStore.from_pins(config=config, receipt=receipt),
        (DEFAULT_KERNEL_SHA256, *kernels),
        allow_published_keys=allow,
    )


def run(relative: str, opts: VerifyOptions) -> Subject:
    return verify_receipt(raw(relative), relative, opts)


def failed(subject: Subject) -> set[str]:
    return {c.id for c in subject.checks if c.status == "fail"}


def published(subject: Subject) -> list[tuple[str, str]]:
    """The (status, first source) of each authority.published-key check."""
    return [
        (c.status, c.data["sources"][0])
        for c in subject.checks
        if c.id == "authority.published-key"
    ]


# The fleet's config signer is RFC 8032 test key 1: a pin on it proves nothing (docs/trust.md).
RFC_CAPPED = [("not-evaluated", "RFC 8032 §7.1 TEST 1")]
RFC_ALLOWED = [("info", "RFC 8032 §7.1 TEST 1")]
# Fleet ALLOWs by approval: no receipt signature, and nothing authenticates the approver's
# consent (interactive channel, no token), so the approval is a claim nothing binds
# (docs/claims.md): REDUCED with every pin. The BLOCK's decision re-derives: VERIFIED.
FLEET_APPROVED = {p for p in FLEET_PASS if not p.endswith("block.receipt.json")}


@pytest.mark.parametrize("relative", FLEET_PASS)
def test_fleet_pass_fixtures_pinned_unpinned_without_and_fail_with_wrong_pin(
    relative: str,
) -> None:
    pinned = run(relative, options(config=(RFC,)))
    assert pinned.outcome == "UNPINNED"
    assert not failed(pinned)
    assert published(pinned) == RFC_CAPPED
    allowed = run(relative, options(config=(RFC,), allow=True))
    assert published(allowed) == RFC_ALLOWED
    if relative in FLEET_APPROVED:
        assert allowed.outcome == "REDUCED"
        unbound = next(c for c in allowed.checks if c.id == "claims.unbound")
        assert unbound.data["members"] == ["/approval"]
    else:
        assert allowed.outcome == "VERIFIED"
    unpinned = run(relative, options())
    assert unpinned.outcome == "UNPINNED"
    assert not failed(unpinned)
    wrong = run(relative, options(config=(HOST_V3_CONFIG,)))
    assert wrong.outcome == "FAIL"
    assert failed(wrong) == {"authority.config-key"}
    assert "unauthorised config signer" in next(
        c.reason for c in wrong.checks if c.id == "authority.config-key"
    )


@pytest.mark.parametrize("relative", UNPARSEABLE)
def test_legit_unparseable_is_reduced_with_pin_and_unpinned_without(relative: str) -> None:
    pinned = run(relative, options(config=(RFC,), allow=True))
    assert pinned.outcome == "REDUCED"
    assert not failed(pinned)
    assert run(relative, options()).outcome == "UNPINNED"
    capped = run(relative, options(config=(RFC,)))
    assert (capped.outcome, published(capped)) == ("UNPINNED", RFC_CAPPED)


def test_bypass_fixture_fails_not_mediated_with_and_without_pin() -> None:
    for opts in (options(), options(config=(RFC,))):
        subject = run("seal-verify-action/fixtures/fail/bypass.receipt.json", opts)
        assert (subject.outcome, subject.label) == ("FAIL", "NOT MEDIATED")
        assert "bypass.not-mediated" in failed(subject)


def test_forged_binding_fixture_fails_on_the_audit_binding() -> None:
    for opts in (options(), options(config=(RFC,))):
        subject = run("seal-verify-action/fixtures/fail/forged-binding.receipt.json", opts)
        assert subject.outcome == "FAIL"
        assert failed(subject) == {"binding.audit-request-sha256"}


def test_host_v2_block_fails_on_the_current_kernel_pin_and_is_reduced_with_its_era_pin() -> None:
    relative = "seal-check/test/fixtures/host-v2-block.receipt.json"
    for opts in (options(), options(config=(HOST_V2_CONFIG,))):
        subject = run(relative, opts)
        assert subject.outcome == "FAIL"
        assert failed(subject) == {"kernel.identity"}
    # No receipt signature: its framed subject is a claim nothing binds (docs/claims.md), so
    # even with every pin it is REDUCED, never VERIFIED (it was VERIFIED before that rule).
    pinned = run(relative, options(config=(HOST_V2_CONFIG,), kernels=(ERA_0B5E,)))
    assert pinned.outcome == "REDUCED"
    assert {c.id for c in pinned.checks if c.status == "not-evaluated"} >= {"claims.unbound"}
    assert run(relative, options(kernels=(ERA_0B5E,))).outcome == "UNPINNED"


def test_host_v3_block_object_b_v1_needs_both_pins_for_verified() -> None:
    # seal-check's format layer with an injected primitive accepts it (its test C1); P-ENFORCE
    # surfaces FAIL only because they never inject one (docs/verify.md, disagreement d).
    relative = "seal-check/test/fixtures/host-v3-block.receipt.json"
    both = run(relative, options(config=(HOST_V3_CONFIG,), receipt=(HOST_V3_RECEIPT,)))
    assert both.outcome == "VERIFIED"
    assert {c.id for c in both.checks if c.status == "pass"} >= {
        "signature.object-b",
        "signature.object-b-key-id",
        "signature.config",
        "binding.guard-target",
        "binding.effect-view.idempotency-key",
    }
    assert run(relative, options(config=(HOST_V3_CONFIG,))).outcome == "UNPINNED"
    assert run(relative, options()).outcome == "UNPINNED"
    wrong = run(relative, options(config=(HOST_V3_CONFIG,), receipt=(KIT_V2_RECEIPT,)))
    assert failed(wrong) == {"authority.receipt-key"}


def test_kit_object_b_v2_host_receipt_verifies_with_its_keys_pinned() -> None:
    relative = "seal-assurance-kit/fixtures/object-b-v2-host-04f7ba83.json"
    both = run(relative, options(config=(KIT_V2_CONFIG,), receipt=(KIT_V2_RECEIPT,)))
    assert both.outcome == "VERIFIED"
    passed = {c.id for c in both.checks if c.status == "pass"}
    assert passed >= {
        "signature.object-b",
        "binding.framed-subject",
        "binding.request-sha256",
        "binding.canonical-request-frame",
        "legacy.canonical-request-omits-meta",
    }
    assert run(relative, options()).outcome == "UNPINNED"


@pytest.mark.parametrize("relative", KIT_CONFIGLESS)
def test_kit_configless_receipts_fail_enf1(relative: str) -> None:
    for opts in (options(), options(config=(RFC,))):
        subject = run(relative, opts)
        assert subject.outcome == "FAIL"
        assert "binding.config-payload" in failed(subject)
        assert any(
            c.id == "format.fields" and "signed_config" in c.reason
            for c in subject.checks
            if c.status == "fail"
        )


def test_kit_crosstool_lacks_the_kernel_attested_request_hash() -> None:
    subject = run("seal-assurance-kit/fixtures/receipt-crosstool.json", options(config=(RFC,)))
    assert "binding.audit-request-sha256" in failed(subject)


def test_kit_unparseable_fails_on_kernel_and_is_reduced_with_its_era_pin() -> None:
    relative = "seal-assurance-kit/fixtures/receipt-unparseable.json"
    subject = run(relative, options(config=(RFC,)))
    assert failed(subject) == {"kernel.identity"}
    opts = options(config=(RFC,), kernels=(ERA_D7D8,), allow=True)
    assert run(relative, opts).outcome == "REDUCED"


def test_live_demo_log_as_jsonl_with_and_without_pin() -> None:
    data = raw("seal-live-demo/evidence/receipts.jsonl")
    subjects, findings = verify_jsonl(data, "receipts.jsonl", options(config=(RFC,), allow=True))
    assert findings == []
    assert [s.name for s in subjects] == [f"receipts.jsonl:{n}" for n in (1, 2, 3)]
    assert [(s.outcome, s.label) for s in subjects] == [
        ("REDUCED", ""),  # an ALLOW by a file-channel approval nothing authenticates
        ("VERIFIED", ""),
        ("FAIL", "NOT MEDIATED"),
    ]
    unpinned, _ = verify_jsonl(data, "receipts.jsonl", options())
    assert [s.outcome for s in unpinned] == ["UNPINNED", "UNPINNED", "FAIL"]
    # The live demo's policy key is RFC 8032 test key 1: pinned, it is still not VERIFIED.
    capped, _ = verify_jsonl(data, "receipts.jsonl", options(config=(RFC,)))
    assert [s.outcome for s in capped] == ["UNPINNED", "UNPINNED", "FAIL"]
    assert [published(s) for s in capped[:2]] == [RFC_CAPPED, RFC_CAPPED]
    # p1's grant is un-hashed ({tool, arguments}): resolved from the policy to the reason.
    assert "binding.approval-grant" in {c.id for c in subjects[0].checks if c.status == "pass"}


def test_every_receipt_carries_one_decision_rederivation() -> None:
    for relative in [*FLEET_PASS, *KIT_CONFIGLESS]:
        subject = run(relative, options(config=(RFC,)))
        replay = [c for c in subject.checks if c.id == "replay.decision"]
        assert [c.status for c in replay] == ["pass"], relative
        assert replay[0].reason.startswith("decision re-derived by sealverify's model of kernel")
        assert "replayed" not in replay[0].reason
        assert subject.facts["rederivation"] == "pass"
    for relative in UNPARSEABLE:
        subject = run(relative, options(config=(RFC,)))
        replay = [c for c in subject.checks if c.id == "replay.decision"]
        assert [c.status for c in replay] == ["not-evaluated"]
        assert "--raw-line" in replay[0].reason


def test_spine_receipts_go_to_the_spine_checker_when_present() -> None:
    pytest.importorskip("sealverify._internal.receipts.spine")
    allow = run("seal-check/examples/spine-allow.receipt.json", options())
    assert allow.outcome == "UNPINNED"
    tampered = run("seal-check/examples/spine-arguments-tampered.receipt.json", options())
    assert tampered.outcome == "FAIL"


# --- the fleet's input classes (VERIFY-PROFILES §7), built from real receipts ----------------

ALLOW = "seal-check/examples/allow.receipt.json"


def load(relative: str) -> dict:
    return json.loads(raw(relative))


def dump(document: dict) -> bytes:
    # All these fixtures hold integers only, so Python's json writes their numbers unchanged.
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()


def verify_doc(document: dict, opts: VerifyOptions) -> Subject:
    return verify_receipt(dump(document), "mutated", opts)


def test_class_pass_pinned_and_pass_unpinned() -> None:
    assert verify_doc(load(ALLOW), options(config=(RFC,), allow=True)).outcome == "REDUCED"
    assert verify_doc(load(ALLOW), options(config=(RFC,))).outcome == "UNPINNED"
    assert verify_doc(load(ALLOW), options()).outcome == "UNPINNED"


def test_class_configless_parseable_fails() -> None:
    document = load(ALLOW)
    del document["signed_config"]
    subject = verify_doc(document, options(config=(RFC,)))
    assert subject.outcome == "FAIL"
    assert any("signed_config: object required" in c.reason for c in subject.checks)


def _unparseable_forge(with_config: bool) -> dict:
    """seal-check test/unparseable-forge.test.cjs: a kernel-less ALLOW reusing a real config."""
    real = load(ALLOW)
    attacker_line = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}'
    request = hashlib.sha256(attacker_line).hexdigest()
    audit = json.dumps(
        {"certs": [], "epoch": 1, "request_sha256": request, "tool": "x", "verdict": "allow"},
        separators=(",", ":"),
    )
    forge = {
        "seal_receipt": "v2",
        "request_sha256": request,
        "request_parse_error": "mediated request lacks object params.arguments",
        "bypass": False,
        "verdict": "ALLOW",
        "authorization": "explicit_policy_allow",
        "reason": "every gating kernel allows",
        "deny_kernel": None,
        "certs": [],
        "emitted_bytes": json.dumps({"audit": audit, "route": "forward"}, separators=(",", ":")),
        "kernel_identity": real["kernel_identity"],
        "asserted_provenance": real["asserted_provenance"],
        "signed_config": real["signed_config"],
        "kernel_config": real["kernel_config"],
        "granted_capabilities": [],
    }
    if not with_config:
        del forge["signed_config"], forge["kernel_config"]
    return forge


def test_class_config_reusing_unparseable_forge_fails() -> None:
    # Upstream calls it REDUCED at best; here an ALLOW with no cert is never an ALLOW.
    forge = _unparseable_forge(with_config=True)
    for opts in (options(config=(RFC,), allow=True), options(config=(RFC,)), options()):
        subject = verify_doc(forge, opts)
        assert subject.outcome == "FAIL"
        assert "binding.allow-certs" in failed(subject)


def test_class_configless_unparseable_forge_fails() -> None:
    forge = _unparseable_forge(with_config=False)
    for opts in (options(), options(config=(RFC,))):
        assert verify_doc(forge, opts).outcome == "FAIL"


def test_class_pathological_number_never_crashes_and_fails() -> None:
    text = raw(ALLOW).replace(b'"key": "k1"', b'"key": 1e9999999999')
    assert b"1e9999999999" in text
    subject = verify_receipt(text, "pathological", options(config=(RFC,)))
    assert subject.outcome == "FAIL"
    assert {"binding.args-hash", "binding.canonical-request"} <= failed(subject)
    reasons = [c.reason for c in subject.checks if c.id == "binding.args-hash"]
    assert reasons[0].startswith("cannot reconstruct signed bytes")


def test_class_binding_tamper_one_hex_digit() -> None:
    for member in ("args_hash", "canonical_request_sha256"):
        document = load(ALLOW)
        value = document[member]
        document[member] = value[:-1] + ("0" if value[-1] != "0" else "1")
        subject = verify_doc(document, options(config=(RFC,)))
        assert subject.outcome == "FAIL"
        assert f"binding.{member.replace('_', '-')}" in failed(subject)


def test_real_fixture_tree_verifies_without_crashing(tmp_path: Path) -> None:
    root = shared_path(*SEAL)
    for path in sorted(root.rglob("*.json")):
        subject = verify_receipt(path.read_bytes(), path.name, options(config=(RFC,)))
        assert subject.outcome in ("VERIFIED", "REDUCED", "UNPINNED", "FAIL")
        assert subject.checks
