"""``approval`` takes ``--waive`` and ``--allow-published-keys`` as ``verify`` does, and its
outcome and exit code are the library's (``sealverify.approval_report``), byte for byte."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sealverify_testkit import mint
from sealverify_testkit.keys import TestKey

import sealverify
from sealverify._internal.approvals import record as approval_record
from sealverify._internal.cli.main import cli
from sealverify._internal.wire.strictjson import parse_text
from sealverify.formats import render

ROOT = Path(__file__).resolve().parents[2]
LEGACY = "legacy.guard-target-omits-meta"
SERVER = "sealverify-demo@1.0.0"
NOW = 1_786_000_060_000
# A call that carries _meta: the deployed host's guard target leaves it unbound.
FRAME = mint.tools_call_frame(
    "shell_exec", '{"command":"systemctl restart app"}', meta='{"traceparent":"00-ab-cd-01"}'
)
CTX = mint.HostContext(now=NOW, operation_seed=b"legacy-approval", ruled_target=False)
LEGACY_TOKEN = mint.approval_token(FRAME, mint.DEMO_KERNEL_CONFIG, ctx=CTX)


def _resign(token: bytes, key: TestKey, **changes: object) -> bytes:
    """``token`` with payload members changed and signed again by ``key`` (an attacker who
    holds the testkit)."""
    outer = json.loads(token)
    payload = parse_text(outer["payload"])
    assert isinstance(payload, dict)
    payload.update(changes)  # type: ignore[arg-type]
    text = approval_record.render(payload)
    signature = key.sign(approval_record.signature_preimage(text))
    outer["payload"] = text.decode("utf-8")
    outer["signature"] = base64.urlsafe_b64encode(signature).rstrip(b"=").decode()
    return json.dumps(outer, separators=(",", ":")).encode()


def _approval(tmp_path: Path, token: bytes, *extra: str) -> Result:
    tokens, frame = tmp_path / "tokens.ndjson", tmp_path / "frame.bin"
    tokens.write_bytes(token + b"\n")
    frame.write_bytes(FRAME)
    args = ["approval", str(tokens), "--frame", str(frame), "--server", SERVER]
    args += ["--approval-pubkey", mint.APPROVER_KEY.public_hex, "--at", str(NOW)]
    return CliRunner().invoke(cli, [*args, "--format", "json", *extra], catch_exceptions=False)


def _statuses(result: Result, check_id: str) -> list[str]:
    subject = json.loads(result.stdout)["subjects"][0]
    return [c["status"] for c in subject["checks"] if c["id"] == check_id]


def test_a_legacy_target_token_is_refused_without_a_waiver(tmp_path: Path) -> None:
    refused = _approval(tmp_path, LEGACY_TOKEN, "--allow-published-keys")
    assert refused.exit_code == 1, refused.output
    assert json.loads(refused.stdout)["subjects"][0]["outcome"] == "INVALID"
    assert _statuses(refused, LEGACY) == ["fail"]


def test_waive_shows_the_legacy_check_waived_never_passed(tmp_path: Path) -> None:
    waived = _approval(tmp_path, LEGACY_TOKEN, "--allow-published-keys", "--waive", LEGACY)
    assert waived.exit_code == 0, waived.output
    subject = json.loads(waived.stdout)["subjects"][0]
    assert subject["outcome"] == "VALID"
    assert subject["facts"]["waived"] == [LEGACY]
    assert _statuses(waived, LEGACY) == ["waived"]
    reason = next(c["reason"] for c in subject["checks"] if c["id"] == LEGACY)
    assert reason.startswith("WAIVED (")
    # A waiver lifts no other cap: the published approver key still makes it UNPINNED.
    capped = _approval(tmp_path, LEGACY_TOKEN, "--waive", LEGACY)
    assert capped.exit_code == 3
    assert json.loads(capped.stdout)["subjects"][0]["outcome"] == "UNPINNED"


@pytest.mark.parametrize(
    "how",
    ["re-signed by another key", "target re-signed for another server", "edited, not re-signed"],
)
def test_a_forgery_stays_refused_with_the_waiver(tmp_path: Path, how: str) -> None:
    if how == "re-signed by another key":
        forged = _resign(LEGACY_TOKEN, mint.demo_key("attacker"))
        expected = "approval.signature"
    elif how == "target re-signed for another server":
        other = mint.tools_call_frame(
            "shell_exec", '{"command":"rm -rf /srv"}', meta='{"traceparent":"00-ab-cd-01"}'
        )
        target = mint.guard_target_of(other, mint.DEMO_KERNEL_CONFIG, ruled=False)
        forged = _resign(LEGACY_TOKEN, mint.APPROVER_KEY, target=target)
        expected = "approval.target"
    else:
        outer = json.loads(LEGACY_TOKEN)
        edited = outer["payload"].replace("approver@sealverify.test", "attacker@sealverify.test")
        assert edited != outer["payload"]
        outer["payload"] = edited
        forged = json.dumps(outer, separators=(",", ":")).encode()
        expected = "approval.signature"
    result = _approval(tmp_path, forged, "--allow-published-keys", "--waive", LEGACY)
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["subjects"][0]["outcome"] == "INVALID"
    assert _statuses(result, expected) == ["fail"]


@pytest.mark.parametrize("check_id", ["approval.target", "approval.signature", "legacy.other"])
def test_a_waiver_of_a_check_never_waived_is_exit_2(tmp_path: Path, check_id: str) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "approval",
            "-",
            "--frame",
            str(ROOT / "fixtures" / "approval" / "frame.bin"),
            "--approval-pubkey",
            mint.APPROVER_KEY.public_hex,
            "--waive",
            check_id,
        ],
        input=LEGACY_TOKEN + b"\n",
    )
    assert result.exit_code == 2
    assert "only these checks can be waived" in result.output
    with pytest.raises(sealverify.OptionError):
        sealverify.check_token(LEGACY_TOKEN, mint.APPROVER_KEY.public_key, waive=[check_id])


def test_the_library_waives_as_the_command_does() -> None:
    key = mint.APPROVER_KEY.public_key
    judged = {
        waive: sealverify.check_token(
            LEGACY_TOKEN,
            key,
            frame=FRAME,
            server=SERVER,
            at_ms=NOW,
            allow_published_keys=True,
            waive=waive,
        )
        for waive in ((), LEGACY, (LEGACY,))
    }
    assert [r.outcome for r in judged.values()] == ["INVALID", "VALID", "VALID"]
    assert [c.status for c in judged[LEGACY].checks if c.id == LEGACY] == ["waived"]


def test_the_library_caps_a_published_approver_key_at_unpinned() -> None:
    token = mint.approval_token(FRAME, mint.DEMO_KERNEL_CONFIG, ctx=mint.HostContext(now=NOW))
    key = mint.APPROVER_KEY.public_key  # the testkit's, whose secret is public
    capped = sealverify.check_token(token, key, frame=FRAME, server=SERVER, at_ms=NOW)
    assert (capped.ok, capped.outcome) == (False, "UNPINNED")
    published = [c for c in capped.checks if c.id == "authority.published-key"]
    assert [c.status for c in published] == ["not-evaluated"]
    allowed = sealverify.check_token(
        token, key, frame=FRAME, server=SERVER, at_ms=NOW, allow_published_keys=True
    )
    assert (allowed.ok, allowed.outcome) == (True, "VALID")
    # A key that is not published gets no such check and no cap.
    own = mint.demo_key("own-approver")
    mine = mint.approval_token(
        FRAME, mint.DEMO_KERNEL_CONFIG, ctx=mint.HostContext(now=NOW, approver_key=own)
    )
    result = sealverify.check_token(mine, own.public_key, frame=FRAME, server=SERVER, at_ms=NOW)
    assert (result.ok, result.outcome) == (True, "VALID")
    assert "authority.published-key" not in {c.id for c in result.checks}


def _fixture_options(**changes: object) -> tuple[list[str], sealverify.ApprovalOptions]:
    folder = ROOT / "fixtures" / "approval"
    facts = json.loads((folder / "approver.json").read_bytes())
    args = ["approval", str(folder / "tokens.ndjson"), "--frame", str(folder / "frame.bin")]
    args += ["--server", facts["server"], "--approval-pubkey", facts["approver_pubkey"]]
    args += ["--at", str(facts["judged_at_ms"])]
    options = sealverify.ApprovalOptions(
        bytes.fromhex(facts["approver_pubkey"]),
        (folder / "frame.bin").read_bytes(),
        facts["judged_at_ms"],
        server=facts["server"],
        **changes,  # type: ignore[arg-type]
    )
    return args, options


@pytest.mark.parametrize("fmt", ["json", "jsonl", "sarif", "junit", "table"])
@pytest.mark.parametrize("allow", [False, True])
def test_the_cli_writes_the_library_report_byte_for_byte(fmt: str, allow: bool) -> None:
    args, options = _fixture_options(allow_published_keys=allow)
    if allow:
        args.append("--allow-published-keys")
    result = CliRunner().invoke(cli, [*args, "--format", fmt], catch_exceptions=False)
    tokens = (ROOT / "fixtures" / "approval" / "tokens.ndjson").read_bytes()
    report = sealverify.approval_report(sealverify.split_tokens(tokens, "tokens.ndjson"), options)
    assert result.exit_code == report.exit_code == (0 if allow else 3)
    assert result.stdout_bytes == render(report, fmt).encode("utf-8")
