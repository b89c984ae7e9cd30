"""``sealverify inventory``: what receipts carry, and a trust template that verifies nothing as is.

Receipts are minted here under keys whose seeds are not on the published list, so the
template's entries are ordinary keys an operator could confirm; the testkit's own keys are
published and must come out marked. Expected counts are those of the receipts minted here.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sealverify_testkit import mint
from sealverify_testkit.keys import TestKey

from sealverify._internal.cli.main import cli
from sealverify._internal.primitives.trust import load_trust_file
from sealverify._internal.receipts.inventory import InventoryBuilder, trust_template
from tests.conftest import ROOT, shared_path

FRESH_CONFIG = TestKey("inventory-config", hashlib.sha256(b"inventory test config").digest())
FRESH_RECEIPT = TestKey("inventory-receipt", hashlib.sha256(b"inventory test receipt").digest())
FRAME = mint.tools_call_frame("read_file", '{"path":"/tmp/a"}')
GUARDED = mint.tools_call_frame("shell_exec", '{"command":"rm -rf /tmp/x"}')
DEMO_WASM = mint.HostContext().wasm_sha256


def _fresh(now: int, seed: bytes) -> bytes:
    ctx = mint.HostContext(
        now=now, config_key=FRESH_CONFIG, receipt_key=FRESH_RECEIPT, operation_seed=seed
    )
    return mint.mint_host_v3(FRAME, mint.DEMO_KERNEL_CONFIG, ctx=ctx)


def _approved() -> bytes:
    ctx = mint.HostContext(approval_channel="ed25519", now=1_786_000_500_000, session="other")
    target = mint.guard_target_of(GUARDED, mint.DEMO_KERNEL_CONFIG)
    return mint.mint_host_v3(GUARDED, mint.DEMO_KERNEL_CONFIG, approvals=[target], ctx=ctx)


@pytest.fixture
def evidence(tmp_path: Path) -> Path:
    folder = tmp_path / "evidence"
    folder.mkdir()
    (folder / "a.receipt.json").write_bytes(_fresh(1_786_000_000_000, b"a"))
    (folder / "b.receipt.json").write_bytes(_fresh(1_786_000_900_000, b"b"))
    (folder / "c.receipt.json").write_bytes(_approved())
    (folder / "d.receipt.json").write_bytes(mint.mint_fleet_v2(FRAME, mint.DEMO_KERNEL_CONFIG))
    (folder / "policy.json").write_bytes(b'{"not": "a receipt"}')
    (folder / "broken.jsonl").write_bytes(b"{\n")
    return folder


def _inventory(folder: Path):
    builder = InventoryBuilder()
    for path in sorted(folder.glob("*.receipt.json")):
        builder.add_file(path.read_bytes(), path.name)
    return builder.inventory()


def test_the_inventory_counts_what_the_receipts_name(evidence: Path) -> None:
    found = _inventory(evidence)
    assert found.receipts == 4 and dict(found.families) == {"v2": 1, "v3": 3}
    keys = {(k.role, k.value): k for k in found.keys}
    assert keys["config", FRESH_CONFIG.public_hex].receipts == 2
    assert keys["receipt", FRESH_RECEIPT.public_hex].receipts == 2
    assert keys["config", FRESH_CONFIG.public_hex].published is None
    # the testkit's keys: published, and marked so
    testkit_config = keys["config", mint.CONFIG_KEY.public_hex]
    assert testkit_config.receipts == 2 and testkit_config.families == ("v2", "v3")
    assert "sealverify testkit" in (testkit_config.published or "")
    approver = keys["approver", hashlib.sha256(mint.APPROVER_KEY.public_key).hexdigest()]
    assert approver.is_key_id and approver.receipts == 1 and approver.published
    builds = {b.sha256: b.receipts for b in found.builds}
    assert builds == {DEMO_WASM: 4}  # the fleet receipt names the demo build too
    assert found.sessions == 2 and found.receipts_in_sessions == 3
    # only v3 receipts carry a signed time (Object B signs now)
    assert found.signed_time == (1_786_000_000_000, 1_786_000_900_000)
    assert found.timed_receipts == 3


def test_a_template_verifies_nothing_until_each_entry_is_confirmed(
    evidence: Path, tmp_path: Path
) -> None:
    template = tmp_path / "trust-template.json"
    run = CliRunner().invoke(cli, ["inventory", str(evidence), "--trust-template", str(template)])
    assert run.exit_code == 0, run.output
    document = json.loads(template.read_text(encoding="utf-8"))
    assert all(entry["confirmed"] is False for entry in document["keys"] + document["kernels"])
    labels = {e["public_key"]: e["label"] for e in document["keys"]}
    assert labels[mint.CONFIG_KEY.public_hex].startswith("PUBLISHED KEY")
    assert not labels[FRESH_CONFIG.public_hex].startswith("PUBLISHED")
    assert any("approver" in note for note in document["notes"])
    with pytest.raises(ValueError, match="not confirmed"):
        load_trust_file(template.read_bytes())
    receipt = str(evidence / "a.receipt.json")
    as_is = CliRunner().invoke(cli, ["verify", receipt, "--trust", str(template)])
    assert as_is.exit_code == 2 and "not confirmed" in as_is.output

    # The operator confirms the fresh keys and the build, and deletes the published keys:
    # only now does the template pin anything, and the receipt it names verifies. The fresh
    # config key shares its role with the testkit's, on as many receipts, so it is flagged
    # and confirmed by its own first digits.
    fresh = {FRESH_CONFIG.public_hex, FRESH_RECEIPT.public_hex}
    flags = {e["public_key"]: e.get("flags") for e in document["keys"]}
    assert flags[FRESH_CONFIG.public_hex] == ["second-signer"]
    assert flags[FRESH_RECEIPT.public_hex] is None
    document["keys"] = [
        dict(e, confirmed=e["public_key"][:8] if "flags" in e else True)
        for e in document["keys"]
        if e["public_key"] in fresh
    ]
    document["kernels"] = [dict(e, confirmed=True) for e in document["kernels"]]
    template.write_text(json.dumps(document), encoding="utf-8")
    confirmed = CliRunner().invoke(cli, ["verify", receipt, "--trust", str(template)])
    assert confirmed.exit_code == 0, confirmed.output

    # One entry left unconfirmed refuses the whole file.
    document["kernels"][0]["confirmed"] = False
    template.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ValueError, match="1 entry not confirmed: kernels/0 kernel"):
        load_trust_file(template.read_bytes())


def test_confirmed_must_be_a_boolean_and_a_kernel_object_is_read_like_a_string() -> None:
    build = "AB" * 32
    ok = load_trust_file(
        json.dumps(
            {"sealverify_trust": 1, "keys": [], "kernels": [{"sha256": build, "confirmed": True}]}
        ).encode()
    )
    assert ok.kernels == (build.lower(),)
    for bad in ({"sha256": build, "confirmed": "yes"}, {"sha256": build, "extra": 1}, {}):
        with pytest.raises(ValueError, match="kernels/0"):
            load_trust_file(
                json.dumps({"sealverify_trust": 1, "keys": [], "kernels": [bad]}).encode()
            )
    with pytest.raises(ValueError, match="notes"):
        load_trust_file(b'{"sealverify_trust":1,"keys":[],"notes":[1]}')


def test_the_command_reads_paths_as_verify_does_and_says_what_it_skipped(evidence: Path) -> None:
    run = CliRunner().invoke(cli, ["inventory", str(evidence), "--format", "json"])
    assert run.exit_code == 0, run.output
    report = json.loads(run.stdout)
    assert report["receipts"] == 4 and report["skipped"] == 1  # policy.json
    assert report["unreadable"]["count"] == 1  # broken.jsonl line 1
    assert report["unreadable"]["examples"] == [f"{(evidence / 'broken.jsonl').as_posix()}:1"]
    library = _inventory(evidence).to_dict()
    for member in ("keys", "kernel_builds", "sessions", "signed_time", "families"):
        assert report[member] == library[member], member
    table = CliRunner().invoke(cli, ["inventory", str(evidence)])
    assert (
        FRESH_CONFIG.public_hex in table.stdout and "published (sealverify testkit" in table.stdout
    )
    assert "2026-08-06T" in table.stdout  # the signed-time range, in UTC
    assert "sealverify inventory: 4 receipt(s)" in table.stderr


def test_a_template_never_overwrites_and_an_empty_input_is_refused(
    evidence: Path, tmp_path: Path
) -> None:
    existing = tmp_path / "trust.json"
    existing.write_text("{}")
    run = CliRunner().invoke(cli, ["inventory", str(evidence), "--trust-template", str(existing)])
    assert run.exit_code == 2 and "never overwrites" in run.output
    assert existing.read_text() == "{}"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert CliRunner().invoke(cli, ["inventory", str(empty)]).exit_code == 2


def test_spine_receipts_are_counted_though_they_name_no_key() -> None:
    spine = shared_path("fixtures/seal/seal-check/examples/spine-allow.receipt.json")
    builder = InventoryBuilder()
    builder.add_file(spine.read_bytes(), spine.name)
    found = builder.inventory()
    assert found.spine_receipts == 1 and not found.keys and found.timed_receipts == 1
    assert any("spine" in note for note in json.loads(trust_template(found))["notes"])


def test_the_demo_inventory_marks_every_testkit_key_published() -> None:
    run = CliRunner().invoke(
        cli, ["inventory", str(ROOT / "fixtures" / "demo" / "receipts"), "--format", "json"]
    )
    keys = json.loads(run.stdout)["keys"]
    assert keys and all(key["published"] for key in keys)


ODD_CONFIG = TestKey("inventory-odd-config", hashlib.sha256(b"inventory odd config").digest())
ODD_RECEIPT = TestKey("inventory-odd-receipt", hashlib.sha256(b"inventory odd receipt").digest())


def _odd(seed: bytes) -> bytes:
    ctx = mint.HostContext(
        now=1_786_000_500_000, config_key=ODD_CONFIG, receipt_key=ODD_RECEIPT, operation_seed=seed
    )
    return mint.mint_host_v3(FRAME, mint.DEMO_KERNEL_CONFIG, ctx=ctx)


@pytest.fixture
def one_odd(tmp_path: Path) -> Path:
    """Three receipts under one pair of keys, one under another pair (none published)."""
    folder = tmp_path / "one-odd"
    folder.mkdir()
    for index in range(3):
        seed = f"usual-{index}".encode()
        (folder / f"usual-{index}.receipt.json").write_bytes(
            _fresh(1_786_000_000_000 + index, seed)
        )
    (folder / "odd.receipt.json").write_bytes(_odd(b"odd"))
    return folder


def _keys(found: object) -> dict[str, dict[str, object]]:
    return {k["public_key"]: k for k in found["keys"]}  # type: ignore[index]


def test_the_demo_other_signer_keys_are_flagged_and_the_usual_ones_are_not() -> None:
    demo = ROOT / "fixtures" / "demo" / "receipts"
    run = CliRunner().invoke(cli, ["inventory", str(demo), "--format", "json"])
    assert run.exit_code == 0, run.output
    keys = _keys(json.loads(run.stdout))
    other = json.loads((demo / "other-signer.receipt.json").read_bytes())
    odd = {other["signed_config"]["pubkey"], other["signature"]["public_key"]}
    for value, key in keys.items():
        assert "published" in key["flags"]  # the demo's keys are the testkit's
        odd_flags = {"minority", "second-signer"} & set(key["flags"])  # type: ignore[arg-type]
        assert odd_flags == ({"minority", "second-signer"} if value in odd else set()), value
    assert {k["role"]: k["role_receipts"] for k in keys.values()} == {"config": 12, "receipt": 10}
    table = CliRunner().invoke(cli, ["inventory", str(demo)])
    assert "flagged: published (sealverify testkit OTHER_CONFIG_KEY), minority, second-signer" in (
        table.stdout
    )
    assert "1 of 12 (8%)" in table.stdout and "second-signer: another key" in table.stdout


def test_confirming_every_entry_blindly_is_no_longer_one_edit(
    one_odd: Path, tmp_path: Path
) -> None:
    template = tmp_path / "template.json"
    run = CliRunner().invoke(cli, ["inventory", str(one_odd), "--trust-template", str(template)])
    assert run.exit_code == 0, run.output
    document = json.loads(template.read_text(encoding="utf-8"))
    flags = {e["public_key"]: e.get("flags") for e in document["keys"]}
    assert flags == {
        FRESH_CONFIG.public_hex: None,
        FRESH_RECEIPT.public_hex: None,
        ODD_CONFIG.public_hex: ["minority", "second-signer"],
        ODD_RECEIPT.public_hex: ["minority", "second-signer"],
    }
    # flagged entries are written apart: after every unflagged one
    assert [("flags" in e) for e in document["keys"]] == [False, False, True, True]
    assert any(note.startswith("FLAGGED") for note in document["notes"])

    # The one edit that used to confirm everything: the odd receipt must not verify under it.
    blind = template.read_text(encoding="utf-8").replace('"confirmed": false', '"confirmed": true')
    template.write_text(blind, encoding="utf-8")
    odd = str(one_odd / "odd.receipt.json")
    refused = CliRunner().invoke(cli, ["verify", odd, "--trust", str(template)])
    assert refused.exit_code == 2, refused.output
    message = " ".join(refused.output.split())
    assert "2 entries not confirmed" in message
    for key, role in ((ODD_CONFIG, "config"), (ODD_RECEIPT, "receipt")):
        assert f"{role} {key.public_hex[:8]} (flagged minority, second-signer" in message

    # One decision per key: the operator confirms the usual keys and drops the odd ones;
    # the odd receipt then fails its pins.
    decided = json.loads(blind)
    decided["keys"] = [e for e in decided["keys"] if "flags" not in e]
    template.write_text(json.dumps(decided), encoding="utf-8")
    assert CliRunner().invoke(cli, ["verify", odd, "--trust", str(template)]).exit_code == 1
    usual = str(one_odd / "usual-0.receipt.json")
    assert CliRunner().invoke(cli, ["verify", usual, "--trust", str(template)]).exit_code == 0


def test_a_flagged_entry_is_confirmed_by_its_own_digits_only() -> None:
    key = ODD_CONFIG.public_hex

    def load(entry: dict[str, object]) -> object:
        entry = {"public_key": key, "roles": ["config"], **entry}
        return load_trust_file(json.dumps({"sealverify_trust": 1, "keys": [entry]}).encode())

    assert load({"flags": ["minority"], "confirmed": key[:8]}).keys[0].public_key == key
    assert load({"flags": ["minority"], "confirmed": key[:8].upper()}).keys[0].public_key == key
    assert load({"confirmed": True}).keys[0].public_key == key  # unflagged: true, as before
    for entry, match in (
        ({"flags": ["minority"], "confirmed": True}, "true is not enough"),
        ({"flags": ["minority"]}, "keys/0 config " + key[:8]),  # confirmed deleted
        ({"flags": ["minority"], "confirmed": FRESH_CONFIG.public_hex[:8]}, "not the first 8"),
        ({"confirmed": "yes"}, "not the first 8"),
        ({"flags": "minority", "confirmed": key[:8]}, "flags: expected an array"),
    ):
        with pytest.raises(ValueError, match=match):
            load(entry)


def test_the_refusal_lists_every_unconfirmed_entry_at_once(evidence: Path) -> None:
    found = _inventory(evidence)
    document = json.loads(trust_template(found))
    with pytest.raises(ValueError) as refusal:
        load_trust_file(json.dumps(document).encode())
    message = str(refusal.value)
    entries = len(document["keys"]) + len(document["kernels"])
    assert f"{entries} entries not confirmed" in message
    for index, entry in enumerate(document["keys"]):
        assert f"keys/{index} {'/'.join(entry['roles'])} {entry['public_key'][:8]}" in message
    assert f"kernels/0 kernel {document['kernels'][0]['sha256'][:8]}" in message


def test_a_key_named_only_on_failing_receipts_is_flagged(one_odd: Path) -> None:
    # The odd receipt key re-signs a receipt whose request binding was altered: its signature
    # verifies, the binding does not, so every receipt naming that key fails another check.
    forged = mint.parse_record((one_odd / "odd.receipt.json").read_bytes())
    forged["request_sha256"] = "0" * 64
    (one_odd / "odd.receipt.json").write_bytes(
        mint.render_pretty(mint.resign_v3(forged, ODD_RECEIPT))
    )
    keys = {k.value: k for k in _inventory(one_odd).keys}
    assert "only-failing" in keys[ODD_RECEIPT.public_hex].flags
    assert "only-failing" in keys[ODD_CONFIG.public_hex].flags
    assert "only-failing" not in keys[FRESH_RECEIPT.public_hex].flags
    builds = _inventory(one_odd).builds
    assert builds and all("only-failing" not in b.flags for b in builds)
