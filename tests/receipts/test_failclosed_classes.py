"""Named cases for every class of false pass: each forges, re-signs, and expects a refusal.

The classes are those of docs/claims.md and docs/verify.md ("What VERIFIED means"): family
confusion, decisions no signature covers, Object A and the release frame, the guard target
and the ruling, decision semantics, time, approvals, history, the chain, keys, discovery.
Every forgery is built with the project's testkit and public test keys, or without any key.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from sealverify_testkit import mint

from sealverify._internal.approvals.tokens import check_token
from sealverify._internal.cli.main import cli
from sealverify._internal.history import state as history
from sealverify._internal.history.chain import Anchor, verify_logs
from sealverify._internal.primitives import identities
from sealverify._internal.primitives.releaseframe import unsplice_operation_id
from sealverify._internal.primitives.signatures import (
    ed25519_verify,
    ed25519_verify_openssl,
    ed25519_verify_sodium,
)
from sealverify._internal.primitives.trust import PinnedKey, TrustStore
from sealverify._internal.receipts import claims
from sealverify._internal.receipts.verify import (
    DEFAULT_KERNEL_SHA256,
    VOCABULARY,
    VerifyOptions,
    verify_receipt,
)
from sealverify._internal.results.model import Check, Subject, fail, not_evaluated, passed, reduced
from sealverify._internal.results.outcomes import decide
from sealverify._internal.results.vocabulary import Family
from sealverify._internal.wire import leanjson
from sealverify._internal.wire.framing import raw_line, sha256_hex
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue, parse_text
from tests.conftest import shared_path
from tests.helpers import adversarial_corpus as corpus
from tests.helpers.chain import GEN, PAYLOADS, flat, session_pairs

Record = dict[str, JsonValue]
PINS = TrustStore.from_pins(
    config=[mint.CONFIG_KEY.public_hex],
    receipt=[mint.RECEIPT_KEY.public_hex],
    approval=[mint.APPROVER_KEY.public_hex],
)
KERNELS = (DEFAULT_KERNEL_SHA256, corpus.KERNEL, corpus.DEMO_KERNEL)
OPTIONS = VerifyOptions(PINS, kernel_pins=KERNELS, allow_published_keys=True)
CASES = {case.name: case for case in corpus.build()}


def case(name: str) -> Record:
    return CASES[name].record


def verify(record: Record | bytes, options: VerifyOptions = OPTIONS, name: str = "r") -> Subject:
    data = record if isinstance(record, bytes) else mint.render_pretty(record)
    return verify_receipt(data, name, options)


def statuses(subject: Subject, check_id: str) -> set[str]:
    return {c.status for c in subject.checks if c.id == check_id}


def failing(subject: Subject) -> set[str]:
    return {c.id for c in subject.checks if c.status == "fail"}


def resigned(record: Record, path: str = "") -> Record:
    signature = record.get("signature")
    family = "v3" if isinstance(signature, dict) else "v2"
    return corpus.resign(record, family, path)


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# --- forging helpers (no key needed) ------------------------------------------------------


def _safety_target(record: Record) -> str:
    certs = record["certs"]
    assert isinstance(certs, list)
    for cert in certs:
        if isinstance(cert, dict) and cert.get("kernel") == "safety":
            reason = cert["reason"]
            assert isinstance(reason, str)
            return reason.split(": ")[-1]
    raise AssertionError("no safety cert")


def _request_id(record: Record) -> JsonValue:
    artifacts = record.get("signed_artifacts")
    if isinstance(artifacts, dict) and isinstance(artifacts.get("object_a"), str):
        message = parse_text(raw_line(base64.b64decode(str(artifacts["object_a"]))).decode())
        assert isinstance(message, dict)
        return message["id"]
    return JsonNumber("1")


def forge_allow(record: Record) -> Record:
    """A BLOCK turned into a coherent approved ALLOW with no key: what any forger can do."""
    forged = copy.deepcopy(record)
    target = _safety_target(forged)
    certs = [
        mint.Cert("safety", "allow", target),
        mint.Cert("temporal", "allow", "trace ok (1 events)"),
    ]
    config = forged["kernel_config"]
    assert isinstance(config, dict)
    now = forged.get("now")
    issued = (now.as_int() if isinstance(now, JsonNumber) else 1000) - 5000  # type: ignore[operator]
    forged["verdict"] = "ALLOW"
    forged["authorization"] = "approval"
    forged["reason"] = "every gating kernel allows"
    forged["deny_kernel"] = None
    host = "record_type" in forged
    approval: Record = {"approval_identity": {"channel": "file" if host else "interactive"}}
    if host:  # the host stamps the consumed record's time; fleet producers do not
        approval["issued_at"] = JsonNumber(str(issued))
        approval["expiry"] = JsonNumber(str(issued + 120_000))
    approval["policy_hash"] = sha256_hex(mint.render_compact(config))
    forged["approval"] = approval
    form = "host_form" if host else "fleet_form"
    forged["certs"] = [getattr(cert, form)() for cert in certs]
    request = forged.get("request_sha256") or forged.get("canonical_request_sha256")
    assert isinstance(request, str)
    forged["emitted_bytes"] = mint.emitted_bytes(
        config.get("epoch"), str(forged["tool"]), certs, request, _request_id(forged)
    )
    forged["granted_capabilities"] = [{"target": target}]
    return forged


V3_MEMBERS = corpus._V3_ONLY


# --- class 1: family downgrade and confusion ----------------------------------------------


def test_class1_real_v3_block_forged_into_allow_and_relabelled_v2_is_refused() -> None:
    # The exhibit: a real, pinned record_version 3 BLOCK, edited into an approved
    # ALLOW and relabelled as the older family, with no private key at all.
    data = shared_path(
        "fixtures", "seal", "seal-assurance-kit", "fixtures", "object-b-v2-host-04f7ba83.json"
    ).read_bytes()
    options = VerifyOptions(
        TrustStore.from_pins(
            config=["88d2d0c0cbb47cfc637efda0d9dc2f4277dfc7d7e686049fae89ac2153b740c3"],
            receipt=["e74e48b61d5b203a3346b001af5a9aabe8890e75e3df2c932b5023dd5f6ec948"],
        ),
        allow_published_keys=True,
    )
    assert verify(data, options).outcome == "VERIFIED"
    forged = forge_allow(mint.parse_record(data))
    forged["record_version"] = JsonNumber("2")
    kept = verify(forged, options)
    assert kept.outcome == "FAIL"
    assert "receipt.members" in failing(kept)  # v3 members on a v2 record
    assert "signature.object-b" in failing(kept)  # and the envelope is still verified
    for name in V3_MEMBERS:
        forged.pop(name, None)
    dropped = verify(forged, options)
    assert dropped.outcome == "REDUCED"
    # Its decision may even re-derive (the forger wrote the grant the kernel reads): what
    # nothing authenticates is the approval and the framed subject.
    unbound = next(c for c in dropped.checks if c.id == "claims.unbound")
    assert "/approval" in unbound.data["members"]


@pytest.mark.parametrize(
    "member",
    [
        "signature",
        "signed_artifacts",
        "release_frame",
        "release_status",
        "operation_id",
        "durability_class",
        "post_state_hash",
        "effect_view",
        "approval_statement",
        "framed_subject_sha256",
    ],
)
@pytest.mark.parametrize("name", ["v2-allow", "v1-allow", "v0-live-allow"])
def test_class1_a_member_only_another_family_defines_fails(name: str, member: str) -> None:
    donor = case("v3-b2-allow-ed25519")
    record = case(name)
    record[member] = copy.deepcopy(donor.get(member, donor["signed_artifacts"]))
    subject = verify(record)
    assert subject.outcome == "FAIL"
    assert "receipt.members" in failing(subject)


def test_class1_v2_host_carrying_v3_members_fails() -> None:
    record = case("v2-host-block")
    donor = case("v3-b2-block")
    for name in ("release_status", "operation_id", "durability_class"):
        record[name] = donor[name]
    assert "receipt.members" in failing(verify(record))


def test_class1_unknown_member_at_every_level_fails() -> None:
    for pointer in (
        (),
        ("approval",),
        ("approval", "approval_identity"),
        ("certs", 0),
        ("effect_view",),
    ):
        record = case("v3-b2-allow")
        target: JsonValue = record
        for step in pointer:
            target = target[step]  # type: ignore[index]
        assert isinstance(target, dict)
        target["sealverify_extra"] = "x"
        subject = verify(resigned(record))
        assert subject.outcome == "FAIL", pointer
        assert "receipt.members" in failing(subject), pointer


def test_class1_object_b_envelope_on_another_family_is_verified() -> None:
    record = case("v2-block")
    stale = copy.deepcopy(case("v3-b2-block")["signature"])
    record["signature"] = stale
    subject = verify(record)
    assert subject.outcome == "FAIL"
    # Verified where it sits: over a fleet record it cannot even be rebuilt (no Object A).
    assert failing(subject) & {"signature.object-b", "signature.cannot-reconstruct"}


def test_class1_object_b_envelope_nested_anywhere_is_verified() -> None:
    record = case("v2-block")
    nested = case("v3-b2-block")
    nested["verdict"] = "ALLOW"  # a stale envelope: the record changed after signing
    record["execution"] = {"inner": nested}
    subject = verify(record)
    assert subject.outcome == "FAIL"
    located = [c for c in subject.checks if c.id == "signature.object-b" and c.status == "fail"]
    assert located and located[0].location.startswith("/execution/inner")


def test_class1_required_member_missing_fails() -> None:
    for name in ("effect_view", "host_identity", "asserted_provenance", "now"):
        record = case("v3-b2-block")
        del record[name]
        subject = verify(resigned(record))
        assert subject.outcome == "FAIL", name


# --- class 2: decisions no signature covers -----------------------------------------------


UNREPLAYED = VerifyOptions(PINS, kernel_pins=KERNELS, rederive=False, allow_published_keys=True)


@pytest.mark.parametrize("name", ["v2-host-allow", "v2-allow", "v1-allow", "v0-live-allow"])
def test_class2_unsigned_decisions_are_reduced_until_re_derived(name: str) -> None:
    subject = verify(case(name), UNREPLAYED)
    assert subject.outcome == "REDUCED"
    check = next(c for c in subject.checks if c.id == "decision.authenticated")
    assert check.status == "not-evaluated"
    assert "decision not authenticated" in check.reason


@pytest.mark.parametrize("name", ["v2-block", "v1-block", "v0-live-block", "v2-explicit"])
def test_class2_a_re_derived_decision_is_authenticated(name: str) -> None:
    subject = verify(case(name))
    assert statuses(subject, "replay.decision") == {"pass"}
    assert statuses(subject, "decision.authenticated") == {"pass"}
    assert subject.outcome == "VERIFIED"


def test_class2_forged_fleet_allow_with_a_real_signed_policy_is_never_verified() -> None:
    # Anyone holding a real signed policy can write a receipt around it: only the decision's
    # re-derivation tells, and without it the receipt is REDUCED, never VERIFIED.
    forged = forge_allow(case("v2-block"))
    unreplayed = verify(forged, UNREPLAYED)
    assert unreplayed.outcome == "REDUCED"
    assert failing(unreplayed) == set()
    # Re-derived, the decision follows from the grant the forger wrote; the approval behind
    # it is what nothing authenticates, so it is still not VERIFIED.
    replayed = verify(forged)
    assert replayed.outcome == "REDUCED"
    assert statuses(replayed, "claims.unbound") == {"not-evaluated"}


def test_class2_the_decision_is_authenticated_in_one_place() -> None:
    """claims.decision_check decides decision.authenticated from the replay; decide only reads it.

    A replay that could not run caps the receipt at REDUCED through decision.authenticated
    whatever effect the replay check itself declares; only a passing replay lifts it.
    """
    base = [passed("receipt.family", "")]

    def verdict(replay: Check) -> str:
        checks = [*base, replay, claims.decision_check(Family.V3, replay)]
        return decide(checks, VOCABULARY).outcome

    assert verdict(not_evaluated("replay.decision", "r")) == "REDUCED"
    assert verdict(reduced("replay.decision", "r")) == "REDUCED"
    assert verdict(passed("replay.decision", "")) == "VERIFIED"
    assert verdict(fail("replay.decision", "")) == "FAIL"


def test_class2_real_fleet_receipts_are_reduced_unless_re_derived() -> None:
    data = shared_path("fixtures", "seal", "seal-check", "examples", "allow.receipt.json")
    rfc = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    result = run(
        "verify",
        str(data),
        "--config-pubkey",
        rfc,
        "--no-rederive",
        "--allow-published-keys",
        "--format",
        "json",
    )
    assert result.exit_code == 4
    assert "decision not authenticated" in result.output


# --- class 3: Object A and the release frame ----------------------------------------------


def _with_object_a(record: Record, frame: bytes) -> Record:
    """Swap Object A and re-derive every raw-frame identity from it (what a signer can do)."""
    out = copy.deepcopy(record)
    artifacts = out["signed_artifacts"]
    assert isinstance(artifacts, dict)
    artifacts["object_a"] = base64.b64encode(frame).decode()
    out["framed_subject_sha256"] = sha256_hex(frame)
    out["framed_subject_length"] = JsonNumber(str(len(frame)))
    line_hash = sha256_hex(raw_line(frame))
    out["request_sha256"] = line_hash
    view = out.get("effect_view")
    if isinstance(view, dict):
        view["raw_preimage_sha256"] = line_hash
        view["idempotency_key"] = f"{view['session']}:{line_hash}"
    step = parse_text(str(out["emitted_bytes"]))
    assert isinstance(step, dict)
    audit = parse_text(str(step["audit"]))
    assert isinstance(audit, dict)
    audit["request_sha256"] = line_hash
    step["audit"] = leanjson.compress(audit)
    out["emitted_bytes"] = leanjson.compress(step)
    return resigned(out)


GOOD_FRAME = corpus.frame()


@pytest.mark.parametrize(
    "frame",
    [
        GOOD_FRAME.replace(b'"jsonrpc":"2.0"', b'"jsonrpc":"1.0"'),
        GOOD_FRAME.replace(b'"method":"tools/call"', b'"method":"tools/list"'),
        GOOD_FRAME.replace(b'"id":7,', b""),
        GOOD_FRAME.replace(b'"id":7', b'"id":null'),
        GOOD_FRAME.replace(b'{"jsonrpc"', b'{"extra":1,"jsonrpc"'),
        GOOD_FRAME.replace(b'"name":"shell_exec"', b'"name":"shell_exec","task":{}'),
        GOOD_FRAME.replace(b'"cwd":"/srv/app"', b'"cwd":"/srv/app","cwd":"/"'),
        GOOD_FRAME.replace(b'"name":"shell_exec"', b'"n\\u0061me":"shell_exec"'),
        GOOD_FRAME.replace(b'"name":"shell_exec"', b'"name":7'),
        GOOD_FRAME.replace(b'"arguments":{', b'"arguments":[{').replace(b'app"}}', b'app"}]}'),
        GOOD_FRAME.replace(b'"params":{', b'"params":{"_meta":{"a":1},"_meta":{"a":1},'),
    ],
    ids=[
        "jsonrpc-1.0",
        "method",
        "no-id",
        "null-id",
        "extra-member",
        "extra-params-member",
        "duplicate-at-depth",
        "escaped-key",
        "name-not-string",
        "arguments-not-object",
        "duplicate-meta",
    ],
)
def test_class3_object_a_must_be_one_tools_call_request(frame: bytes) -> None:
    subject = verify(_with_object_a(case("v3-b2-block"), frame))
    assert subject.outcome == "FAIL"


def test_class3_object_a_hash_checked_without_canonical_request() -> None:
    record = case("v3-b2-block")
    del record["canonical_request"]
    other = corpus.frame(arguments='{"command":"rm -rf /srv/app","cwd":"/srv/app"}')
    subject = verify(_with_object_a(record, other))
    assert subject.outcome == "FAIL"
    assert failing(subject) & {"binding.object-a-call", "binding.canonical-request-sha256-frame"}


def test_class3_object_a_tool_must_be_the_receipts() -> None:
    record = case("v3-b2-block")
    del record["canonical_request"]
    other = corpus.frame(tool="db.execute")
    subject = verify(_with_object_a(record, other))
    assert "binding.object-a-call" in failing(subject)


def test_class3_release_frame_under_object_b_v1_recovers_object_a() -> None:
    record = case("v3-b1-allow")
    operation = str(record["operation_id"])
    other = corpus.frame(arguments='{"command":"rm -rf /srv/app","cwd":"/srv/app"}')
    release = mint.splice_operation_id(other, operation)
    record["release_frame"] = {
        "encoding": "base64",
        "length": JsonNumber(str(len(release))),
        "sha256": sha256_hex(release),
        "base64": base64.b64encode(release).decode(),
    }
    record["post_state_hash"] = mint.post_state_hash(operation, release)
    subject = verify(resigned(record))
    assert subject.outcome == "FAIL"
    assert failing(subject) & {"binding.release-frame-object-a", "binding.framed-subject"}


def test_class3_object_b_v1_allow_binds_its_recovered_object_a() -> None:
    subject = verify(case("v3-b1-allow"))
    assert subject.outcome == "VERIFIED"
    assert statuses(subject, "binding.framed-subject") == {"pass"}
    assert statuses(subject, "binding.release-frame-object-a") == {"pass"}


def test_class3_legacy_meta_flag_fires_without_canonical_request() -> None:
    record = case("v3-b2-explicit")
    params = {"name": record["tool"], "arguments": record["arguments"]}
    legacy = identities.legacy_canonical_request(params)  # type: ignore[arg-type]
    for name in ("canonical_request", "_meta"):
        del record[name]
    record["canonical_request_sha256"] = hashlib.sha256(legacy.encode()).hexdigest()
    view = record["effect_view"]
    assert isinstance(view, dict)
    effect = view["effect"]
    assert isinstance(effect, dict)
    del effect["_meta"]
    subject = verify(resigned(record))
    assert statuses(subject, "legacy.canonical-request-omits-meta") == {"fail"}


# --- class 4: the guard target and the ruling ------------------------------------------


def _minted(ruled: bool, kind: str = "allow") -> Record:
    # The ruled target over _meta is computed by no profiled build: such a receipt names the
    # demo build (not re-derived). The deployed form is the current build's own, re-derived.
    build = corpus.DEMO_KERNEL if ruled else corpus.KERNEL
    ctx = mint.HostContext(ruled_target=ruled, wasm_sha256=build)
    call = corpus.frame()
    approved = (mint.guard_target_of(call, corpus.CONFIG, ruled=ruled),) if kind == "allow" else ()
    return mint.parse_record(mint.mint_host_v3(call, corpus.CONFIG, approvals=approved, ctx=ctx))


@pytest.mark.parametrize("kind", ["allow", "block"])
def test_class4_the_ruled_target_is_accepted(kind: str) -> None:
    # Accepted by every binding; only the decision is left: no profiled kernel build computes
    # the ruled target over _meta, so it is not re-derived and the receipt is REDUCED.
    subject = verify(_minted(True, kind))
    assert subject.outcome == "REDUCED"
    assert failing(subject) == set()
    reduced = {c.id for c in subject.checks if c.status == "not-evaluated"}
    assert reduced == {"replay.decision", "decision.authenticated"}
    assert statuses(subject, "binding.guard-target") == {"pass"}
    assert statuses(subject, "legacy.guard-target-omits-meta") == {"pass"}


@pytest.mark.parametrize("kind", ["allow", "block"])
def test_class4_the_hosts_absent_form_is_a_legacy_failure_naming_the_keys(kind: str) -> None:
    subject = verify(_minted(False, kind))
    assert subject.outcome == "FAIL"
    legacy = next(c for c in subject.checks if c.id == "legacy.guard-target-omits-meta")
    assert legacy.status == "fail"
    assert "_meta.traceparent" in legacy.data["keys"]
    assert failing(subject) == {"legacy.guard-target-omits-meta"}


def test_class4_a_waiver_shows_the_check_waived_never_passed() -> None:
    options = VerifyOptions(
        PINS, kernel_pins=KERNELS, waive=frozenset({LEGACY_TARGET}), allow_published_keys=True
    )
    subject = verify(_minted(False), options)
    assert statuses(subject, LEGACY_TARGET) == {"waived"}
    assert subject.outcome == "VERIFIED"
    assert subject.facts["waived"] == [LEGACY_TARGET]
    with pytest.raises(ValueError, match="never"):
        VerifyOptions(waive=frozenset({"binding.guard-target"}))
    with pytest.raises(ValueError, match="never"):
        VerifyOptions(waive=frozenset({"signature.object-b"}))


LEGACY_TARGET = "legacy.guard-target-omits-meta"


def test_class4_waivers_on_the_command_line_and_in_the_trust_file(tmp_path: Path) -> None:
    receipt = tmp_path / "r.json"
    receipt.write_bytes(mint.render_pretty(_minted(False)))
    pins = ["--config-pubkey", mint.CONFIG_KEY.public_hex]
    pins += ["--receipt-pubkey", mint.RECEIPT_KEY.public_hex, "--kernel-sha256", corpus.DEMO_KERNEL]
    pins += ["--allow-published-keys"]  # the testkit keys are published (docs/trust.md)
    assert run("verify", str(receipt), *pins).exit_code == 1
    waived = run("verify", str(receipt), *pins, "--waive", LEGACY_TARGET, "--format", "json")
    assert waived.exit_code == 0
    assert '"status": "waived"' in waived.stdout
    assert run("verify", str(receipt), *pins, "--waive", "binding.guard-target").exit_code == 2
    trust = tmp_path / "trust.json"
    document = {"sealverify_trust": 1, "keys": [], "waive": [LEGACY_TARGET]}
    trust.write_text(json.dumps(document))
    assert run("verify", str(receipt), *pins, "--trust", str(trust)).exit_code == 0
    document["waive"] = ["signature.object-b"]
    trust.write_text(json.dumps(document))
    assert run("verify", str(receipt), *pins, "--trust", str(trust)).exit_code == 2


def _swap_meta(record: Record, meta: str) -> Record:
    """The same call with another _meta, every raw identity re-derived and re-signed."""
    out = copy.deepcopy(record)
    frame = corpus.frame(meta=meta)
    params = parse_text(raw_line(frame).decode())["params"]  # type: ignore[index]
    assert isinstance(params, dict)
    out["_meta"] = params["_meta"]
    view = out["effect_view"]
    assert isinstance(view, dict) and isinstance(view["effect"], dict)
    view["effect"]["_meta"] = params["_meta"]
    line = identities.canonical_request(params)
    out["canonical_request"] = line
    out["canonical_request_sha256"] = hashlib.sha256(line.encode()).hexdigest()
    return _with_object_a(out, frame)


OTHER_META = corpus.META.replace("b7ad6b7169203331", "0000000000000001")


def test_class4_a_grant_for_one_meta_does_not_authorise_another() -> None:
    subject = verify(_swap_meta(_minted(True), OTHER_META))
    assert subject.outcome == "FAIL"
    assert "binding.guard-target" in failing(subject)
    # The host's form cannot tell the two apart: its legacy flag is what refuses it.
    legacy = verify(_swap_meta(_minted(False), OTHER_META))
    assert legacy.outcome == "FAIL"
    assert LEGACY_TARGET in failing(legacy)


def test_class4_an_approval_token_for_the_hosts_form_is_flagged(tmp_path: Path) -> None:
    frame = corpus.frame()
    ctx = mint.HostContext(ruled_target=False, approval_channel="ed25519")
    token = mint.approval_token(frame, corpus.CONFIG, ctx=ctx)
    result = check_token(
        token, mint.APPROVER_KEY.public_key, frame=frame, server="sealverify-demo@1.0.0"
    )
    assert {c.id: c.status for c in result.checks}[LEGACY_TARGET] == "fail"
    ruled = mint.approval_token(
        frame, corpus.CONFIG, ctx=mint.HostContext(approval_channel="ed25519")
    )
    good = check_token(
        ruled, mint.APPROVER_KEY.public_key, frame=frame, server="sealverify-demo@1.0.0"
    )
    assert LEGACY_TARGET not in {c.id for c in good.checks}
    assert {c.id: c.status for c in good.checks}["approval.target"] == "pass"


# --- class 5: decision semantics that need no replay --------------------------------------


def _fleet_allow_with(certs: list[mint.Cert], authorization: str | None) -> Record:
    record = forge_allow(case("v2-block"))
    config = record["kernel_config"]
    assert isinstance(config, dict)
    record["certs"] = [c.fleet_form() for c in certs]
    record["emitted_bytes"] = mint.emitted_bytes(
        config.get("epoch"),
        str(record["tool"]),
        certs,
        str(record["canonical_request_sha256"]),
        JsonNumber("1"),
    )
    if authorization is None:
        record.pop("authorization", None)
    else:
        record["authorization"] = authorization
    return record


def test_class5_zero_certs_is_never_an_allow() -> None:
    record = _fleet_allow_with([], "approval")
    step = parse_text(str(record["emitted_bytes"]))
    assert isinstance(step, dict)
    step["route"] = "forward"
    audit = parse_text(str(step["audit"]))
    assert isinstance(audit, dict)
    audit["verdict"] = "allow"
    step["audit"] = leanjson.compress(audit)
    step.pop("response", None)
    record["emitted_bytes"] = leanjson.compress(step)
    subject = verify(record)
    assert subject.outcome == "FAIL"
    assert "binding.allow-certs" in failing(subject)


def test_class5_an_allow_needs_an_allowing_safety_cert() -> None:
    record = _fleet_allow_with([mint.Cert("temporal", "allow", "trace ok (1 events)")], "approval")
    subject = verify(record)
    assert subject.outcome == "FAIL"
    assert "binding.allow-certs" in failing(subject)


def test_class5_explicit_policy_allow_beside_a_target_is_a_contradiction() -> None:
    record = forge_allow(case("v2-block"))
    record["authorization"] = "explicit_policy_allow"
    del record["approval"]
    record["granted_capabilities"] = []
    subject = verify(record)
    assert subject.outcome == "FAIL"
    assert "binding.authorization" in failing(subject)


def test_class5_approval_authorization_with_an_explicit_reason_is_refused() -> None:
    record = case("v2-explicit")
    record["authorization"] = "approval"
    record["approval"] = {
        "approval_identity": {"channel": "interactive"},
        "policy_hash": sha256_hex(mint.render_compact(record["kernel_config"])),
    }
    subject = verify(record)
    assert subject.outcome == "FAIL"
    assert failing(subject) & {"binding.authorization", "binding.approval-grant"}


def test_class5_a_target_reason_needs_the_grant() -> None:
    record = forge_allow(case("v2-block"))
    record["granted_capabilities"] = []
    assert "binding.approval-grant" in failing(verify(record))


# --- class 6: time ------------------------------------------------------------------------


def _windowed(not_before: int, not_after: int) -> TrustStore:
    keys = (
        PinnedKey(mint.CONFIG_KEY.public_hex, frozenset({"config"}), not_before, not_after),
        PinnedKey(mint.RECEIPT_KEY.public_hex, frozenset({"receipt"}), not_before, not_after),
    )
    return TrustStore(keys)


NOW = mint.HostContext().now


def test_class6_v3_windows_are_judged_at_the_signed_now() -> None:
    inside = VerifyOptions(
        _windowed(NOW - 1, NOW + 1), kernel_pins=KERNELS, allow_published_keys=True
    )
    outside = VerifyOptions(
        _windowed(NOW + 1, NOW + 2), kernel_pins=KERNELS, allow_published_keys=True
    )
    assert verify(case("v3-b2-block"), inside).outcome == "VERIFIED"
    assert verify(case("v3-b2-block"), outside).outcome == "FAIL"


def test_class6_an_unsigned_time_cannot_establish_a_window() -> None:
    now = 1000  # the fleet receipts' logical clock: nothing signs it
    options = VerifyOptions(
        _windowed(now - 1, now + 1), kernel_pins=KERNELS, allow_published_keys=True
    )
    subject = verify(case("v2-block"), options)
    assert subject.outcome != "VERIFIED"
    check = next(c for c in subject.checks if c.id == "authority.config-key")
    assert check.status != "pass"


def test_class6_a_v3_receipt_without_now_cannot_pass_a_window() -> None:
    record = case("v3-b2-block")
    del record["now"]
    options = VerifyOptions(
        _windowed(NOW - 1, NOW + 1), kernel_pins=KERNELS, allow_published_keys=True
    )
    assert verify(resigned(record), options).outcome != "VERIFIED"


def test_class6_spine_receipts_honour_windows() -> None:
    at = 1786873203318
    keys = (PinnedKey(mint.RECEIPT_KEY.public_hex, frozenset({"receipt"}), at + 1, at + 2),)
    subject = verify(
        case("spine-allow"), VerifyOptions(TrustStore(keys), allow_published_keys=True)
    )
    assert subject.outcome == "FAIL"
    keys = (PinnedKey(mint.RECEIPT_KEY.public_hex, frozenset({"receipt"}), at - 1, at + 1),)
    assert (
        verify(
            case("spine-allow"), VerifyOptions(TrustStore(keys), allow_published_keys=True)
        ).outcome
        == "VERIFIED"
    )


def test_class6_approval_cli_without_at_judges_expiry_now(tmp_path: Path) -> None:
    frame = corpus.frame()
    frame_file = tmp_path / "frame.bin"
    frame_file.write_bytes(frame)
    # Both tokens were authorized in 1970; one expired two minutes later, the other lasts
    # until the year 287000: whatever the clock reads, one is expired and one is valid.
    lasting = corpus.CONFIG.replace('"ttl_seconds":120', '"ttl_seconds":9000000000000')
    for config, expired in ((corpus.CONFIG, True), (lasting, False)):
        ctx = mint.HostContext(now=10_000, approval_channel="ed25519")
        token = tmp_path / f"t{expired}.ndjson"
        token.write_bytes(mint.approval_token(frame, config, ctx=ctx) + b"\n")
        result = run(
            "approval",
            str(token),
            "--frame",
            str(frame_file),
            "--format",
            "json",
            "--approval-pubkey",
            mint.APPROVER_KEY.public_hex,
            "--server",
            "sealverify-demo@1.0.0",
            "--allow-published-keys",  # the testkit approver key is published
        )
        report = json.loads(result.stdout)
        checks = {c["id"]: c for c in report["subjects"][0]["checks"]}
        assert checks["approval.time"]["status"] == ("fail" if expired else "pass")
        assert "current time" in checks["approval.time"]["reason"]
        assert result.exit_code == (1 if expired else 0)


# --- class 7: approvals -------------------------------------------------------------------


def _b1_ed25519() -> tuple[Record, VerifyOptions]:
    ctx = mint.HostContext(
        domain="seal.object-b/v1", approval_channel="ed25519", operation_seed=b"c7"
    )
    frame = corpus.frame()
    approved = (mint.guard_target_of(frame, corpus.CONFIG),)
    record = mint.parse_record(mint.mint_host_v3(frame, corpus.CONFIG, approvals=approved, ctx=ctx))
    token = mint.approval_token(frame, corpus.CONFIG, ctx=ctx)
    return record, VerifyOptions(
        PINS, kernel_pins=KERNELS, approval_tokens=(("t:1", token),), allow_published_keys=True
    )


def test_class7_token_subject_is_compared_with_an_object_b_v1_framed_subject() -> None:
    record, options = _b1_ed25519()
    subject = verify(record, options)
    assert statuses(subject, "approval.subject") == {"pass"}
    record["framed_subject_sha256"] = "0" * 64
    forged = verify(resigned(record), options)
    assert forged.outcome == "FAIL"
    assert "approval.subject" in failing(forged)


# --- class 8: history ---------------------------------------------------------------------


def _facts(record: Record, location: str) -> history.ReceiptFacts:
    return history.receipt_facts(record, location)


def test_class8_a_reused_nonce_is_caught_wherever_it_is_stored(tmp_path: Path) -> None:
    first = case("v2-allow")
    approval = first["approval"]
    assert isinstance(approval, dict)
    approval["nonce"] = "n-1"
    second = copy.deepcopy(first)
    second["arguments"] = {"command": "rm -rf /", "cwd": "/"}  # a different decision
    state = tmp_path / "state.db"
    with history.HistoryStore(state) as store:
        assert not [
            c for c in store.check_and_stage([_facts(first, "r.json")]) if c.status == "fail"
        ]
        store.commit()
    with history.HistoryStore(state) as store:  # a later run, the same file name
        checks = store.check_and_stage([_facts(second, "r.json")])
    assert "history.nonce-replayed" in {c.id for c in checks if c.status == "fail"}


def test_class8_the_same_decision_elsewhere_is_not_a_replay(tmp_path: Path) -> None:
    first = case("v2-allow")
    approval = first["approval"]
    assert isinstance(approval, dict)
    approval["nonce"] = "n-2"
    state = tmp_path / "state.db"
    with history.HistoryStore(state) as store:
        store.check_and_stage([_facts(first, "a/r.json")])
        store.commit()
    with history.HistoryStore(state) as store:
        checks = store.check_and_stage([_facts(first, "b/r.json:7")])
    assert not [c for c in checks if c.status == "fail"]


# --- class 9: chain -----------------------------------------------------------------------


def _log(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "stderr.log"
    path.write_bytes(data)
    return str(path)


def test_class9_an_unanchored_start_is_not_exit_0(tmp_path: Path) -> None:
    pairs, head = session_pairs(PAYLOADS)
    later = flat(pairs[2:])  # starts mid-session: the first record is not the genesis
    result = run("chain", _log(tmp_path, later), "--expect-head", head)
    assert result.exit_code == 3
    assert "--start-head" in result.output + result.stderr
    start = pairs[1][1]
    prev = json.loads(start)["head"]
    anchored = run("chain", _log(tmp_path, later), "--expect-head", head, "--start-head", prev)
    assert anchored.exit_code == 0


def test_class9_records_after_the_anchored_head_are_an_unanchored_tail(tmp_path: Path) -> None:
    pairs, _ = session_pairs(PAYLOADS)
    earlier = json.loads(pairs[2][1])["head"]
    result = run("chain", _log(tmp_path, flat(pairs)), "--expect-head", earlier)
    assert result.exit_code == 3


def test_class9_unchained_audit_lines_are_found_by_parsing() -> None:
    pairs, _ = session_pairs(PAYLOADS)
    lines = flat(pairs)
    loose = (
        b' {"epoch":1,"verdict":"allow","tool":"t","certs":[],"request_sha256":"'
        + b"b" * 64
        + b'"}\n'
    )
    result = verify_logs([("log", lines + loose)], Anchor(count=len(PAYLOADS)))
    assert "chain.unchained-payload" in {c.id for c in result.checks if c.status == "fail"}


def test_class9_zero_chain_records_is_not_intact(tmp_path: Path) -> None:
    empty = _log(tmp_path, b'{"authorization_decision":"x"}\nsome text\n')
    for extra in ([], ["--expect-count", "0"], ["--expect-head", GEN]):
        result = run("chain", empty, *extra)
        assert result.exit_code not in (0,), extra
        assert "INTACT" not in result.output


def test_class9_a_receipt_log_cut_mid_record_is_named_so(tmp_path: Path) -> None:
    demo = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "receipts"
    whole = (demo / "verified-allow.receipt.json").read_bytes()
    line = json.dumps(json.loads(whole), separators=(",", ":")).encode()
    log = tmp_path / "cut.jsonl"
    log.write_bytes(line + b"\n" + line[:150])  # the second write stopped mid-record
    findings = json.loads(run("verify", str(log), "--format", "json").stdout)["findings"]
    (cut,) = [f for f in findings if f["location"].endswith(":2")]
    assert cut["id"] == "log.broken-line" and cut["data"] == {"cut": True}
    assert "record cut short" in cut["reason"] and "after 150 byte(s) inside" in cut["reason"]
    log.write_bytes(line + b"\n" + b'{"a":1}} trailing\n' + b"not json\n")
    findings = json.loads(run("verify", str(log), "--format", "json").stdout)["findings"]
    assert [f.get("data") for f in findings if f["id"] == "log.broken-line"] == [None, None]


def test_class9_a_file_that_is_not_a_chain_is_named_so_not_broken(tmp_path: Path) -> None:
    # Another file given to chain (a config, stdout in place of stderr) is no broken chain.
    other = _log(tmp_path, b'{"a":1}\nhello\n')
    result = run("chain", other, "--format", "json")
    assert result.exit_code == 1
    (chain,) = json.loads(result.stdout)["subjects"]
    assert chain["outcome"] == "NOT A CHAIN"
    records = [c for c in chain["checks"] if c["id"] == "chain.records"]
    assert records[0]["status"] == "fail" and "not an audit chain" in records[0]["reason"]
    assert "NOT A CHAIN" in run("chain", other).stderr


# --- class 10: keys -----------------------------------------------------------------------

IDENTITY = bytes([1] + [0] * 31)
SMALL_ORDER = [
    IDENTITY,
    bytes.fromhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),  # order 2
    bytes(32),  # order 4
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),  # order 8
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),  # order 8
    bytes(31) + b"\x80",  # order 4, sign bit set (non-canonical)
    bytes.fromhex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),  # y = p
]


def _forgeable_message(key: bytes) -> bytes | None:
    """A message for which OpenSSL itself accepts (R = identity, S = 0) under ``key``."""
    for index in range(256):
        message = b"forged %d" % index
        try:
            Ed25519PublicKey.from_public_bytes(key).verify(IDENTITY + bytes(32), message)
        except (InvalidSignature, ValueError):
            continue
        return message
    return None


@pytest.mark.parametrize("key", SMALL_ORDER, ids=lambda k: k.hex()[:8])
def test_class10_small_order_keys_are_refused_by_every_backend(key: bytes) -> None:
    message = _forgeable_message(key)
    assert message is not None  # the backend library alone would accept a forgery
    for verdict in (ed25519_verify, ed25519_verify_openssl, ed25519_verify_sodium):
        assert verdict(key, message, IDENTITY + bytes(32)) is False, verdict.__name__


def test_class10_a_config_signed_by_the_identity_key_fails() -> None:
    record = case("v2-block")
    config = record["signed_config"]
    assert isinstance(config, dict)
    config["pubkey"] = IDENTITY.hex()
    config["signature"] = (IDENTITY + bytes(32)).hex()
    subject = verify(record, VerifyOptions(kernel_pins=KERNELS, allow_published_keys=True))
    assert subject.outcome == "FAIL"
    assert "signature.config" in failing(subject)


# --- class 11: discovery fails closed ----------------------------------------------------


def test_class11_dangling_symlink_in_a_walk_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_bytes(CASES["v3-b2-block"].data)
    (tmp_path / "gone.json").symlink_to(tmp_path / "missing.json")
    result = run("verify", str(tmp_path))
    assert result.exit_code == 2
    assert "gone.json" in result.stderr


def test_class11_symlink_loop_in_a_walk_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_bytes(CASES["v3-b2-block"].data)
    (tmp_path / "loop").symlink_to(tmp_path)
    result = run("verify", str(tmp_path))
    assert result.exit_code == 2
    assert "loop" in result.stderr


def test_class11_unreadable_directory_in_a_walk_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    (tmp_path / "sub").mkdir()
    (tmp_path / "r.json").write_bytes(CASES["v3-b2-block"].data)
    real = os.scandir

    def refuse(path: object) -> object:
        if str(path).endswith("sub"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "scandir", refuse)
    result = run("verify", str(tmp_path))
    assert result.exit_code == 2
    assert "sub" in result.stderr


def test_class11_a_log_whose_every_line_is_broken_is_a_finding(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(b'{"record_type": \n{"seal_receipt":\n')
    result = run("verify", str(log))
    assert result.exit_code == 1
    assert "log.broken-line" in run("verify", str(log), "--format", "json").output


def test_class11_partition_verify_on_a_null_attestation_is_a_finding(tmp_path: Path) -> None:
    attestation = tmp_path / "a.json"
    attestation.write_bytes(b"null")
    frame = tmp_path / "frame.bin"
    frame.write_bytes(corpus.frame())
    result = run(
        "partition",
        "verify",
        str(attestation),
        "--frame",
        str(frame),
        "--pubkey",
        mint.RECEIPT_KEY.public_hex,
    )
    assert result.exit_code == 1


@pytest.mark.parametrize(
    "request_frame",
    [GOOD_FRAME, GOOD_FRAME.replace(b"\n", b"\r\n"), b"{}\n", b'{"a":1}  \n', b'{"a":1}'],
)
def test_class3_unsplicing_is_the_exact_inverse_of_the_splice(request_frame: bytes) -> None:
    operation = "ab" * 32
    release = mint.splice_operation_id(request_frame, operation)
    assert unsplice_operation_id(release, operation) == request_frame
    assert unsplice_operation_id(release, "cd" * 32) is None
    edited = release.replace(b"{", b'{"x":0,', 1)  # anything else changed: not this request
    assert unsplice_operation_id(edited, operation) != request_frame
    assert unsplice_operation_id(request_frame, operation) is None  # no splice at all
