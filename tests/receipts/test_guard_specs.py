"""Every guard-target spec the kernel parses: minted, verified, approved, and flipped.

The testkit mints guarded receipts and ApprovalRecord v2 tokens for each target-part kind of
mcp-seal-dev ``Seal/Policy.lean`` (``literal``, ``arg``, ``full_arguments``, combined). The
expected targets here are built by hand from the parts the kernel would resolve, hashed with
the netstring primitive alone: never read back from the resolver under test.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sealverify_testkit import mint
from sealverify_testkit.guard_specs import GUARD_SPECS, guarded_config

from sealverify._internal.cli.main import cli
from sealverify._internal.primitives import identities
from sealverify._internal.primitives.objectb import OBJECT_B_V2
from sealverify._internal.receipts.verify import verify_receipt
from sealverify._internal.results.model import Subject
from sealverify._internal.wire.netstring import hash_parts
from sealverify._internal.wire.strictjson import parse_bytes

# OPTS pins every testkit key and allows them as published keys.
from tests.helpers.verify_approval_statement import OPTS, verify_with_approvals

TOOL = "db.migrate"
ARGUMENTS = (
    '{"command":"migrate --to 42","db":{"name":"ledger","shard":3},"limit":1.5,'
    '"dry_run":false,"note":null}'
)
FRAME = mint.tools_call_frame(TOOL, ARGUMENTS)
SERVER = "sealverify-demo@1.0.0"
CTX = mint.HostContext(approval_channel="ed25519")
# The current build loads a guarded rule only with exactly the full-arguments target (Stage
# A), so a receipt under any other spec names the made-up build: every binding holds, but no
# profiled build re-derives its decision (REDUCED, exit 4).
LOADED = ("full-arguments",)


def _host(name: str) -> mint.HostContext:
    return CTX if name in LOADED else dataclasses.replace(CTX, wasm_sha256=mint.DEMO_WASM_SHA256)


def _outcome(name: str) -> str:
    return "VERIFIED" if name in LOADED else "REDUCED"


ABSENT = ["meta.absent", "", "requestState.absent", "", "inputResponses.absent", ""]
# What the kernel's compress(arguments) gives: keys sorted, numbers as received.
COMPRESSED = (
    '{"command":"migrate --to 42","db":{"name":"ledger","shard":3},"dry_run":false,'
    '"limit":1.5,"note":null}'
)

# The parts each spec resolves to against ARGUMENTS, written out by hand. A Lean number's
# toString writes 1.5 as received.
EXPECTED_PARTS: dict[str, list[str]] = {
    "full-arguments": [COMPRESSED],
    "literal": ["prod-db"],
    "arg-string": ["migrate --to 42"],
    "arg-nested": ["ledger"],
    "arg-number": ["1.5"],
    "arg-boolean": ["false"],
    "arg-null": ["null"],
    "arg-empty-segments": ["ledger"],
    "literal-wins": ["fixed"],
    "mixed": ["prod-db", "ledger", COMPRESSED],
    "with-comment": [COMPRESSED],
}


def expected_target(name: str, server: str = SERVER) -> str:
    return hash_parts([identities.GUARD_TARGET_TAG, server, TOOL, *EXPECTED_PARTS[name], *ABSENT])


def statuses(subject: Subject, check_id: str) -> set[str]:
    return {c.status for c in subject.checks if c.id == check_id}


def test_the_catalogue_covers_every_part_kind() -> None:
    assert set(GUARD_SPECS) == set(EXPECTED_PARTS)
    kinds = {
        key
        for spec in GUARD_SPECS.values()
        for part in json.loads(spec)
        for key in part
        if key in ("literal", "arg", "full_arguments")
    }
    assert kinds == {"literal", "arg", "full_arguments"}


@pytest.mark.parametrize("name", sorted(GUARD_SPECS))
def test_blocked_call_names_the_spec_target_and_verifies(name: str) -> None:
    config = guarded_config(TOOL, GUARD_SPECS[name])
    record = json.loads(mint.mint_host_v3(FRAME, config))
    assert record["verdict"] == "BLOCK"
    assert record["certs"][0]["reason"] == expected_target(name)
    assert mint.policy_guard_target(FRAME, config) == expected_target(name)
    subject = verify_receipt(mint.mint_host_v3(FRAME, config, ctx=_host(name)), name, OPTS)
    assert subject.outcome == _outcome(name), [c for c in subject.checks if c.status == "fail"]
    if name not in LOADED:
        left = {c.id for c in subject.checks if c.status == "not-evaluated"}
        assert left == {"replay.decision", "decision.authenticated"}, left
    assert statuses(subject, "binding.guard-target") == {"pass"}
    partial = name not in ("full-arguments", "with-comment")
    assert statuses(subject, "binding.guard-target-spec") == ({"info"} if partial else set())


@pytest.mark.parametrize("name", sorted(GUARD_SPECS))
def test_ed25519_approval_of_a_spec_target_verifies_end_to_end(name: str, tmp_path: Path) -> None:
    config = guarded_config(TOOL, GUARD_SPECS[name])
    target = mint.policy_guard_target(FRAME, config)
    receipt = tmp_path / "allow.json"
    receipt.write_bytes(mint.mint_host_v3(FRAME, config, approvals=[target], ctx=_host(name)))
    tokens = tmp_path / "approvals.ndjson"
    tokens.write_bytes(mint.approval_token_for_target(FRAME, config, target, ctx=CTX) + b"\n")
    doc = json.loads(receipt.read_bytes())
    assert (doc["verdict"], doc["authorization"]) == ("ALLOW", "approval")
    assert json.loads(json.loads(tokens.read_bytes())["payload"])["target"] == expected_target(name)
    code, _, checks = verify_with_approvals(receipt, tokens)
    for check_id in (
        "approval.signature",
        "approval.subject",
        "approval.target",
        "approval.receipt-statement",
        "binding.approval-statement",
        "binding.guard-target",
        "binding.approval-grant",
    ):
        assert (check_id, "pass") in checks, check_id
    assert not [c for c in checks if c[1] == "fail"]
    assert code == (0 if name in LOADED else 4)


@pytest.mark.parametrize("name", ["literal", "arg-nested", "mixed"])
def test_standalone_approval_command_takes_the_target_spec(name: str, tmp_path: Path) -> None:
    config = guarded_config(TOOL, GUARD_SPECS[name])
    target = mint.policy_guard_target(FRAME, config)
    token = tmp_path / "t.ndjson"
    token.write_bytes(mint.approval_token_for_target(FRAME, config, target, ctx=CTX))
    frame = tmp_path / "frame.bin"
    frame.write_bytes(FRAME)
    base = [
        "approval",
        str(token),
        "--approval-pubkey",
        mint.APPROVER_KEY.public_hex,
        "--frame",
        str(frame),
        "--server",
        SERVER,
        "--allow-published-keys",
        "--format",
        "json",
    ]

    def target_status(*extra: str) -> str:
        result = CliRunner().invoke(cli, [*base, *extra])
        checks = json.loads(result.stdout)["subjects"][0]["checks"]
        (status,) = [c["status"] for c in checks if c["id"] == "approval.target"]
        return str(status)

    assert target_status("--target-spec", GUARD_SPECS[name]) == "pass"
    # Without the spec the full-arguments target is expected, which this token is not.
    assert target_status() == "fail"
    assert target_status("--target-spec", GUARD_SPECS["full-arguments"]) == "fail"


def test_bad_target_spec_flag_is_exit_2(tmp_path: Path) -> None:
    frame = tmp_path / "frame.bin"
    frame.write_bytes(FRAME)
    token = tmp_path / "t.ndjson"
    token.write_bytes(mint.approval_token(FRAME, mint.DEMO_KERNEL_CONFIG, ctx=CTX))
    args = ["approval", str(token), "--approval-pubkey", mint.APPROVER_KEY.public_hex]
    result = CliRunner().invoke(cli, [*args, "--frame", str(frame), "--target-spec", "[{"])
    assert result.exit_code == 2


# --- the attacker holding the testkit ---------------------------------------------------


def resigned(config: str, mutate: Any) -> bytes:
    record = mint.parse_record(mint.mint_host_v3(FRAME, config))
    mutate(record)
    return mint.render_pretty(mint.resign_v3(record, mint.RECEIPT_KEY, OBJECT_B_V2))


@pytest.mark.parametrize("name", ["literal", "arg-nested", "mixed", "full-arguments"])
def test_a_reason_from_another_spec_fails_behind_a_valid_signature(name: str) -> None:
    config = guarded_config(TOOL, GUARD_SPECS[name])
    other = "arg-string" if name != "arg-string" else "literal"

    def swap(record: dict[str, Any]) -> None:
        record["certs"][0]["reason"] = expected_target(other)

    subject = verify_receipt(resigned(config, swap), name, OPTS)
    assert statuses(subject, "binding.guard-target") == {"fail"}
    assert subject.outcome == "FAIL"


def test_editing_the_spec_in_a_signed_config_is_caught() -> None:
    # Re-sign Object B but not the config: the policy now names another literal.
    config = guarded_config(TOOL, GUARD_SPECS["literal"])

    def edit(record: dict[str, Any]) -> None:
        record["kernel_config"]["safety"]["tools"][0]["target"][0]["literal"] = "staging-db"

    subject = verify_receipt(resigned(config, edit), "edited-spec", OPTS)
    assert subject.outcome == "FAIL"
    assert statuses(subject, "binding.guard-target") == {"fail"}


def test_a_partial_spec_target_ignores_what_it_does_not_name() -> None:
    # The reason partial specs were retired (Stage A): an approval of the `literal` target
    # covers any arguments at all. The target equals on two different calls.
    config = guarded_config(TOOL, GUARD_SPECS["literal"])
    other = mint.tools_call_frame(TOOL, '{"command":"drop everything"}')
    assert mint.policy_guard_target(FRAME, config) == mint.policy_guard_target(other, config)
    full = guarded_config(TOOL, GUARD_SPECS["full-arguments"])
    assert mint.policy_guard_target(FRAME, full) != mint.policy_guard_target(other, full)


# --- the kernel's parser and evaluator, case by case ------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        '[{"full_arguments":false}]',
        '[{"arg":"a","full_arguments":true}]',
        "[{}]",
        '[{"literal":7}]',
        '[{"arg":["a"]}]',
        '{"full_arguments":true}',
        '["full_arguments"]',
    ],
)
def test_specs_the_policy_parser_refuses(spec: str) -> None:
    arguments = parse_bytes(ARGUMENTS.encode())
    with pytest.raises(identities.TargetSpecError):
        identities.target_spec_parts(parse_bytes(spec.encode()), arguments)
    config = guarded_config(TOOL, spec)
    with pytest.raises(ValueError):
        mint.mint_host_v3(FRAME, config)


def test_a_spec_the_parser_refuses_cannot_bind_a_receipt() -> None:
    config = guarded_config(TOOL, GUARD_SPECS["literal"])

    def edit(record: dict[str, Any]) -> None:
        record["kernel_config"]["safety"]["tools"][0]["target"] = [{"full_arguments": False}]

    subject = verify_receipt(resigned(config, edit), "unparseable-spec", OPTS)
    assert statuses(subject, "binding.guard-target") == {"fail"}


@pytest.mark.parametrize("path", ["db", "db.missing", "missing", "db.name.deeper"])
def test_a_path_without_a_scalar_is_the_kernels_missing_target_field(path: str) -> None:
    arguments = parse_bytes(ARGUMENTS.encode())
    assert identities.target_spec_parts([{"arg": path}], arguments) is None
    record = json.loads(mint.mint_host_v3(FRAME, guarded_config(TOOL, json.dumps([{"arg": path}]))))
    assert record["verdict"] == "BLOCK"
    assert record["certs"][0]["reason"] == f"missing target field: {TOOL}"


def test_legacy_untagged_form_of_a_spec_target_is_accepted() -> None:
    config = guarded_config(TOOL, GUARD_SPECS["mixed"])
    legacy = hash_parts([SERVER, TOOL, *EXPECTED_PARTS["mixed"]])

    def untag(record: dict[str, Any]) -> None:
        record["certs"][0]["reason"] = legacy

    # certHash covers the reason: recompute it as the host would for the legacy reason.
    def untag_and_rehash(record: dict[str, Any]) -> None:
        untag(record)
        cert = record["certs"][0]
        cert["certHash"] = mint.cert_hash(cert["kernel"], cert["verdict"], legacy)

    subject = verify_receipt(resigned(config, untag_and_rehash), "legacy", OPTS)
    checks = [c for c in subject.checks if c.id == "binding.guard-target"]
    assert [c.status for c in checks] == ["pass"]
    assert "legacy untagged" in checks[0].reason


def test_server_part_is_left_out_when_empty() -> None:
    config = guarded_config(TOOL, GUARD_SPECS["arg-nested"], server="")
    record = json.loads(mint.mint_host_v3(FRAME, config))
    expected = hash_parts([identities.GUARD_TARGET_TAG, TOOL, "ledger", *ABSENT])
    assert record["certs"][0]["reason"] == expected
    assert hashlib.sha256(b"").hexdigest() != expected


# --- two readings of the kernel's Lean source agree -------------------------------------


@pytest.mark.parametrize("name", sorted(GUARD_SPECS))
def test_the_kernel_rederivation_resolves_each_spec_alike(name: str) -> None:
    # sealverify._internal.kernel (the decision replay) has its own model of parseTargetPart and
    # evalTargetParts over Lean values; the identities resolver over strict JSON must agree.
    from sealverify._internal.kernel import ljson, policy

    spec = ljson.parse(GUARD_SPECS[name])
    parts = tuple(policy.parse_target_part(item) for item in spec)  # type: ignore[union-attr]
    kernel_parts = policy.eval_target_parts(parts, ljson.parse(ARGUMENTS))
    ours = identities.target_spec_parts(
        parse_bytes(GUARD_SPECS[name].encode()), parse_bytes(ARGUMENTS.encode())
    )
    assert kernel_parts == ours == EXPECTED_PARTS[name]
