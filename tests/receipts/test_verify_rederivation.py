"""``verify``'s ``replay.decision``: forged decisions FAIL, raw lines, session logs, the switch."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sealverify_testkit import mint

from sealverify._internal.cli.main import cli
from sealverify._internal.kernel.hashes import audit_hash_parts
from sealverify._internal.kernel.ljson import compress, parse
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import VerifyOptions, verify_jsonl, verify_receipt
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue, parse_bytes
from tests.conftest import shared_path
from tests.helpers.kernel_minting import CONFIG, DENIED, FLEET, GUARDED, HOST, SEARCH, Receipt

PINS = TrustStore.from_pins(
    config=(mint.CONFIG_KEY.public_key.hex(),), receipt=(mint.RECEIPT_KEY.public_key.hex(),)
)
# The testkit keys are published keys: allowed, as a test suite that knows it (docs/trust.md).
OPTIONS = VerifyOptions(trust=PINS, allow_published_keys=True)


def _doc(raw: bytes) -> Receipt:
    doc = parse_bytes(raw)
    assert isinstance(doc, dict)
    return doc


def _bytes(doc: Receipt) -> bytes:
    if "signature" in doc and "record_type" in doc:
        domain = str(doc["signature"]["domain"])  # type: ignore[index]
        doc = mint.resign_v3(doc, mint.RECEIPT_KEY, domain)
    return mint.render_pretty(doc)


def _forge_allow(doc: Receipt) -> Receipt:
    """A BLOCK re-written as a consistent ALLOW: emitted bytes, certs, verdict and reason."""
    out = parse(str(doc["emitted_bytes"]))
    assert isinstance(out, dict)
    audit = parse(str(out["audit"]))
    assert isinstance(audit, dict) and isinstance(audit["certs"], list)
    certs: list[JsonValue] = []
    for cert in audit["certs"]:
        assert isinstance(cert, dict)
        cert["verdict"] = "allow"
        cert["certHash"] = str(
            audit_hash_parts([str(cert["kernel"]), "allow", str(cert["reason"])])
        )
        certs.append({k: str(v) for k, v in cert.items()})
    audit["verdict"] = "allow"
    doc["emitted_bytes"] = compress({"route": "forward", "audit": compress(audit)})
    doc["certs"] = certs
    doc["verdict"] = "ALLOW"
    doc["reason"] = "every gating kernel allows"
    doc["deny_kernel"] = None
    return doc


def _replay(subject_checks: tuple) -> object:
    return next(c for c in subject_checks if c.id == "replay.decision")


FAMILIES = {
    "record_version 3, Object B v2": lambda f, a: _doc(
        mint.mint_host_v3(f, CONFIG, approvals=a, ctx=HOST)
    ),
    "record_version 3, Object B v1": lambda f, a: _doc(
        mint.mint_host_v3(
            f, CONFIG, approvals=a, ctx=dataclasses.replace(HOST, domain=mint.OBJECT_B_V1)
        )
    ),
    "seal_receipt v2": lambda f, a: _doc(mint.mint_fleet_v2(f, CONFIG, approvals=a, ctx=FLEET)),
}


@pytest.mark.parametrize("family", FAMILIES)
def test_honest_receipts_verify_with_the_decision_rederived(family: str) -> None:
    target = mint.guard_target_of(GUARDED, CONFIG)
    for frame, approvals in ((GUARDED, []), (GUARDED, [target]), (SEARCH, []), (DENIED, [])):
        subject = verify_receipt(_bytes(FAMILIES[family](frame, approvals)), "r", OPTIONS)
        assert _replay(subject.checks).status == "pass", family
        # A fleet ALLOW by approval re-derives, but nothing authenticates the consent behind
        # its grant (no receipt signature, no verified token): REDUCED (docs/claims.md).
        consent = family == "seal_receipt v2" and bool(approvals)
        wanted = "REDUCED" if consent else "VERIFIED"
        assert subject.outcome == wanted, [c for c in subject.checks if c.status == "fail"]


def _relabel(doc: Receipt, name: str, value: JsonValue) -> Receipt:
    """The same receipt under another family's discriminator (the decision path is the same)."""
    for member in ("seal_receipt", "seal_live_receipt"):
        doc.pop(member, None)
    return {name: value, **doc}


def _host_v2(frame: bytes, approvals: list[str]) -> Receipt:
    doc = FAMILIES["record_version 3, Object B v1"](frame, approvals)
    doc["record_version"] = JsonNumber("2")
    return doc


ALL_FAMILIES = {
    **FAMILIES,
    "record_version 2": _host_v2,
    "seal_receipt v1": lambda f, a: _relabel(
        FAMILIES["seal_receipt v2"](f, a), "seal_receipt", "v1"
    ),
    "seal_live_receipt v0": lambda f, a: _relabel(
        FAMILIES["seal_receipt v2"](f, a), "seal_live_receipt", "v0"
    ),
}


@pytest.mark.parametrize("family", ALL_FAMILIES)
@pytest.mark.parametrize("frame", [GUARDED, DENIED], ids=["guarded-no-approval", "denied-tool"])
def test_a_forged_allow_fails_in_every_family(family: str, frame: bytes) -> None:
    doc = _forge_allow(ALL_FAMILIES[family](frame, []))
    subject = verify_receipt(_bytes(doc), "r", OPTIONS)
    replay = _replay(subject.checks)
    assert replay.status == "fail"
    assert "route: the receipt says 'forward', the model 'block'" in replay.reason
    assert subject.outcome == "FAIL"


def test_a_guarded_allow_stripped_of_its_approval_fails() -> None:
    target = mint.guard_target_of(GUARDED, CONFIG)
    doc = FAMILIES["seal_receipt v2"](GUARDED, [target])
    doc["granted_capabilities"] = []
    subject = verify_receipt(_bytes(doc), "r", OPTIONS)
    assert _replay(subject.checks).status == "fail" and subject.outcome == "FAIL"


def test_no_rederive_leaves_the_check_not_evaluated() -> None:
    raw = _bytes(FAMILIES["seal_receipt v2"](SEARCH, []))
    subject = verify_receipt(raw, "r", dataclasses.replace(OPTIONS, rederive=False))
    replay = _replay(subject.checks)
    assert replay.status == "not-evaluated" and "--no-rederive" in replay.reason


def _session_log(tmp_path: Path, second_events: int, first: bytes = SEARCH) -> Path:
    ctx = dataclasses.replace(HOST, temporal_events=1)
    lines = [
        mint.render_compact(_doc(mint.mint_host_v3(first, CONFIG, ctx=ctx))),
        mint.render_compact(
            _doc(
                mint.mint_host_v3(
                    mint.tools_call_frame("search_notes", '{"q":"b"}', request_id=2),
                    CONFIG,
                    ctx=dataclasses.replace(
                        ctx, temporal_events=second_events, operation_seed=b"2"
                    ),
                )
            )
        ),
    ]
    log = tmp_path / "session.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    return log


def test_a_session_log_is_rederived_in_order(tmp_path: Path) -> None:
    log = _session_log(tmp_path, 2)
    subjects, _ = verify_jsonl(log.read_bytes(), "session.jsonl", OPTIONS)
    replays = [_replay(s.checks) for s in subjects]
    assert [r.status for r in replays] == ["pass", "pass"]
    assert "call 2 of its session in log order" in replays[1].reason
    # Alone, the second receipt is a later call whose state no receipt carries.
    alone = verify_receipt(log.read_bytes().splitlines()[1], "r2", OPTIONS)
    assert _replay(alone.checks).status == "not-evaluated"
    assert "executed call 2 of its session" in _replay(alone.checks).reason


def test_a_session_log_with_a_gap_after_a_block_is_not_evaluated(tmp_path: Path) -> None:
    # A BLOCK leaves the trace empty, so a call claiming position 2 next says an executed
    # call is missing from the log: the state before it is unknown, never a pass.
    log = _session_log(tmp_path, 2, first=DENIED)
    subjects, _ = verify_jsonl(log.read_bytes(), "session.jsonl", OPTIONS)
    second = _replay(subjects[1].checks)
    assert second.status == "not-evaluated" and "a gap in session" in second.reason
    assert "position 1 is not among its receipts here" in second.reason


def _cli(*args: str) -> Result:
    return CliRunner().invoke(cli, ["verify", *args], catch_exceptions=False)


def _pins() -> list[str]:
    return [
        "--config-pubkey",
        mint.CONFIG_KEY.public_key.hex(),
        "--receipt-pubkey",
        mint.RECEIPT_KEY.public_key.hex(),
        "--allow-published-keys",
    ]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_re_derives_a_log_the_same_with_workers(tmp_path: Path, jobs: str) -> None:
    log = _session_log(tmp_path, 2)
    result = _cli(str(log), *_pins(), "--jobs", jobs, "--format", "json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0, result.stdout
    assert report["summary"]["decision_rederivation"] == {"pass": 2, "fail": 0, "not-evaluated": 0}


def test_cli_raw_line_for_an_unparseable_receipt(tmp_path: Path) -> None:
    receipt = shared_path(
        "fixtures", "seal", "seal-verify-action", "fixtures", "reduced", "unparseable.receipt.json"
    )
    emitted = json.loads(json.loads(receipt.read_text())["emitted_bytes"])
    tool = json.loads(emitted["audit"])["tool"]
    request_id = json.loads(emitted["response"])["id"]
    line = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": tool}}
    capture = tmp_path / "capture.jsonl"
    capture.write_text(
        '{"jsonrpc":"2.0","id":0,"method":"initialize"}\n'
        + json.dumps(line, separators=(",", ":"))
        + "\n"
    )
    result = _cli(str(receipt), "--raw-line", str(capture), "--format", "json")
    subject = json.loads(result.stdout)["subjects"][0]
    replay = next(c for c in subject["checks"] if c["id"] == "replay.decision")
    assert replay["status"] == "pass"
    assert "supplied raw line" in replay["reason"]
    assert subject["outcome"] == "UNPINNED"  # REDUCED once pinned: the scope is still reduced
    missing = _cli(str(receipt), "--raw-line", str(tmp_path / "nope"))
    assert missing.exit_code == 2
    help_text = " ".join(_cli("--help").output.split())
    assert "--raw-line FILE" in help_text and "--no-rederive" in help_text


def test_cli_reports_a_forged_decision(tmp_path: Path) -> None:
    path = tmp_path / "forged.json"
    path.write_bytes(_bytes(_forge_allow(FAMILIES["seal_receipt v2"](GUARDED, []))))
    result = _cli(str(path), *_pins())
    assert result.exit_code == 1 and "different" in result.stderr
    # the table names the first failing check and counts the rest; the JSON lists each
    listed = _cli(str(path), *_pins(), "--format", "json")
    checks = json.loads(listed.stdout)["subjects"][0]["checks"]
    assert any(c["id"] == "replay.decision" and c["status"] == "fail" for c in checks)


def test_a_long_session_log_is_re_derived_across_task_slices(tmp_path: Path) -> None:
    # More lines than one task slice holds (64): the session pass's results must reach every slice.
    lines = []
    for index in range(70):
        frame = mint.tools_call_frame("search_notes", f'{{"q":"{index}"}}', request_id=index)
        ctx = dataclasses.replace(HOST, temporal_events=index + 1, operation_seed=bytes([index]))
        lines.append(mint.render_compact(_doc(mint.mint_host_v3(frame, CONFIG, ctx=ctx))))
    log = tmp_path / "long.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    for jobs in ("1", "2"):
        report = json.loads(_cli(str(log), *_pins(), "--jobs", jobs, "--format", "json").stdout)
        assert report["summary"]["decision_rederivation"] == {
            "pass": 70,
            "fail": 0,
            "not-evaluated": 0,
        }


def test_may_need_session_pass_finds_a_session_name_cut_by_a_block_end() -> None:
    from sealverify._internal.receipts.sessions import may_need_session_pass

    text = b"x" * 10 + b'"session"' + b"y" * 10
    assert may_need_session_pass([text[:14], text[14:]])
    assert may_need_session_pass([b'{"sess\\u0069on":1}'])  # an escape may spell the name
    assert not may_need_session_pass([b'{"sessions":1,"trace ok (2 events)":2}', b"nothing"])
