"""Receipt file names bind entry and request hash; entry sequences; operation identity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.receipts.discovery import check_directory, parse_name, read_receipt_file
from tests.conftest import shared_path

HOST_V3 = ("fixtures", "seal", "seal-check", "test", "fixtures", "host-v3-block.receipt.json")
OBJECT_B = ("fixtures", "seal", "seal-assurance-kit", "fixtures", "object-b-v2-host-04f7ba83.json")


def real(parts: tuple[str, ...]) -> dict:  # type: ignore[type-arg]
    return json.loads(shared_path(*parts).read_bytes())


def name(entry: int, doc: dict) -> str:  # type: ignore[type-arg]
    # seal-host@099be66 rust/src/authorization_decision.rs: receipt-{:020}-{hash}.json with the
    # canonical request hash, else the raw-line hash.
    digest = doc.get("canonical_request_sha256") or doc["request_sha256"]
    return f"receipt-{entry:020d}-{digest}.json"


def variant(doc: dict, session: str, op: str, **changes: object) -> dict:  # type: ignore[type-arg]
    out = json.loads(json.dumps(doc))
    out["effect_view"]["session"] = session
    out["operation_id"] = op
    out.update(changes)
    return out


def run(files: dict[str, dict], extra_names: tuple[str, ...] = ()) -> list:  # type: ignore[type-arg]
    read = [read_receipt_file(n, json.dumps(d, indent=2).encode()) for n, d in files.items()]
    return check_directory([*files, *extra_names], read)


def failing(checks: list) -> set[str]:  # type: ignore[type-arg]
    return {c.id for c in checks if c.status == "fail"}


def test_parse_name() -> None:
    assert parse_name("receipt-00000000000000000007-" + "a" * 64 + ".json") == (7, "a" * 64)
    assert parse_name("receipt-7-" + "a" * 64 + ".json") is None
    assert parse_name("receipt-00000000000000000007-" + "A" * 64 + ".json") is None


def test_real_receipts_in_a_well_formed_directory() -> None:
    a, b = real(HOST_V3), real(OBJECT_B)
    b = variant(b, a["effect_view"]["session"], b["operation_id"])
    checks = run({name(0, a): a, name(1, b): b})
    assert failing(checks) == set()
    assert any(c.id == "receiptdir.entries" and c.status == "pass" for c in checks)


def test_name_hash_mismatch() -> None:
    a = real(HOST_V3)
    wrong = f"receipt-{0:020d}-{'0' * 64}.json"
    checks = run({wrong: a})
    assert "receiptdir.name-hash" in failing(checks)


def test_bad_name() -> None:
    a = real(HOST_V3)
    assert "receiptdir.name" in failing(run({"receipt-0.json": a}))


def test_gap_in_one_session() -> None:
    a = real(HOST_V3)
    s = a["effect_view"]["session"]
    b = variant(a, s, "b" * 64)
    checks = run({name(0, a): a, name(2, b): b})
    gap = [c for c in checks if c.id == "receiptdir.entry-gap"]
    assert gap and gap[0].data["missing_entry"] == 1


def test_duplicate_entry_in_one_session() -> None:
    a = real(HOST_V3)
    b = variant(
        real(OBJECT_B),
        a["effect_view"]["session"],
        "b" * 64,
        canonical_request_sha256="c" * 64,
        request_sha256="c" * 64,
    )
    checks = run({name(0, a): a, name(0, b): b})
    assert "receiptdir.duplicate-entry" in failing(checks)


def test_entries_restart_per_session_and_skips_are_explained() -> None:
    a = real(HOST_V3)
    # Session 2 repeats session 1's request: entry 0 is taken by that exact name, so the host
    # skips to entry 1 (AuthorizationDecisionWriter::persist `if final_path.exists()`).
    b = variant(a, "seal-host-rs/stdio:2:2", "b" * 64)
    checks = run({name(0, a): a, name(1, b): b})
    assert failing(checks) == set()
    assert any(c.id == "receiptdir.entry-skip" for c in checks)


def test_duplicate_operation_id() -> None:
    a = real(HOST_V3)
    b = variant(a, a["effect_view"]["session"], a["operation_id"])
    checks = run({name(0, a): a, name(1, b): b})
    assert "receiptdir.duplicate-operation" in failing(checks)


def test_leftover_temp_file_is_noted() -> None:
    a = real(HOST_V3)
    checks = run({name(0, a): a}, (f".receipt-42-{0:020d}.tmp",))
    assert any(c.id == "receiptdir.leftover-temp" for c in checks)


def test_unreadable_receipt() -> None:
    item = read_receipt_file(f"receipt-{0:020d}-{'a' * 64}.json", b"{not json")
    checks = check_directory([item.name], [item])
    assert "receiptdir.unreadable" in failing(checks)


@pytest.mark.parametrize("broken", [False, True])
def test_cli_receipts_directory(tmp_path: Path, broken: bool) -> None:
    a = real(HOST_V3)
    audit = json.loads(a["emitted_bytes"])["audit"].encode()
    import hashlib

    genesis = hashlib.sha256(b"seal-verifiable-record/genesis/v1").hexdigest()
    head = hashlib.sha256(genesis.encode() + b"\x1f" + audit).hexdigest()
    rec = json.dumps(
        {
            "seal_record": "v1",
            "entry": 0,
            "commitment": "sha256(prevHead || 0x1f || payload)",
            "session": a["effect_view"]["session"],
            "prev_head": genesis,
            "prior_session": None,
            "head": head,
        }
    ).encode()
    log = tmp_path / "stderr.log"
    log.write_bytes(audit + b"\n" + rec + b"\n")
    receipts = tmp_path / "receipts"
    receipts.mkdir()
    entry_name = name(0, a) if not broken else f"receipt-{0:020d}-{'0' * 64}.json"
    (receipts / entry_name).write_bytes(shared_path(*HOST_V3).read_bytes())
    out = CliRunner().invoke(
        cli,
        ["chain", str(log), "--expect-count", "1", "--receipts", str(receipts), "--format", "json"],
    )
    report = json.loads(out.stdout)
    assert out.exit_code == (1 if broken else 0)
    ids = {c["id"]: c["status"] for s in report["subjects"] for c in s["checks"]}
    assert ids["chain.receipt-binding"] == "pass"
    assert ids["receiptdir.name-hash"] == ("fail" if broken else "pass")
