"""Every binding flipped: the receipt FAILs, naming that binding (U3, issue 3 item 3).

Each case starts from a real receipt (or, for a v3 ALLOW, of which no real one exists, a
receipt minted by sealverify_testkit.mint), checks the binding passes as given, applies one
mutation, and sees FAIL with the named check failing. v3 receipts are re-signed after the
mutation with the project's public test key (pinned), so the binding is tampered *behind* a
valid Object B signature and the binding check alone must catch it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from typing import Any

import pytest
from sealverify_testkit import mint

from sealverify._internal.primitives.objectb import OBJECT_B_V1, OBJECT_B_V2
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import (
    DEFAULT_KERNEL_SHA256,
    VerifyOptions,
    verify_receipt,
)
from sealverify._internal.wire.strictjson import JsonNumber
from tests.conftest import shared_path
from tests.helpers.verify_bindings import KIT, KIT_V2_CONFIG, assert_flip, fixture, flip, status_of

RFC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
HOST_V3_CONFIG = "bdf3db19a2007e5b6ab0d2a6578006d07ff8f7a35a7a8c0b3ed51de411d2e8ff"
DEMO_WASM = mint.HostContext().wasm_sha256

Doc = dict[str, Any]


# --- fleet v2 (no Object B): JSON re-dump keeps these integer-only documents exact ----------

# RFC 8032 test key 1 and the testkit keys are published keys: these binding tests allow them
# (a published key alone caps a receipt at UNPINNED; tests/primitives/test_publishedkeys.py).
FLEET_OPTS = VerifyOptions(TrustStore.from_pins(config=[RFC]), allow_published_keys=True)


def fleet(relative: str, mutate: Callable[[Doc], None]) -> tuple[bytes, bytes]:
    original = fixture(relative)
    document = json.loads(original)
    mutate(document)
    return original, (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()


def _emitted(document: Doc, old: str, new: str) -> None:
    assert old in document["emitted_bytes"]
    document["emitted_bytes"] = document["emitted_bytes"].replace(old, new, 1)


def _add_expiry(document: Doc, delta: int) -> None:
    document["approval"]["issued_at"] = 5000
    document["approval"]["expiry"] = 5000 + 120 * 1000 + delta


ALLOW = "seal-check/examples/allow.receipt.json"
BLOCK = "seal-verify-action/fixtures/pass/block.receipt.json"

FLEET_CASES: list[tuple[str, str, Callable[[Doc], None]]] = [
    ("binding.args-hash", ALLOW, lambda d: d.update(args_hash=flip(d["args_hash"]))),
    (
        "binding.canonical-request",
        ALLOW,
        lambda d: d.update(canonical_request=d["canonical_request"].replace("k1", "k2")),
    ),
    (
        "binding.canonical-request-sha256",
        ALLOW,
        lambda d: d.update(canonical_request_sha256=flip(d["canonical_request_sha256"])),
    ),
    ("binding.audit-request-sha256", ALLOW, lambda d: _emitted(d, "f424f941ca", "f424f941cb")),
    ("binding.audit-verdict", ALLOW, lambda d: _emitted(d, '"forward"', '"block"')),
    (
        "binding.audit-certs",
        ALLOW,
        lambda d: d["certs"][2].update(reason="convergent op admitted: orset.rm"),
    ),
    (
        "binding.audit-tool",
        ALLOW,
        lambda d: _emitted(d, '\\"tool\\":\\"store.update\\"', '\\"tool\\":\\"store.other\\"'),
    ),
    ("binding.audit-epoch", ALLOW, lambda d: _emitted(d, '\\"epoch\\":1', '\\"epoch\\":2')),
    (
        "binding.approval-grant",
        ALLOW,
        lambda d: d["granted_capabilities"][0].update(
            target=flip(d["granted_capabilities"][0]["target"])
        ),
    ),
    (
        "binding.approval-policy-hash",
        ALLOW,
        lambda d: d["approval"].update(policy_hash=flip(d["approval"]["policy_hash"])),
    ),
    (
        "binding.config-payload",
        ALLOW,
        lambda d: d["kernel_config"]["safety"]["approval"].update(ttl_seconds=121),
    ),
    (
        "binding.config-self-compact",
        ALLOW,
        lambda d: d["signed_config"].update(
            payload=json.dumps(json.loads(d["signed_config"]["payload"]), indent=1)
        ),
    ),
    (
        "signature.config",
        ALLOW,
        lambda d: d["signed_config"].update(signature=flip(d["signed_config"]["signature"])),
    ),
    (
        "binding.guard-target",
        BLOCK,
        lambda d: d["certs"][0].update(reason=flip(d["certs"][0]["reason"])),
    ),
]


@pytest.mark.parametrize(
    ("check_id", "relative", "mutate"), FLEET_CASES, ids=[c[0] for c in FLEET_CASES]
)
def test_fleet_binding_flip_fails(
    check_id: str, relative: str, mutate: Callable[[Doc], None]
) -> None:
    before, after = fleet(relative, mutate)
    assert_flip(before, after, FLEET_OPTS, check_id)


def test_approval_expiry_is_issued_at_plus_ttl() -> None:
    before = fleet(ALLOW, lambda d: _add_expiry(d, 0))[1]
    after = fleet(ALLOW, lambda d: _add_expiry(d, 1))[1]
    assert_flip(before, after, FLEET_OPTS, "binding.approval-expiry")


def test_unresolvable_grant_fails_grants() -> None:
    data = shared_path("fixtures", "seal", "seal-live-demo", "evidence", "receipts.jsonl")
    line = data.read_bytes().split(b"\n")[0]
    document = json.loads(line)
    document["granted_capabilities"][0]["tool"] = "no.such.tool"
    after = json.dumps(document, ensure_ascii=False).encode()
    mutated = assert_flip(line, after, FLEET_OPTS, "binding.approval-grant")
    assert "fail" in status_of(mutated, "binding.grants")


# --- host v3 (real files), re-signed under the project's test receipt key -----------------


def host(
    relative: str, config_key: str, domain: str, mutate: Callable[[Doc], None], resign: bool = True
) -> tuple[bytes, bytes, VerifyOptions]:
    record = mint.parse_record(fixture(relative))
    before = mint.render_pretty(mint.resign_v3(dict(record), mint.RECEIPT_KEY, domain))
    mutate(record)
    after_record = mint.resign_v3(record, mint.RECEIPT_KEY, domain) if resign else record
    opts = VerifyOptions(
        TrustStore.from_pins(config=[config_key], receipt=[mint.RECEIPT_KEY.public_hex]),
        allow_published_keys=True,
    )
    return before, mint.render_pretty(after_record), opts


V3 = "seal-check/test/fixtures/host-v3-block.receipt.json"


def _object_a(record: Doc, frame: bytes) -> None:
    record["signed_artifacts"]["object_a"] = base64.b64encode(frame).decode()


HOST_CASES: list[tuple[str, str, Callable[[Doc], None]]] = [
    (
        "binding.effect-view.raw-preimage-sha256",
        V3,
        lambda r: r["effect_view"].update(raw_preimage_sha256=flip(r["request_sha256"])),
    ),
    (
        "binding.effect-view.policy-hash",
        V3,
        lambda r: r["effect_view"].update(policy_hash=flip(r["effect_view"]["policy_hash"])),
    ),
    (
        "binding.effect-view.idempotency-key",
        V3,
        lambda r: r["effect_view"].update(idempotency_key="other:" + r["request_sha256"]),
    ),
    (
        "binding.effect-view.effect",
        V3,
        lambda r: r["effect_view"]["effect"].update(arguments={"command": "ls"}),
    ),
    ("binding.release-companions", V3, lambda r: r.update(post_state_hash="0" * 64)),
    ("binding.framed-subject", KIT, lambda r: r.update(framed_subject_length=JsonNumber("114"))),
    ("binding.request-sha256", KIT, lambda r: r.update(request_sha256=flip(r["request_sha256"]))),
    (
        "binding.canonical-request-frame",
        KIT,
        lambda r: _object_a(r, mint.tools_call_frame("shell_exec", '{"command":"rm -rf /home"}')),
    ),
    ("binding.object-a", KIT, lambda r: r["signed_artifacts"].update(encoding="base64url")),
]


@pytest.mark.parametrize(
    ("check_id", "relative", "mutate"), HOST_CASES, ids=[c[0] for c in HOST_CASES]
)
def test_host_binding_flip_behind_a_valid_signature_fails(
    check_id: str, relative: str, mutate: Callable[[Doc], None]
) -> None:
    config = HOST_V3_CONFIG if relative == V3 else KIT_V2_CONFIG
    domain = OBJECT_B_V1 if relative == V3 else OBJECT_B_V2
    if check_id == "binding.object-a":
        # base64url cannot be decoded as Object A, so the record cannot be re-signed (v2).
        before, after, opts = host(relative, config, OBJECT_B_V1, mutate)
    else:
        before, after, opts = host(relative, config, domain, mutate)
    mutated = verify_receipt(after, "mutated", opts)
    if check_id != "binding.object-a":
        assert "fail" not in status_of(mutated, "signature.object-b")
        assert_flip(before, after, opts, check_id)
    else:
        assert mutated.outcome == "FAIL"
        assert "fail" in status_of(mutated, check_id)


def test_object_b_tamper_without_resigning_is_signature_invalid() -> None:
    before, after, opts = host(
        V3,
        HOST_V3_CONFIG,
        OBJECT_B_V1,
        lambda r: r.update(reason="safety kernel: ok"),
        resign=False,
    )
    mutated = assert_flip(before, after, opts, "signature.object-b")
    assert any(
        c.reason.startswith("signature invalid")
        for c in mutated.checks
        if c.id == "signature.object-b"
    )


def test_object_b_domain_swap_fails_the_signature() -> None:
    # One domain's signature presented under the other fails (verify-rules §2.1).
    original = fixture(KIT)
    swapped = original.replace(b'"domain": "seal.object-b/v2"', b'"domain": "seal.object-b/v1"')
    assert swapped != original
    opts = VerifyOptions(
        TrustStore.from_pins(
            config=[KIT_V2_CONFIG],
            receipt=["e74e48b61d5b203a3346b001af5a9aabe8890e75e3df2c932b5023dd5f6ec948"],
        )
    )
    assert_flip(original, swapped, opts, "signature.object-b")


def test_object_b_key_id_and_shape() -> None:
    before, after, opts = host(V3, HOST_V3_CONFIG, OBJECT_B_V1, lambda r: None)
    record = mint.parse_record(after)
    record["signature"]["key_id"] = flip(record["signature"]["key_id"])
    assert_flip(before, mint.render_pretty(record), opts, "signature.object-b-key-id")
    for member, value in (
        ("algorithm", "ed25519"),
        ("encoding", "base64"),
        ("domain", "seal.object-b/v3"),
    ):
        record = mint.parse_record(after)
        record["signature"][member] = value
        assert_flip(before, mint.render_pretty(record), opts, "signature.object-b-shape")
    record = mint.parse_record(after)
    record["signature"]["extra"] = "x"
    assert_flip(before, mint.render_pretty(record), opts, "signature.object-b-shape")


def test_unrebuildable_number_is_cannot_reconstruct_not_signature_invalid() -> None:
    original = fixture(V3)
    respelled = original.replace(b'"policy_version": 1,', b'"policy_version": 1.0e0,')
    assert respelled != original
    opts = VerifyOptions(
        TrustStore.from_pins(
            config=[HOST_V3_CONFIG],
            receipt=["85d7bdc4f48aebef2ef5d2e5f75f7ec5b921c1a03f50e4ed786d775b18fff87c"],
        )
    )
    subject = verify_receipt(respelled, "respelled", opts)
    assert subject.outcome == "FAIL"
    reasons = [c.reason for c in subject.checks if c.id == "signature.cannot-reconstruct"]
    assert reasons and reasons[0].startswith("cannot reconstruct signed bytes")
    assert "fail" not in status_of(subject, "signature.object-b")


# --- v3 ALLOW release authority (no real v3 ALLOW exists; minted by the testkit) ----------


def minted_allow() -> bytes:
    frame = mint.tools_call_frame("shell_exec", '{"command":"rm -rf /tmp/x"}')
    target = mint.guard_target_of(frame, mint.DEMO_KERNEL_CONFIG)
    return mint.mint_host_v3(frame, mint.DEMO_KERNEL_CONFIG, approvals=[target])


MINT_OPTS = VerifyOptions(
    TrustStore.from_pins(
        config=[mint.CONFIG_KEY.public_hex], receipt=[mint.RECEIPT_KEY.public_hex]
    ),
    (DEFAULT_KERNEL_SHA256, DEMO_WASM),
    allow_published_keys=True,
)


def _new_release_frame(record: Doc, operation_id: str) -> None:
    frame = base64.b64decode(record["release_frame"]["base64"])
    frame = frame.replace(record["operation_id"].encode(), operation_id.encode())
    digest = hashlib.sha256(frame).hexdigest()
    record["release_frame"].update(
        base64=base64.b64encode(frame).decode(), sha256=digest, length=JsonNumber(str(len(frame)))
    )
    post = f'{{"operation_id":"{record["operation_id"]}","release_frame_sha256":"{digest}"}}'
    record["post_state_hash"] = hashlib.sha256(post.encode()).hexdigest()


def _other_release_request(record: Doc) -> None:
    """Release another request than Object A, every hash and the operation id kept consistent."""
    frame = base64.b64decode(record["release_frame"]["base64"])
    frame = frame.replace(b"/tmp/x", b"/tmp/y")
    digest = hashlib.sha256(frame).hexdigest()
    record["release_frame"].update(
        base64=base64.b64encode(frame).decode(), sha256=digest, length=JsonNumber(str(len(frame)))
    )
    post = f'{{"operation_id":"{record["operation_id"]}","release_frame_sha256":"{digest}"}}'
    record["post_state_hash"] = hashlib.sha256(post.encode()).hexdigest()


RELEASE_CASES: list[tuple[str, Callable[[Doc], None]]] = [
    (
        "binding.release-frame",
        lambda r: r["release_frame"].update(
            length=JsonNumber(str(int(r["release_frame"]["length"].lexeme) + 1))
        ),
    ),
    (
        "binding.release-frame",
        lambda r: r["release_frame"].update(sha256=flip(r["release_frame"]["sha256"])),
    ),
    ("binding.release-operation-id", lambda r: _new_release_frame(r, "ab" * 32)),
    ("binding.release-frame-object-a", lambda r: _other_release_request(r)),
    ("binding.post-state-hash", lambda r: r.update(post_state_hash=flip(r["post_state_hash"]))),
    ("binding.release-companions", lambda r: r.pop("release_valid_until")),
]


@pytest.mark.parametrize(
    ("check_id", "mutate"), RELEASE_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(RELEASE_CASES)]
)
def test_release_binding_flip_fails(check_id: str, mutate: Callable[[Doc], None]) -> None:
    before = minted_allow()
    assert verify_receipt(before, "minted", MINT_OPTS).outcome == "VERIFIED"
    record = mint.parse_record(before)
    mutate(record)
    after = mint.render_pretty(mint.resign_v3(record, mint.RECEIPT_KEY))
    assert_flip(before, after, MINT_OPTS, check_id)


def test_post_state_hash_recomputed_independently() -> None:
    record = mint.parse_record(minted_allow())
    frame = base64.b64decode(record["release_frame"]["base64"])
    digest = hashlib.sha256(frame).hexdigest()
    post = f'{{"operation_id":"{record["operation_id"]}","release_frame_sha256":"{digest}"}}'
    assert record["post_state_hash"] == hashlib.sha256(post.encode()).hexdigest()


# --- legacy flag: canonical_request vs the _meta in the frame ------------------------------


def test_legacy_flag_names_the_meta_keys_the_canonical_request_omits() -> None:
    frame = mint.tools_call_frame(
        "shell_exec", '{"command":"rm -rf /"}', meta='{"traceparent":"00-1","z.example/k":1}'
    )
    before, after, opts = host(KIT, KIT_V2_CONFIG, OBJECT_B_V2, lambda r: _object_a(r, frame))
    subject = verify_receipt(after, "meta-frame", opts)
    legacy = [c for c in subject.checks if c.id == "legacy.canonical-request-omits-meta"]
    assert [c.status for c in legacy] == ["fail"]
    assert "traceparent" in legacy[0].reason and "z.example/k" in legacy[0].reason
    assert subject.outcome == "FAIL"
    assert status_of(
        verify_receipt(before, "kit", opts), "legacy.canonical-request-omits-meta"
    ) == {"pass"}


def test_legacy_flag_cannot_be_told_without_frame_bytes() -> None:
    subject = verify_receipt(fixture(BLOCK), "block", FLEET_OPTS)
    assert status_of(subject, "legacy.canonical-request-omits-meta") == {"not-evaluated"}
    assert subject.outcome == "VERIFIED"


def test_legacy_flag_passes_when_canonical_request_binds_meta() -> None:
    # An explicit allow: no guard target, so the current build re-derives it with _meta.
    frame = mint.tools_call_frame(
        "search_notes", '{"query":"rm -rf /tmp/x"}', meta='{"traceparent":"00-1"}'
    )
    subject = verify_receipt(mint.mint_host_v3(frame, mint.DEMO_KERNEL_CONFIG), "m", MINT_OPTS)
    assert status_of(subject, "legacy.canonical-request-omits-meta") == {"pass"}
    assert subject.outcome == "VERIFIED"


def test_legacy_flag_from_the_records_own_meta() -> None:
    record = json.loads(fixture("seal-check/test/fixtures/host-v2-block.receipt.json"))
    record["_meta"] = {"traceparent": "00-1"}
    text = (json.dumps(record, indent=2) + "\n").encode()
    opts = VerifyOptions(
        kernel_pins=(
            DEFAULT_KERNEL_SHA256,
            "0b5e792500592b56847f70b1e27e47aecdc65023c7c59fd79695102c465f26ec",
        )
    )
    subject = verify_receipt(text, "host-v2-meta", opts)
    legacy = [c for c in subject.checks if c.id == "legacy.canonical-request-omits-meta"]
    assert [c.status for c in legacy] == ["fail"] and "traceparent" in legacy[0].reason
    assert "fail" in status_of(subject, "binding.canonical-request")


def test_v1_hmac_signature_is_not_read_as_object_b() -> None:
    record = json.loads(fixture("seal-verify-action/fixtures/fail/bypass.receipt.json"))
    record["signature"] = "hmac-sha256:00"
    subject = verify_receipt(json.dumps(record).encode(), "v1", FLEET_OPTS)
    assert (subject.outcome, subject.label) == ("FAIL", "NOT MEDIATED")
    assert not [c for c in subject.checks if c.id.startswith("signature.")]


def test_approval_pin_matches_the_ed25519_approval_key_id() -> None:
    approver = "11" * 32
    document = json.loads(fixture(ALLOW))
    document["approval"] = {
        "approval_identity": {
            "channel": "ed25519",
            "key_id": hashlib.sha256(bytes.fromhex(approver)).hexdigest(),
        },
        "nonce": "n-1",
        "issued_at": 500,
        "expiry": 500 + 120_000,
        "policy_hash": document["approval"]["policy_hash"],
    }
    text = json.dumps(document).encode()
    # No token verifies the consent: the approval is a claim nothing binds (docs/claims.md).
    assert verify_receipt(text, "a", FLEET_OPTS).outcome == "REDUCED"
    pinned = VerifyOptions(
        TrustStore.from_pins(config=[RFC], approval=[approver]), allow_published_keys=True
    )
    assert status_of(verify_receipt(text, "a", pinned), "authority.approval-key") == {"pass"}
    other = VerifyOptions(TrustStore.from_pins(config=[RFC], approval=["22" * 32]))
    subject = verify_receipt(text, "a", other)
    assert subject.outcome == "FAIL"
    assert status_of(subject, "authority.approval-key") == {"fail"}
