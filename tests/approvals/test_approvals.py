"""ApprovalRecord v2: renderer byte rule, members, signature, frame and target bindings, v1."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from sealverify_testkit import mint

from sealverify._internal.approvals.consumed import check_receipt_approval
from sealverify._internal.approvals.record import NotRenderable, render
from sealverify._internal.approvals.tokens import check_token, judge_token, split_tokens
from sealverify._internal.cli.main import cli
from sealverify._internal.wire.strictjson import parse_text
from tests.helpers.approvals import (
    DEPLOY_AUTHORIZED_AT,
    DEPLOY_FRAME,
    DEPLOY_FRAME_SHA256,
    DEPLOY_TARGET,
    KEY,
    KEY_ID,
    PUB,
    TTL_MS,
    b64url,
    canonical,
    digest,
    payload,
    receipt,
    token,
)

OTHER = Ed25519PrivateKey.from_private_bytes(bytes([29]) * 32)


def check(line: bytes, frame: bytes | None = DEPLOY_FRAME, at: int | None = None, **kw: Any):  # type: ignore[no-untyped-def]
    # KEY is seal-host's published test key: these tests judge the token, so they accept it
    # (test_a_published_approver_key_caps_the_library_at_unpinned holds the cap).
    kw.setdefault("allow_published_keys", True)
    return check_token(line, PUB, frame=frame, at_ms=at, **kw)


def failed(result: Any) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for c in result.checks:
        if c.status == "fail":
            out.setdefault(c.id, []).append(c)
    return out


# -- the renderer byte rule ------------------------------------------------------------------


def test_renderer_vector() -> None:
    value = parse_text(
        '{"z":[null,false,true],"é":1,"a":"q\\"b\\\\s\\n\\u001f\\u007fé","\\uff61":0,'
        '"\\ud83d\\ude00":9007199254740991}'
    )
    expected = (
        '{"a":"q\\"b\\\\s\\u000a\\u001f\x7fé","z":[null,false,true],"é":1,"\uff61":0,'
        '"\U0001f600":9007199254740991}'
    ).encode()
    assert render(value) == expected


@pytest.mark.parametrize("lexeme", ["9007199254740992", "-1", "1.0", "1e2", "-0"])
def test_renderer_refuses_numbers(lexeme: str) -> None:
    with pytest.raises(NotRenderable):
        render(parse_text(f'{{"n":{lexeme}}}'))


# -- a valid token ---------------------------------------------------------------------------


def test_valid_token_binds_the_deploy_frame_and_target() -> None:
    assert digest(DEPLOY_FRAME) == DEPLOY_FRAME_SHA256 and len(DEPLOY_FRAME) == 138
    result = check(token(canonical(payload())), at=DEPLOY_AUTHORIZED_AT + 1)
    assert failed(result) == {}
    assert result.ok and result.kind == "v2"
    statuses = {c.id: c.status for c in result.checks}
    for cid in (
        "approval.signature",
        "approval.payload-canonical",
        "approval.subject",
        "approval.target",
        "approval.time",
        "approval.members",
    ):
        assert statuses[cid] == "pass", cid


def test_without_frame_and_time_bindings_are_not_evaluated() -> None:
    result = check(token(canonical(payload())), frame=None)
    statuses = {c.id: c.status for c in result.checks}
    assert statuses["approval.subject"] == "not-evaluated"
    assert statuses["approval.time"] == "not-evaluated"


# -- each member tampered in turn ------------------------------------------------------------

TAMPERS: list[tuple[str, str, Any]] = [
    ("approval_record_version", "approval_record_version", 3),
    ("target", "target", digest(b"another target")),
    ("authorized_at", "authorized_at", 2**53),
    ("expiry", "expiry", DEPLOY_AUTHORIZED_AT - 1),
    ("nonce", "nonce", ""),
    ("session", "session", ""),
    ("subject_sha256", "subject_sha256", digest(DEPLOY_FRAME[:-1])),
    ("subject_length", "subject_length", 137),
    ("subject_scope", "subject_scope", "mcp-jsonrpc-request-frame"),
    ("subject_encoding", "subject_encoding", "base64"),
    ("shown_sha256", "shown_sha256", digest(b"x").upper()),
    ("shown_length", "shown_length", -1),
    ("shown_media_type", "shown_media_type", "text/html"),
    ("shown_character_encoding", "shown_character_encoding", "latin-1"),
    ("renderer", "renderer", "seal-test-renderer"),
    ("renderer.name", "renderer", {"name": "", "version": "2", "manifest_sha256": "a" * 64}),
    ("renderer.version", "renderer", {"name": "r", "version": "", "manifest_sha256": "a" * 64}),
    ("renderer.manifest_sha256", "renderer", {"name": "r", "version": "2", "manifest_sha256": "x"}),
    ("approver", "approver", ""),
    ("authorization_signer_key_id", "authorization_signer_key_id", digest(b"k")),
    ("authorization_signature_algorithm", "authorization_signature_algorithm", "EdDSA"),
    ("authorization_domain", "authorization_domain", "seal.approval-record/v1"),
]


def test_tamper_table_covers_every_member() -> None:
    covered = {member.split(".")[0] for member, _, _ in TAMPERS}
    assert covered == set(payload())


@pytest.mark.parametrize(("member", "key", "value"), TAMPERS, ids=[t[0] for t in TAMPERS])
def test_member_tampered_and_resigned_is_named(member: str, key: str, value: Any) -> None:
    result = check(token(canonical(payload(**{key: value}))), at=DEPLOY_AUTHORIZED_AT)
    named = [
        c
        for cs in failed(result).values()
        for c in cs
        if c.data.get("member") == member or c.location.endswith(f"payload.{member}")
    ]
    assert named, f"no failure names {member}: {failed(result)}"


@pytest.mark.parametrize("member", sorted(payload()))
def test_member_tampered_after_signing_breaks_the_signature(member: str) -> None:
    good = payload()
    sig = KEY.sign(b"seal.approval-record/v2\x00" + canonical(good).encode())
    value = good[member]
    if isinstance(value, int):
        changed: Any = value + 1
    elif isinstance(value, dict):
        changed = dict(value, version="2.0.1")
    else:
        changed = value[:-1] + ("0" if value[-1] != "0" else "1")
    line = json.dumps(
        {
            "payload": canonical(payload(**{member: changed})),
            "signature_algorithm": "Ed25519",
            "signature_encoding": "base64url-nopad",
            "signer_key_id": KEY_ID,
            "signature": b64url(sig),
        }
    ).encode()
    assert "approval.signature" in failed(check(line))


# -- token members, key, encoding, canonical bytes ------------------------------------------


def test_unknown_token_member_is_refused() -> None:
    result = check(token(canonical(payload()), note="hi"))
    (finding,) = failed(result)["approval.token-members"]
    assert finding.data["unknown"] == ["note"]


def test_unknown_payload_member_is_refused() -> None:
    result = check(token(canonical(payload(extra="x"))))
    assert failed(result)["approval.payload-members"][0].data["unknown"] == ["extra"]


def test_missing_payload_member_is_refused() -> None:
    doc = payload()
    del doc["session"]
    assert failed(check(token(canonical(doc))))["approval.payload-members"][0].data["missing"] == [
        "session"
    ]


def test_other_signer_is_refused() -> None:
    result = check(token(canonical(payload()), key=OTHER))
    assert "approval.signature" in failed(result)
    wrong_id = check(token(canonical(payload()), signer_key_id=digest(b"other")))
    assert "approval.signer-key-id" in failed(wrong_id)


def test_padded_signature_encoding_is_refused() -> None:
    text = canonical(payload())
    sig = base64.urlsafe_b64encode(KEY.sign(b"seal.approval-record/v2\x00" + text.encode()))
    result = check(token(text, signature=sig.decode()))
    assert "approval.signature-encoding" in failed(result)


def test_signature_without_domain_separator_fails() -> None:
    text = canonical(payload())
    sig = b64url(KEY.sign(text.encode()))
    assert "approval.signature" in failed(check(token(text, signature=sig)))


def test_payload_not_in_renderer_form_is_refused_even_if_signed() -> None:
    text = json.dumps(payload(), separators=(",", ":"))  # producer order, not sorted
    assert "approval.payload-canonical" in failed(check(token(text)))
    spaced = json.dumps(payload(), sort_keys=True)
    assert "approval.payload-canonical" in failed(check(token(spaced)))


def test_control_characters_must_be_u00xx() -> None:
    doc = payload(approver="line1\nline2")
    as_json = canonical(doc)  # json.dumps writes \n, the renderer \u000a
    assert "approval.payload-canonical" in failed(check(token(as_json)))
    rendered = as_json.replace("\\n", "\\u000a")
    assert failed(check(token(rendered))) == {}


def test_surrounding_whitespace_is_refused() -> None:
    assert "approval.token-whitespace" in failed(check(b" " + token(canonical(payload()))))


# -- frame and target ------------------------------------------------------------------------


def test_one_byte_different_frame_fails_subject() -> None:
    crlf = DEPLOY_FRAME[:-1] + b"\r\n"
    result = check(token(canonical(payload())), frame=crlf)
    members = {c.data.get("member") for c in failed(result)["approval.subject"]}
    assert members == {"subject_sha256", "subject_length"}
    other_id = DEPLOY_FRAME.replace(b'"id":3', b'"id":4')
    assert "approval.subject" in failed(check(token(canonical(payload())), frame=other_id))


def test_different_guard_target_fails() -> None:
    other = DEPLOY_FRAME.replace(b"receipt_sandbox", b"receipt_sandboy")
    doc = payload(subject_sha256=digest(other), subject_length=len(other))
    result = check(token(canonical(doc)), frame=other)
    assert set(failed(result)) == {"approval.target"}
    assert "approval.target" in failed(check(token(canonical(payload())), server="other@1"))


# -- time ------------------------------------------------------------------------------------


def test_expiry_is_judged_at_the_given_time() -> None:
    line = token(canonical(payload()))
    assert "approval.time" not in failed(check(line, at=DEPLOY_AUTHORIZED_AT + TTL_MS))
    late = failed(check(line, at=DEPLOY_AUTHORIZED_AT + TTL_MS + 1))["approval.time"]
    assert late[0].data["member"] == "expiry"
    early = failed(check(line, at=DEPLOY_AUTHORIZED_AT - 1))["approval.time"]
    assert early[0].data["member"] == "authorized_at"


# -- v1 --------------------------------------------------------------------------------------


def v1(decision: str | None) -> bytes:
    body: dict[str, Any] = {"target": DEPLOY_TARGET, "issuedAt": 1, "nonce": "n1"}
    if decision is not None:
        body["decision"] = decision
    text = json.dumps(body)
    return json.dumps({"payload": text, "signature": KEY.sign(text.encode()).hex()}).encode()


@pytest.mark.parametrize("decision", [None, "allow"])
def test_v1_allows_are_refused(decision: str | None) -> None:
    result = check(v1(decision))
    assert result.kind == "v1-allow" and "approval.v1-refused" in failed(result)


def test_v1_decline_is_read() -> None:
    result = check(v1("deny"))
    assert result.kind == "v1-decline" and failed(result) == {}
    assert any(c.id == "approval.v1-decline" for c in result.checks)


def test_v1_unknown_decision_and_bad_signature() -> None:
    assert "approval.unknown-decision" in failed(check(v1("maybe")))
    forged = json.loads(v1("deny"))
    forged["payload"] = forged["payload"].replace("n1", "n2")
    assert "approval.signature" in failed(check(json.dumps(forged).encode()))


DEMO_CONFIG = mint.DEMO_KERNEL_CONFIG


def _forged_v1_declines() -> dict[str, bytes]:
    """v1 declines minted with the testkit, each made unreadable the way an attacker would."""
    target = mint.guard_target_of(mint.tools_call_frame("shell_exec", "{}"), DEMO_CONFIG)
    good = mint.approval_v1_token(target)
    doc = json.loads(good)
    corrupt = doc | {
        "signature": doc["signature"][:-2] + ("00" if doc["signature"][-2:] != "00" else "11")
    }
    edited = doc | {"payload": doc["payload"].replace('"n1"', '"n2"')}
    unsigned = {"payload": doc["payload"], "signature": ""}
    text = json.dumps({"target": target, "issuedAt": 1, "decision": "deny"})
    signed_no_nonce = {"payload": text, "signature": mint.APPROVER_KEY.sign(text.encode()).hex()}
    return {
        "other key": mint.approval_v1_token(target, key=mint.demo_key("attacker")),
        "corrupt signature": json.dumps(corrupt).encode(),
        "payload edited after signing": json.dumps(edited).encode(),
        "no signature": json.dumps(unsigned).encode(),
        "signed, without a nonce": json.dumps(signed_no_nonce).encode(),
    }


@pytest.mark.parametrize("how", sorted(_forged_v1_declines()))
def test_a_v1_decline_not_signed_by_the_pinned_key_is_invalid(how: str) -> None:
    # seal-host drops such a line before reading its decision (providers.rs: bad_signature,
    # missing_required_field): a forged "the approver declined" is never a readable DECLINE.
    line = _forged_v1_declines()[how]
    result = check_token(line, mint.APPROVER_KEY.public_key)
    assert result.kind == "invalid" and result.outcome == "INVALID"
    assert "approval.v1-decline" not in {c.id for c in result.checks}


def test_a_v1_decline_signed_by_the_pinned_key_is_read() -> None:
    target = mint.guard_target_of(mint.tools_call_frame("shell_exec", "{}"), DEMO_CONFIG)
    result = judge_token(mint.approval_v1_token(target), mint.APPROVER_KEY.public_key)
    assert (result.kind, result.outcome) == ("v1-decline", "DECLINE")
    assert [(c.id, c.status) for c in result.checks] == [("approval.v1-decline", "info")]
    # The same line under another pin: INVALID.
    other = check_token(mint.approval_v1_token(target), mint.demo_key("other").public_key)
    assert other.outcome == "INVALID"


def test_cli_a_forged_v1_decline_is_invalid_exit_1(tmp_path: Path) -> None:
    call = mint.tools_call_frame("shell_exec", "{}")
    frame = tmp_path / "frame.bin"
    frame.write_bytes(call)
    target = mint.guard_target_of(call, DEMO_CONFIG)
    base = ["approval", "--approval-pubkey", mint.APPROVER_KEY.public_hex, "--frame", str(frame)]
    runner = CliRunner()
    for how, line in _forged_v1_declines().items():
        tokens = tmp_path / "forged.ndjson"
        tokens.write_bytes(line + b"\n")
        res = runner.invoke(cli, [*base, str(tokens), "--format", "json"])
        assert res.exit_code == 1, (how, res.output)
        report = json.loads(res.stdout)
        assert [s["outcome"] for s in report["subjects"]] == ["INVALID"], how
        assert report["summary"]["invalid"] == 1
    signed = tmp_path / "signed.ndjson"
    signed.write_bytes(mint.approval_v1_token(target) + b"\n")
    res = runner.invoke(cli, [*base, str(signed), "--format", "json", "--allow-published-keys"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert [s["outcome"] for s in report["subjects"]] == ["DECLINE"]
    assert report["summary"]["invalid"] == 0


# -- receipt integration ---------------------------------------------------------------------


def test_receipt_approval_binding() -> None:
    text = canonical(payload())
    tokens = split_tokens(token(text) + b"\n\n" + v1("deny") + b"\n", "tokens.ndjson")
    checks = check_receipt_approval(receipt(text.encode()), tokens, [PUB])
    assert not [c for c in checks if c.status == "fail"]
    assert {"approval.receipt-statement", "approval.target", "approval.subject"} <= {
        c.id for c in checks if c.status == "pass"
    }


def test_receipt_approval_statement_and_nonce_mismatch() -> None:
    text = canonical(payload())
    tokens = split_tokens(token(text))
    other = canonical(payload(session="s2")).encode()
    checks = check_receipt_approval(receipt(other), tokens, [PUB])
    assert any(c.id == "approval.receipt-statement" and c.status == "fail" for c in checks)
    checks = check_receipt_approval(receipt(text.encode(), "n9"), tokens, [PUB])
    assert any(c.id == "approval.receipt-token" and c.status == "fail" for c in checks)


# -- CLI -------------------------------------------------------------------------------------


def test_cli(tmp_path: Path) -> None:
    frame = tmp_path / "frame.bin"
    frame.write_bytes(DEPLOY_FRAME)
    good = tmp_path / "good.ndjson"
    good.write_bytes(token(canonical(payload())) + b"\n" + v1("deny") + b"\n")
    bad = tmp_path / "bad.ndjson"
    bad.write_bytes(token(canonical(payload(nonce=""))) + b"\n")
    base = ["approval", "--approval-pubkey", PUB.hex(), "--frame", str(frame)]
    runner = CliRunner()
    at = ["--at", str(DEPLOY_AUTHORIZED_AT), "--format", "json"]
    # KEY is seal-host's test seed [23u8; 32], a published key: a valid token under it is
    # UNPINNED (exit 3), and VALID only with --allow-published-keys, still named as info.
    capped = runner.invoke(cli, [*base, str(good), *at])
    assert capped.exit_code == 3, capped.output
    report = json.loads(capped.stdout)
    assert [s["outcome"] for s in report["subjects"]] == ["UNPINNED", "DECLINE"]
    assert report["summary"]["unpinned"] == 1
    published = [c for c in report["subjects"][0]["checks"] if c["id"] == "authority.published-key"]
    assert [(c["status"], c["data"]["sources"][0]) for c in published] == [
        ("not-evaluated", "seal-host@099be66 rust/src/providers.rs")
    ]
    ok = runner.invoke(cli, [*base, str(good), *at, "--allow-published-keys"])
    assert ok.exit_code == 0, ok.output
    report = json.loads(ok.stdout)
    assert [s["outcome"] for s in report["subjects"]] == ["VALID", "DECLINE"]
    assert report["summary"]["allow_published_keys"] is True
    assert "published keys allowed" in ok.stderr
    statuses = [c["status"] for c in report["subjects"][0]["checks"]]
    assert statuses.count("info") >= 1
    assert any(c["id"] == "authority.published-key" for c in report["subjects"][0]["checks"])
    res = runner.invoke(cli, [*base, str(bad), "--format", "sarif"])
    assert res.exit_code == 1 and "approval.member" in res.stdout
    assert runner.invoke(cli, [*base[:2], "zz", *base[3:], str(good)]).exit_code == 2
    two = tmp_path / "two.bin"
    two.write_bytes(DEPLOY_FRAME * 2)
    assert runner.invoke(cli, [*base[:4], str(two), str(good)]).exit_code == 2


def test_receipt_approval_key_selection() -> None:
    text = canonical(payload())
    tokens = split_tokens(token(text))
    other_pub = OTHER.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    checks = check_receipt_approval(receipt(text.encode()), tokens, [other_pub, PUB])
    assert not [c for c in checks if c.status == "fail"]
    only_other = check_receipt_approval(receipt(text.encode()), tokens, [other_pub])
    assert [(c.id, c.status) for c in only_other] == [("approval.receipt-key", "fail")]
    unpinned = check_receipt_approval(receipt(text.encode()), tokens, [])
    assert [(c.id, c.status) for c in unpinned] == [("approval.receipt-key", "not-evaluated")]
    interactive = receipt(text.encode())
    interactive["approval"]["approval_identity"] = {"channel": "interactive"}  # type: ignore[index]
    assert [c.id for c in check_receipt_approval(interactive, tokens, [PUB])] == [
        "approval.receipt"
    ]
    assert check_receipt_approval({"verdict": "BLOCK"}, tokens, [PUB]) == []
