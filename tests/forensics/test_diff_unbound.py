"""diff's verdict covers the whole request: a member no seal identity binds is never "the same".

Each pair differs in one member that no seal identity covers (MCP 2025-11-25's `params.task`,
an unknown `params` member, an extra envelope member): every identity is equal, so the old
verdict said "same invocation". The frames are written here with `json.dumps`, never by the
code under test; `frame` and `verify` are asked about the same bytes, so the three agree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sealverify_testkit import mint

from sealverify import (
    VerifyOptions,
    analyze_frame,
    diff_report,
    frame_of,
    frame_report,
    load_side,
    verify_receipt,
)
from sealverify._internal.cli.main import cli

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def message(**changes: Any) -> dict[str, Any]:
    params: dict[str, Any] = {
        "_meta": dict(META),
        "name": "shell_exec",
        "arguments": {"command": "systemctl restart app"},
    }
    params.update(changes.pop("params", {}))
    doc: dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    doc.update(changes)
    return doc


def line(doc: dict[str, Any], **dumps: Any) -> bytes:
    return json.dumps(doc, separators=(",", ":"), **dumps).encode() + b"\n"


def compare(a: bytes, b: bytes) -> tuple[int, dict[str, Any], dict[str, set[str]]]:
    report = diff_report(load_side(a, "A", "a"), load_side(b, "B", "b"))
    subject = report.subjects[0]
    checks: dict[str, set[str]] = {}
    for check in subject.checks:
        checks.setdefault(check.id, set()).add(check.location)
    return report.exit_code, subject.facts, checks


BASE = line(message())
VARIANTS = {
    "task-augmented call": (message(params={"task": {"ttl": 60000}}), "/params/task", "params"),
    "unknown params member": (message(params={"x-vendor": True}), "/params/x-vendor", "params"),
    "extra envelope member": (message(extra={"note": 1}), "/extra", "envelope"),
}


@pytest.mark.parametrize("case", sorted(VARIANTS))
def test_a_member_no_identity_binds_is_a_different_invocation(case: str) -> None:
    doc, where, area = VARIANTS[case]
    for a, b, side in ((BASE, line(doc), "B"), (line(doc), BASE, "A")):
        code, facts, checks = compare(a, b)
        bytes_only = ("exact_frame_sha256", "raw_line_sha256")
        ids = facts["identities"]
        assert all(row["equal"] for name, row in ids.items() if name not in bytes_only)
        assert code == 1
        assert facts["verdict"] == "same-action"
        assert facts["verdict_text"] == f"same action, different invocation ({area}: {where})"
        assert f"{side}:{where}" in checks["diff.unbound-member"]


def test_a_change_inside_an_unbound_member_is_named() -> None:
    a = line(message(params={"task": {"ttl": 1}}))
    b = line(message(params={"task": {"ttl": 2}}))
    code, facts, checks = compare(a, b)
    assert (code, facts["verdict"]) == (1, "same-action")
    assert facts["verdict_text"].endswith("(params: /params/task/ttl)")
    assert checks["diff.unbound-member"] == {"A:/params/task", "B:/params/task"}


def test_only_the_allowed_differences_keep_the_same_invocation() -> None:
    # Another id, the envelope's and params' members reordered, whitespace, escape spelling and
    # CRLF: what seal rebuilds or never reads.
    doc = message(id="other")
    reordered = {
        "params": {"arguments": doc["params"]["arguments"], **doc["params"]},
        "method": "tools/call",
        "id": "other",
        "jsonrpc": "2.0",
    }
    b = json.dumps(reordered, separators=(" , ", " : ")).replace("restart", "\\u0072estart")
    code, facts, checks = compare(BASE, b.encode() + b"\r\n")
    assert (code, facts["verdict"]) == (0, "same-invocation"), facts["verdict_text"]
    assert "diff.unbound-member" not in checks


def test_an_envelope_member_against_a_receipt_without_frame_bytes() -> None:
    # A receipt without frame bytes binds the call's params only: a frame carrying another
    # envelope member is not the same invocation as the receipt's.
    receipt = {
        "seal_live_receipt": 1,
        "tool": "shell_exec",
        "arguments": {"command": "systemctl restart app"},
        "_meta": META,
    }
    side = json.dumps(receipt).encode()
    code, facts, _ = compare(side, line(message()))
    assert (code, facts["verdict"]) == (0, "same-invocation"), facts["verdict_text"]
    code, facts, _ = compare(side, line(message(extra=1)))
    assert (code, facts["verdict"]) == (1, "same-action")
    assert facts["verdict_text"].endswith("(envelope: /extra)")


def test_cli_diff_frame_and_verify_agree_on_params_task(tmp_path: Path) -> None:
    plain = mint.tools_call_frame("shell_exec", '{"command":"systemctl restart app"}')
    doc = json.loads(plain)
    doc["params"]["task"] = {"ttl": 60000}  # MCP 2025-11-25 TaskMetadata
    task = line(doc)
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(plain)
    b.write_bytes(task)
    runner = CliRunner()
    diffed = runner.invoke(cli, ["diff", str(a), str(b), "--era", "legacy", "--format", "json"])
    assert diffed.exit_code == 1, diffed.output
    facts = json.loads(diffed.stdout)["subjects"][0]["facts"]
    assert "/params/task" in facts["verdict_text"]
    framed = runner.invoke(cli, ["frame", str(b), "--format", "json"])
    checks = json.loads(framed.stdout)["subjects"][0]["checks"]
    assert [(c["id"], c["status"], c["location"]) for c in checks if "task" in c["id"]] == [
        ("frame.params.task", "info", "/params/task")
    ]
    assert "CreateTaskResult" in next(c["reason"] for c in checks if "task" in c["id"])
    # verify, given a receipt whose Object A is these bytes, refuses them and names the member.
    receipt = mint.mint_host_v3(task, mint.DEMO_KERNEL_CONFIG)
    subject = verify_receipt(receipt, "task.json", VerifyOptions())
    (request,) = [c for c in subject.checks if c.id == "binding.object-a-request"]
    assert request.status == "fail" and "/params/task" in request.reason


def test_a_number_spelled_otherwise_is_not_the_same_invocation() -> None:
    # serde reads 1.0 and 1.00 alike, so every identity is equal; a server's parser need not.
    a = line(message(params={"arguments": {"x": 1.0}}))
    b = a.replace(b'"x":1.0', b'"x":1.00')
    code, facts, _ = compare(a, b)
    ids = facts["identities"]
    assert ids["args_hash"]["equal"] and ids["canonical_request_sha256"]["equal"]
    assert (code, facts["verdict"]) == (1, "same-action")
    assert facts["verdict_text"].endswith("(argument number spelling: /params/arguments/x)")


def test_metadata_member_order_seal_sorts_is_the_same_invocation() -> None:
    meta = dict(reversed(list(META.items())))
    a, b = line(message()), line(message(params={"_meta": meta}))
    code, facts, _ = compare(a, b)
    assert {"pointer": "/params/_meta", "change": "member-order"} in facts["meaning"]["changes"]
    assert (code, facts["verdict"]) == (0, "same-invocation"), facts["verdict_text"]


def test_frame_names_every_unbound_member_per_the_schema_of_its_era() -> None:
    doc = message(params={"task": {"ttl": 1}, "x-vendor": 1}, extra=True)
    report = frame_report("f", [analyze_frame(frame_of(line(doc), "stdio"))])
    (subject,) = report.subjects
    assert subject.outcome == "ADMISSIBLE" and report.exit_code == 0  # the schema allows them
    found = {(c.id, c.status, c.location) for c in subject.checks if c.status == "info"}
    assert found >= {
        ("frame.envelope.unknown-member", "info", "/extra"),
        ("frame.params.task", "info", "/params/task"),
        ("frame.params.unknown-member", "info", "/params/x-vendor"),
    }
    (task,) = [c for c in subject.checks if c.id == "frame.params.task"]
    assert "2026-07-28" in task.reason and "io.modelcontextprotocol/tasks" in task.reason
