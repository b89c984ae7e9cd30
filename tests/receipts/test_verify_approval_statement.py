"""Object B v2 ``approval_statement``: minted ed25519 approvals, the binding, and its flips.

No real receipt carries a non-null statement (every fixture's is null), so the ALLOW here is
minted by sealverify_testkit.mint. Expected values are recomputed independently (hashlib, a
sorted-key ``json.dumps``, the seal-host producer rules in verify-rules §2.3), not read back
from the code under test. Each flip re-signs Object B, so only the binding can catch it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sealverify_testkit import mint

from sealverify._internal.primitives.objectb import OBJECT_B_V2
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import VerifyOptions, verify_receipt
from sealverify._internal.wire.strictjson import JsonNumber
from tests.conftest import shared_path
from tests.helpers.verify_approval_statement import OPTS, verify_with_approvals
from tests.helpers.verify_bindings import KIT, KIT_V2_CONFIG, assert_flip, fixture, flip, status_of

STATEMENT = "binding.approval-statement"
CTX = mint.HostContext(approval_channel="ed25519")
FRAME = mint.tools_call_frame("shell_exec", '{"command":"rm -rf /tmp/x"}')
TTL_MS = 120 * 1000  # DEMO_KERNEL_CONFIG safety.approval.ttl_seconds
APPROVER_KEY_ID = hashlib.sha256(mint.APPROVER_KEY.public_key).hexdigest()

Doc = dict[str, Any]


def minted() -> bytes:
    target = mint.guard_target_of(FRAME, mint.DEMO_KERNEL_CONFIG)
    return mint.mint_host_v3(FRAME, mint.DEMO_KERNEL_CONFIG, approvals=[target], ctx=CTX)


def statement_of(record: Doc) -> dict[str, Any]:
    raw = base64.b64decode(record["signed_artifacts"]["approval_statement"], validate=True)
    value: dict[str, Any] = json.loads(raw)
    return value


def canonical(payload: dict[str, Any]) -> bytes:
    # Independent of sealverify._internal.approvals.render: for ASCII text without control
    # characters the ApprovalRecord renderer equals sorted-key, separator-free json.dumps.
    return json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()


def with_statement(record: Doc, data: bytes | None) -> None:
    record["signed_artifacts"]["approval_statement"] = (
        None if data is None else base64.b64encode(data).decode()
    )


def resigned(mutate: Callable[[Doc], None]) -> bytes:
    record = mint.parse_record(minted())
    mutate(record)
    return mint.render_pretty(mint.resign_v3(record, mint.RECEIPT_KEY, OBJECT_B_V2))


# --- minting ----------------------------------------------------------------------------


def test_minted_ed25519_allow_verifies_with_every_pin() -> None:
    subject = verify_receipt(minted(), "ed25519-allow", OPTS)
    assert subject.outcome == "VERIFIED", [
        (c.id, c.reason) for c in subject.checks if c.status == "fail"
    ]
    assert status_of(subject, STATEMENT) == {"pass"}
    assert status_of(subject, "authority.approval-key") == {"pass"}
    assert status_of(subject, "signature.object-b") == {"pass"}


def test_minted_statement_and_approval_block_follow_the_host() -> None:
    data = minted()
    assert data == minted()  # deterministic
    record = json.loads(data)
    payload = statement_of(record)
    raw = base64.b64decode(record["signed_artifacts"]["approval_statement"])
    assert raw == canonical(payload)
    assert set(payload) == {
        "approval_record_version",
        "target",
        "authorized_at",
        "expiry",
        "nonce",
        "session",
        "subject_sha256",
        "subject_length",
        "subject_scope",
        "subject_encoding",
        "shown_sha256",
        "shown_length",
        "shown_media_type",
        "shown_character_encoding",
        "renderer",
        "approver",
        "authorization_signer_key_id",
        "authorization_signature_algorithm",
        "authorization_domain",
    }
    assert payload["subject_sha256"] == hashlib.sha256(FRAME).hexdigest()
    assert payload["subject_length"] == len(FRAME) == record["framed_subject_length"]
    assert payload["subject_scope"] == "mcp-jsonrpc-request-frame-including-delimiter"
    assert payload["authorization_domain"] == "seal.approval-record/v2"
    assert payload["authorization_signer_key_id"] == APPROVER_KEY_ID
    assert payload["target"] == record["certs"][0]["reason"]
    assert payload["target"] in [g["target"] for g in record["granted_capabilities"]]
    approval = record["approval"]
    assert approval["approval_identity"] == {"channel": "ed25519", "key_id": APPROVER_KEY_ID}
    assert approval["nonce"] == payload["nonce"]
    assert approval["issued_at"] == payload["authorized_at"]
    assert approval["expiry"] == approval["issued_at"] + TTL_MS  # not the record's own expiry
    assert list(approval) == ["approval_identity", "nonce", "issued_at", "expiry", "policy_hash"]


def test_object_b_v2_signature_covers_the_statement() -> None:
    record = mint.parse_record(minted())
    payload = statement_of(record)
    payload["session"] = "another-session"
    with_statement(record, canonical(payload))
    subject = verify_receipt(mint.render_pretty(record), "unsigned-edit", OPTS)
    assert subject.outcome == "FAIL"
    assert status_of(subject, "signature.object-b") == {"fail"}


def test_approval_token_verifies_end_to_end_through_the_cli(tmp_path: Path) -> None:
    receipt = tmp_path / "allow.json"
    receipt.write_bytes(minted())
    tokens = tmp_path / "approvals.ndjson"
    tokens.write_bytes(mint.approval_token(FRAME, mint.DEMO_KERNEL_CONFIG, ctx=CTX) + b"\n")
    token = json.loads(tokens.read_bytes())
    assert token["payload"].encode() == base64.b64decode(
        json.loads(receipt.read_bytes())["signed_artifacts"]["approval_statement"]
    )
    code, output, checks = verify_with_approvals(receipt, tokens)
    assert code == 0, output
    for check_id in (
        "approval.signature",
        "approval.subject",
        "approval.target",
        "approval.time",
        "approval.receipt-statement",
        STATEMENT,
    ):
        assert (check_id, "pass") in checks
    assert not [c for c in checks if c[1] == "fail"]

    other = mint.tools_call_frame("shell_exec", '{"command":"rm -rf /tmp/y"}')
    tokens.write_bytes(mint.approval_token(other, mint.DEMO_KERNEL_CONFIG, ctx=CTX) + b"\n")
    code, output, checks = verify_with_approvals(receipt, tokens)
    assert code == 1, output
    assert ("approval.receipt-token", "fail") in checks


# --- the binding, flipped behind a valid Object B signature -------------------------------


def _payload_edit(member: str, value: Callable[[Any], Any]) -> Callable[[Doc], None]:
    def mutate(record: Doc) -> None:
        payload = statement_of(record)
        payload[member] = value(payload[member])
        with_statement(record, canonical(payload))

    return mutate


STATEMENT_FLIPS: list[tuple[str, Callable[[Doc], None]]] = [
    ("target", _payload_edit("target", flip)),
    ("subject_sha256", _payload_edit("subject_sha256", flip)),
    ("subject_length", _payload_edit("subject_length", lambda n: n + 1)),
    ("nonce", _payload_edit("nonce", lambda n: n + "0")),
    ("authorized_at", _payload_edit("authorized_at", lambda n: n - 1)),
    ("authorization_signer_key_id", _payload_edit("authorization_signer_key_id", flip)),
    # The receipt side of the same bindings.
    ("nonce", lambda r: r["approval"].update(nonce=r["approval"]["nonce"] + "0")),
    (
        "authorization_signer_key_id",
        lambda r: r["approval"]["approval_identity"].update(key_id="ab" * 32),
    ),
    (
        "subject_sha256",
        lambda r: r.update(framed_subject_sha256=flip(r["framed_subject_sha256"])),
    ),
]


@pytest.mark.parametrize(
    ("member", "mutate"),
    STATEMENT_FLIPS,
    ids=[f"{member}-{index}" for index, (member, _) in enumerate(STATEMENT_FLIPS)],
)
def test_statement_member_flip_fails_naming_the_member(
    member: str, mutate: Callable[[Doc], None]
) -> None:
    mutated = assert_flip(minted(), resigned(mutate), OPTS, STATEMENT)
    assert "fail" not in status_of(mutated, "signature.object-b")
    reasons = [c.reason for c in mutated.checks if c.id == STATEMENT and c.status == "fail"]
    assert any(r.startswith(f"{member}:") for r in reasons), reasons


def test_issued_at_flip_fails_the_statement_as_well_as_the_expiry() -> None:
    def mutate(record: Doc) -> None:
        issued = int(record["approval"]["issued_at"].lexeme) + 1
        record["approval"]["issued_at"] = JsonNumber(str(issued))
        record["approval"]["expiry"] = JsonNumber(str(issued + TTL_MS))

    mutated = assert_flip(minted(), resigned(mutate), OPTS, STATEMENT)
    assert status_of(mutated, "binding.approval-expiry") == {"pass"}
    reasons = [c.reason for c in mutated.checks if c.id == STATEMENT and c.status == "fail"]
    assert [r for r in reasons if r.startswith("authorized_at:")]


@pytest.mark.parametrize(
    ("case", "data", "needle"),
    [
        ("whitespace", lambda p: json.dumps(p, sort_keys=True).encode(), "re-render"),
        (
            "unsorted",
            lambda p: json.dumps(dict(reversed(p.items())), separators=(",", ":")).encode(),
            "re-render",
        ),
        ("extra-member", lambda p: canonical({**p, "zz": "x"}), "zz:"),
        (
            "missing-member",
            lambda p: canonical({k: v for k, v in p.items() if k != "session"}),
            "session:",
        ),
        ("bad-value", lambda p: canonical({**p, "subject_scope": "body"}), "subject_scope:"),
        (
            "renderer-member",
            lambda p: canonical({**p, "renderer": {**p["renderer"], "name": ""}}),
            "renderer.name:",
        ),
        ("not-json", lambda p: b"{" + canonical(p), "not strict JSON"),
        ("not-object", lambda p: b"[]", "not a JSON object"),
    ],
)
def test_statement_that_is_not_the_canonical_payload_fails(
    case: str, data: Callable[[dict[str, Any]], bytes], needle: str
) -> None:
    mutated = assert_flip(
        minted(),
        resigned(lambda r: with_statement(r, data(statement_of(r)))),
        OPTS,
        STATEMENT,
    )
    reasons = [c.reason for c in mutated.checks if c.id == STATEMENT and c.status == "fail"]
    assert any(needle in r for r in reasons), (case, reasons)


def test_non_canonical_base64_fails() -> None:
    record = mint.parse_record(minted())
    text = record["signed_artifacts"]["approval_statement"]
    # A line break inside is what a MIME encoder writes; canonical standard base64 has none.
    record["signed_artifacts"]["approval_statement"] = text[:4] + "\n" + text[4:]
    subject = verify_receipt(mint.render_pretty(record), "b64", OPTS)
    assert subject.outcome == "FAIL"
    assert "fail" in status_of(subject, STATEMENT)


def test_null_statement_on_an_ed25519_approval_fails() -> None:
    mutated = assert_flip(minted(), resigned(lambda r: with_statement(r, None)), OPTS, STATEMENT)
    reasons = [c.reason for c in mutated.checks if c.id == STATEMENT]
    assert reasons and "null" in reasons[0]


def test_statement_on_a_non_ed25519_approval_fails_naming_the_channel() -> None:
    def mutate(record: Doc) -> None:
        record["approval"]["approval_identity"] = {"channel": "file"}

    mutated = assert_flip(minted(), resigned(mutate), OPTS, STATEMENT)
    reasons = [c.reason for c in mutated.checks if c.id == STATEMENT and c.status == "fail"]
    assert any(r.startswith("approval.approval_identity.channel:") for r in reasons), reasons


def test_file_channel_allow_and_real_fixtures_carry_no_statement_check() -> None:
    target = mint.guard_target_of(FRAME, mint.DEMO_KERNEL_CONFIG)
    file_allow = mint.mint_host_v3(FRAME, mint.DEMO_KERNEL_CONFIG, approvals=[target])
    assert json.loads(file_allow)["signed_artifacts"]["approval_statement"] is None
    subject = verify_receipt(file_allow, "file", OPTS)
    assert subject.outcome == "VERIFIED"
    assert status_of(subject, STATEMENT) == set()
    shared_path("fixtures", "seal")  # skips cleanly without ../shared
    opts = VerifyOptions(
        TrustStore.from_pins(
            config=[KIT_V2_CONFIG],
            receipt=["e74e48b61d5b203a3346b001af5a9aabe8890e75e3df2c932b5023dd5f6ec948"],
        )
    )
    kit = verify_receipt(fixture(KIT), "kit", opts)
    assert json.loads(fixture(KIT))["signed_artifacts"]["approval_statement"] is None
    assert kit.outcome == "VERIFIED"
    assert status_of(kit, STATEMENT) == set()
