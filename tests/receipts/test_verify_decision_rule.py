"""VERIFIED needs the decision re-derived: every way a signer can switch it off is REDUCED or FAIL.

seal-check's rule (velvetmonkey/seal-check README at 0632f31): ``verify-file.cjs`` "exits 0
only when signature, replay, bindings, and the relying-party pin all agree". Each test mints a
receipt with the testkit, changes what an attacker holding the signing keys would change,
re-signs it under the pinned keys, and expects REDUCED (the decision cannot be re-derived,
named) or FAIL (it re-derives to something else), never VERIFIED.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib

import pytest
from sealverify_testkit import mint

from sealverify._internal.kernel.receipt_inputs import prepare, receipt_nat
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import VerifyOptions, verify_receipt
from sealverify._internal.results.model import Subject
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue, parse_bytes
from tests.helpers.kernel_minting import BUILD, CONFIG, DENIED, GUARDED, HOST, SEARCH, TARGET

Receipt = dict[str, JsonValue]
PINS = TrustStore.from_pins(
    config=(mint.CONFIG_KEY.public_hex,), receipt=(mint.RECEIPT_KEY.public_hex,)
)
OPTIONS = VerifyOptions(trust=PINS, allow_published_keys=True)
# A build the kernel model has no profile for, accepted by the user (--kernel-sha256).
UNKNOWN = mint.DEMO_WASM_SHA256
WITH_UNKNOWN = dataclasses.replace(OPTIONS, kernel_pins=(BUILD, UNKNOWN))
V1 = dataclasses.replace(HOST, domain=mint.OBJECT_B_V1)


def _doc(raw: bytes) -> Receipt:
    doc = parse_bytes(raw)
    assert isinstance(doc, dict)
    return doc


def _signed(doc: Receipt) -> bytes:
    domain = str(doc["signature"]["domain"])  # type: ignore[index]
    return mint.render_pretty(mint.resign_v3(doc, mint.RECEIPT_KEY, domain))


def _check(subject: Subject, check_id: str) -> tuple[str, str]:
    check = next(c for c in subject.checks if c.id == check_id)
    return check.status, check.reason


def _reduced_only_by_the_decision(subject: Subject) -> str:
    """The replay reason of a receipt that is REDUCED by its decision alone."""
    assert subject.outcome == "REDUCED", [
        (c.id, c.reason) for c in subject.checks if c.status != "pass"
    ]
    assert not [c for c in subject.checks if c.status == "fail"]
    left = {c.id for c in subject.checks if c.status == "not-evaluated"}
    assert left == {"replay.decision", "decision.authenticated"}, left
    status, reason = _check(subject, "replay.decision")
    assert status == "not-evaluated"
    decision_status, decision_reason = _check(subject, "decision.authenticated")
    assert decision_status == "not-evaluated" and reason in decision_reason
    return reason


def test_an_honest_v3_receipt_is_verified_with_its_decision_re_derived() -> None:
    subject = verify_receipt(mint.mint_host_v3(GUARDED, CONFIG, ctx=HOST), "r", OPTIONS)
    assert subject.outcome == "VERIFIED"
    assert _check(subject, "replay.decision")[0] == "pass"
    assert _check(subject, "decision.authenticated")[0] == "pass"


def test_a_build_with_no_profile_pinned_by_the_user_is_reduced() -> None:
    raw = mint.mint_host_v3(GUARDED, CONFIG, ctx=dataclasses.replace(HOST, wasm_sha256=UNKNOWN))
    subject = verify_receipt(raw, "r", WITH_UNKNOWN)
    assert _check(subject, "kernel.identity")[0] == "pass"
    assert "has no profile in this model" in _reduced_only_by_the_decision(subject)


@pytest.mark.parametrize("frame", [SEARCH, DENIED, GUARDED], ids=["allowed", "denied", "guarded"])
def test_a_claimed_later_call_is_never_verified(frame: bytes) -> None:
    # A signer writes "trace ok (2 events)": the state-free parts may refute it (FAIL); what
    # needs the session is not re-derived (REDUCED). Never VERIFIED.
    ctx = dataclasses.replace(HOST, temporal_events=2)
    subject = verify_receipt(mint.mint_host_v3(frame, CONFIG, ctx=ctx), "r", OPTIONS)
    assert subject.outcome in ("REDUCED", "FAIL")
    assert _check(subject, "replay.decision")[0] != "pass"


def test_a_later_call_alone_is_reduced_naming_its_session() -> None:
    # "trace ok (2 events)": a later call of its session, whose state the receipt lacks.
    ctx = dataclasses.replace(HOST, temporal_events=2)
    subject = verify_receipt(mint.mint_host_v3(SEARCH, CONFIG, ctx=ctx), "r", OPTIONS)
    reason = _reduced_only_by_the_decision(subject)
    assert "executed call 2 of its session" in reason


def test_a_guarded_call_gated_on_evidence_no_receipt_carries_is_reduced() -> None:
    # The consensus kernel gates db.execute on votes no receipt carries: the decision cannot
    # be re-derived, whatever the receipt signature says.
    config = (
        CONFIG[:-1] + ',"consensus":{"roster":[1],"votes_file":"/v","high_stakes":["db.execute"]}}'
    )
    raw = mint.mint_host_v3(GUARDED, config, approvals=[TARGET], ctx=HOST)
    # The testkit's host writes no consensus cert, and what needs no state is judged always:
    # the receipt lacks the cert the consensus kernel must add (FAIL, named). With the cert
    # in place the votes would still be missing (REDUCED): never VERIFIED either way.
    subject = verify_receipt(raw, "r", OPTIONS)
    status, reason = _check(subject, "replay.decision")
    assert (subject.outcome, status) == ("FAIL", "fail"), reason
    assert "the consensus kernel's" in reason
    doc = _doc(raw)
    del doc["certs"]  # type: ignore[arg-type]
    assert verify_receipt(_signed(doc), "r", OPTIONS).outcome != "VERIFIED"


def test_no_rederive_leaves_every_decision_receipt_reduced() -> None:
    raw = mint.mint_host_v3(GUARDED, CONFIG, ctx=HOST)
    subject = verify_receipt(raw, "r", dataclasses.replace(OPTIONS, rederive=False))
    assert "--no-rederive" in _reduced_only_by_the_decision(subject)


def test_a_bypass_receipt_keeps_its_own_rule() -> None:
    subject = verify_receipt(mint.mint_fleet_bypass(SEARCH), "r", OPTIONS)
    assert (subject.outcome, subject.label) == ("FAIL", "NOT MEDIATED")


# --- inputs read exactly or not at all ----------------------------------------------------

LONG_NOW = 1_786_000_000_000_000_000  # 19 digits, a u64 the host can write


def _expired_allow(now: str, issued_at: str) -> bytes:
    """An ALLOW by approval, re-signed with the given ``now`` and ``approval.issued_at``."""
    doc = _doc(mint.mint_host_v3(GUARDED, CONFIG, approvals=[TARGET], ctx=HOST))
    doc["now"] = JsonNumber(now)
    approval = doc["approval"]
    assert isinstance(approval, dict)
    approval["issued_at"] = JsonNumber(issued_at)
    approval.pop("expiry", None)
    return _signed(doc)


def test_a_19_digit_now_is_read_exactly_so_an_expired_approval_fails() -> None:
    # The approval was issued 10^9 ms before the signed now: with a 120 s ttl the kernel
    # blocks the call. Read with at most 18 digits, now fell back to 1000 and the ALLOW
    # re-derived "identical".
    raw = _expired_allow(str(LONG_NOW), str(LONG_NOW - 10**9))
    subject = verify_receipt(raw, "r", OPTIONS)
    status, reason = _check(subject, "replay.decision")
    assert status == "fail", reason
    assert "route: the receipt says 'forward', the model 'block'" in reason
    assert subject.outcome == "FAIL"


def test_a_live_approval_with_a_19_digit_now_still_re_derives() -> None:
    raw = _expired_allow(str(LONG_NOW), str(LONG_NOW - 5000))
    assert _check(verify_receipt(raw, "r", OPTIONS), "replay.decision")[0] == "pass"


@pytest.mark.parametrize(
    "lexeme,named",
    [
        ("1786000000000.0", "not a natural number"),
        ("-1", "not a natural number"),
        ("1" + "0" * 45, "at most 40 digits"),
    ],
)
def test_a_now_the_kernel_reads_otherwise_declines_named(lexeme: str, named: str) -> None:
    doc = _doc(mint.mint_host_v3(SEARCH, CONFIG, ctx=HOST))
    doc["now"] = JsonNumber(lexeme)
    inputs = prepare(doc)
    assert not hasattr(inputs, "now"), inputs
    assert named in getattr(inputs, "reason", "")


def test_receipt_nat_follows_lean_get_nat() -> None:
    assert receipt_nat(JsonNumber("1e3"), "now") == 1000
    assert receipt_nat(JsonNumber(str(LONG_NOW)), "now") == LONG_NOW
    assert receipt_nat(JsonNumber("18446744073709551615"), "now") == 2**64 - 1
    for bad in (JsonNumber("1.0"), JsonNumber("-5"), "1000", None, True):
        assert not isinstance(receipt_nat(bad, "now"), int), bad


def test_an_unreadable_issued_at_declines_rather_than_defaulting() -> None:
    doc = _doc(mint.mint_host_v3(GUARDED, CONFIG, approvals=[TARGET], ctx=HOST))
    approval = doc["approval"]
    assert isinstance(approval, dict)
    approval["issued_at"] = JsonNumber("1.5")
    assert "approval.issued_at" in getattr(prepare(doc), "reason", "")


@pytest.mark.parametrize("grants", ["not-a-list", ["not-an-object"]])
def test_grants_that_are_not_objects_decline_rather_than_being_skipped(grants: object) -> None:
    doc = _doc(mint.mint_fleet_v2(SEARCH, CONFIG, ctx=mint.FleetContext(wasm_sha256=BUILD)))
    doc["granted_capabilities"] = grants  # type: ignore[assignment]
    assert "granted_capabilities" in getattr(prepare(doc), "reason", "")


# --- Object B v1: re-derived from the Object A the release frame carries ------------------

WIRE = mint.tools_call_frame("db.execute", '{"sql":"drop table x","database":"prod"}', request_id=7)
WIRE_TARGET = mint.guard_target_of(WIRE, CONFIG)


def test_an_object_b_v1_allow_re_derives_from_its_recovered_object_a() -> None:
    raw = mint.mint_host_v3(WIRE, CONFIG, approvals=[WIRE_TARGET], ctx=V1)
    doc = _doc(raw)
    assert "signed_artifacts" not in doc
    canonical = str(doc["canonical_request"]).encode()
    assert hashlib.sha256(canonical).hexdigest() != doc["request_sha256"]  # id 7, not 1
    subject = verify_receipt(raw, "r", OPTIONS)
    status, reason = _check(subject, "replay.decision")
    assert status == "pass" and "recovered from the release frame" in reason
    assert subject.outcome == "VERIFIED"


def test_an_object_b_v1_receipt_with_a_forged_decision_fails() -> None:
    # The approval is withdrawn from the grants and the record re-signed: the kernel blocks
    # the recovered call, the receipt says forward.
    doc = _doc(mint.mint_host_v3(WIRE, CONFIG, approvals=[WIRE_TARGET], ctx=V1))
    doc["granted_capabilities"] = []
    subject = verify_receipt(_signed(doc), "r", OPTIONS)
    status, reason = _check(subject, "replay.decision")
    assert status == "fail", reason
    assert subject.outcome == "FAIL"


def test_an_object_b_v1_release_frame_for_another_request_is_not_re_derived_from() -> None:
    doc = _doc(mint.mint_host_v3(WIRE, CONFIG, approvals=[WIRE_TARGET], ctx=V1))
    other = mint.tools_call_frame(
        "db.execute", '{"sql":"select 1","database":"prod"}', request_id=7
    )
    release = mint.splice_operation_id(other, str(doc["operation_id"]))
    frame = doc["release_frame"]
    assert isinstance(frame, dict)
    frame["base64"] = base64.b64encode(release).decode()
    reason = getattr(prepare(doc), "reason", "")
    assert "does not hash to request_sha256" in reason
    assert verify_receipt(_signed(doc), "r", OPTIONS).outcome == "FAIL"


# --- --approvals with no approver key pinned ---------------------------------------------


def test_approvals_checked_with_no_approver_pin_is_unpinned() -> None:
    ctx = dataclasses.replace(HOST, approval_channel="ed25519")
    raw = mint.mint_host_v3(GUARDED, CONFIG, approvals=[TARGET], ctx=ctx)
    token = mint.approval_token(GUARDED, CONFIG, ctx=ctx)
    options = dataclasses.replace(OPTIONS, approval_tokens=(("tokens.ndjson:1", token),))
    subject = verify_receipt(raw, "r", options)
    assert subject.outcome == "UNPINNED"
    status, reason = _check(subject, "approval.receipt-key")
    assert status == "not-evaluated" and reason.startswith("UNPINNED")
    pinned = TrustStore.from_pins(
        config=(mint.CONFIG_KEY.public_hex,),
        receipt=(mint.RECEIPT_KEY.public_hex,),
        approval=(mint.APPROVER_KEY.public_hex,),
    )
    assert verify_receipt(raw, "r", dataclasses.replace(options, trust=pinned)).outcome == (
        "VERIFIED"
    )


def test_denied_call_is_re_derived_in_every_host_domain() -> None:
    for ctx in (HOST, V1):
        subject = verify_receipt(mint.mint_host_v3(DENIED, CONFIG, ctx=ctx), "r", OPTIONS)
        assert _check(subject, "replay.decision")[0] == "pass"
        assert subject.outcome == "VERIFIED"


def test_explain_verified_and_reduced_state_the_rule() -> None:
    from click.testing import CliRunner

    from sealverify._internal.cli.main import cli

    for outcome in ("VERIFIED", "REDUCED"):
        result = CliRunner().invoke(cli, ["explain", outcome])
        assert result.exit_code == 0, result.output
        text = " ".join(result.output.split())
        assert "seal-check" in text and "0632f31" in text
    verified = " ".join(CliRunner().invoke(cli, ["explain", "VERIFIED"]).output.split())
    assert (
        "exits 0 only when signature, replay, bindings, and the relying-party pin all agree"
        in verified
    )
    reduced = " ".join(CliRunner().invoke(cli, ["explain", "REDUCED"]).output.split())
    assert "exits 4, never 0" in reduced


def test_the_summary_line_says_an_unre_derived_decision_is_never_verified() -> None:
    from sealverify._internal.reports.formats.table import rederivation_summary

    line = rederivation_summary({"decision_rederivation": {"pass": 1, "not-evaluated": 2}})
    assert line.endswith("2 not evaluated (a kernel decision not re-derived is never VERIFIED)")
    assert "never VERIFIED" not in rederivation_summary({"decision_rederivation": {"pass": 3}})


def test_a_grant_whose_arguments_the_kernel_cannot_read_declines_never_crashes() -> None:
    raw = mint.mint_fleet_v2(GUARDED, CONFIG, ctx=mint.FleetContext(wasm_sha256=BUILD))
    hostile = raw.replace(
        b'"granted_capabilities": []',
        b'"granted_capabilities": [{"tool":"db.execute","arguments":{"x":1e9999999}}]',
    )
    assert hostile != raw
    subject = verify_receipt(hostile, "r", OPTIONS)
    status, reason = _check(subject, "replay.decision")
    assert status == "not-evaluated" and "arguments the kernel cannot read" in reason
    assert subject.outcome != "VERIFIED"
