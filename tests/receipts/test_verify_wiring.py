"""`verify` with --state, --approvals, partition side files and the wording rules."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from sealverify_testkit import mint
from sealverify_testkit.mintfixtures import demo_receipts

from sealverify._internal.cli.main import cli
from sealverify._internal.partition import records as partition
from sealverify._internal.wire.framing import frame_of
from tests.helpers.history_learning import CONFIG_KEY as UNPUBLISHED_CONFIG
from tests.helpers.history_learning import RECEIPT_KEY as UNPUBLISHED_RECEIPT
from tests.helpers.verify_wiring import PINS, block_with_meta


def _run(*args: str):
    return CliRunner().invoke(cli, ["verify", *args, *PINS, "--format", "json"])


def _allow(nonce: str, seed: bytes) -> bytes:
    frame = mint.tools_call_frame("shell_exec", '{"command":"ls","cwd":"/srv"}', request_id=5)
    config = mint.DEMO_KERNEL_CONFIG
    ctx = mint.HostContext(
        operation_seed=seed, config_key=UNPUBLISHED_CONFIG, receipt_key=UNPUBLISHED_RECEIPT
    )
    raw = mint.mint_host_v3(frame, config, approvals=[mint.guard_target_of(frame, config)], ctx=ctx)
    record = mint.parse_record(raw)
    approval = dict(record["approval"])
    approval["nonce"] = nonce
    record["approval"] = approval
    return mint.render_pretty(mint.resign_v3(record, UNPUBLISHED_RECEIPT))


def test_a_nonce_spent_in_one_run_is_caught_in_the_next(tmp_path: Path) -> None:
    first, second = tmp_path / "a.receipt.json", tmp_path / "b.receipt.json"
    first.write_bytes(_allow("n-1", b"op-a"))
    second.write_bytes(_allow("n-1", b"op-b"))
    state = tmp_path / "state.db"
    one = _run(str(first), "--state", str(state))
    assert one.exit_code == 0, one.output
    assert json.loads(one.stdout)["subjects"][0]["outcome"] == "VERIFIED"
    again = _run(str(first), "--state", str(state))
    assert again.exit_code == 0  # the same receipt verified again is not a replay
    two = _run(str(second), "--state", str(state))
    assert two.exit_code == 1
    findings = json.loads(two.stdout)["findings"]
    assert any(f["id"] == "history.nonce-replayed" and f["status"] == "fail" for f in findings)
    assert json.loads(two.stdout)["subjects"][0]["outcome"] == "VERIFIED"  # reported separately


def test_failed_receipts_do_not_teach_history(tmp_path: Path) -> None:
    forged = json.loads(_allow("n-2", b"op-c"))
    forged["reason"] = "edited after signing"
    bad = tmp_path / "bad.receipt.json"
    bad.write_text(json.dumps(forged))
    good = tmp_path / "good.receipt.json"
    good.write_bytes(_allow("n-2", b"op-d"))
    state = tmp_path / "state.db"
    assert _run(str(bad), "--state", str(state)).exit_code == 1
    assert _run(str(good), "--state", str(state)).exit_code == 0


def test_unreadable_approvals_or_state_is_exit_2(tmp_path: Path) -> None:
    receipt = tmp_path / "r.receipt.json"
    receipt.write_bytes(_allow("n-3", b"op-e"))
    assert _run(str(receipt), "--approvals", str(tmp_path / "missing.ndjson")).exit_code == 2
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    assert _run(str(receipt), "--state", str(junk)).exit_code == 2


def test_partition_side_file_is_checked(tmp_path: Path) -> None:
    raw, frame = block_with_meta()
    receipt = tmp_path / "x.receipt.json"
    receipt.write_bytes(raw)
    result = partition.partition_frame(frame_of(frame))
    assert result.record is not None
    attestation = partition.sign_record(result.record, mint.RECEIPT_KEY.seed)
    side = tmp_path / "x.receipt.json.partition.json"
    side.write_text(json.dumps(attestation))
    ok = _run(str(tmp_path))
    assert ok.exit_code == 0, ok.output
    ids = {c["id"] for c in json.loads(ok.stdout)["subjects"][0]["checks"]}
    assert any(i.startswith("partition.") for i in ids)
    attestation["record"]["raw_line_sha256"] = "0" * 64
    side.write_text(json.dumps(attestation))
    bad = _run(str(tmp_path))
    assert bad.exit_code == 1
    failed = [c for c in json.loads(bad.stdout)["subjects"][0]["checks"] if c["status"] == "fail"]
    assert failed and all(c["id"].startswith("partition.") for c in failed)


def test_wording_rules_apply_to_every_receipt(tmp_path: Path) -> None:
    record = mint.parse_record(demo_receipts()["verified-block.receipt.json"])
    identity = dict(record["kernel_identity"])
    identity["note"] = "The traceparent value is inert and ignored by the kernel."
    record["kernel_identity"] = identity
    receipt = tmp_path / "w.receipt.json"
    receipt.write_bytes(mint.render_pretty(mint.resign_v3(record, mint.RECEIPT_KEY)))
    result = _run(str(receipt))
    assert result.exit_code == 1
    subject = json.loads(result.stdout)["subjects"][0]
    failed = {c["id"] for c in subject["checks"] if c["status"] == "fail"}
    assert failed and all(i.startswith("wording.") for i in failed)
