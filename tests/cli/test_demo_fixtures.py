import base64
import hashlib
import json
from pathlib import Path

import pytest
from sealverify_testkit import mint
from sealverify_testkit.mintfixtures import demo_receipts

from sealverify._internal.primitives.trust import load_trust_file
from sealverify._internal.wire import strictjson
from sealverify._internal.wire.framing import raw_line
from tests.helpers.demo_fixtures import DEMO_ALLOWED_OUTCOMES
from tests.helpers.mint import config_ok, object_b_ok, parsed_record

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"


def _load(name: str) -> bytes:
    return (DEMO / "receipts" / name).read_bytes()


def test_committed_demo_matches_generator() -> None:
    generated = demo_receipts()
    on_disk = {path.name: path.read_bytes() for path in (DEMO / "receipts").iterdir()}
    assert on_disk == generated


def test_trust_file_pins_the_demo_keys() -> None:
    store = load_trust_file((DEMO / "trust.json").read_bytes())
    assert store.decide("config", mint.CONFIG_KEY.public_hex, None) == "trusted"
    assert store.decide("receipt", mint.RECEIPT_KEY.public_hex, None) == "trusted"
    assert store.decide("approval", mint.RECEIPT_KEY.public_hex, None) == "unpinned"


@pytest.mark.parametrize(
    "name",
    [
        "verified-block.receipt.json",
        "verified-allow.receipt.json",
        "reduced-unparseable.receipt.json",
    ],
)
def test_pinned_v3_receipts_verify_under_the_pinned_keys(name: str) -> None:
    data = _load(name)
    record = json.loads(data)
    assert object_b_ok(data) and config_ok(parsed_record(data))
    assert record["signature"]["public_key"] == mint.RECEIPT_KEY.public_hex
    assert record["signed_config"]["pubkey"] == mint.CONFIG_KEY.public_hex
    object_a = base64.b64decode(record["signed_artifacts"]["object_a"])
    assert record["request_sha256"] == hashlib.sha256(raw_line(object_a)).hexdigest()


def test_fleet_receipt_config_pinned() -> None:
    data = _load("verified-fleet-v2.receipt.json")
    assert json.loads(data)["signed_config"]["pubkey"] == mint.CONFIG_KEY.public_hex
    assert config_ok(parsed_record(data))


def test_other_signer_receipt_is_valid_under_other_keys() -> None:
    data = _load("other-signer.receipt.json")
    record = json.loads(data)
    assert object_b_ok(data) and config_ok(parsed_record(data))
    trusted = {mint.CONFIG_KEY.public_hex, mint.RECEIPT_KEY.public_hex}
    assert record["signature"]["public_key"] not in trusted
    assert record["signed_config"]["pubkey"] not in trusted


def test_forged_binding_has_a_valid_signature_and_a_broken_binding() -> None:
    data = _load("fail-forged-binding.receipt.json")
    record = json.loads(data)
    assert object_b_ok(data)
    object_a = base64.b64decode(record["signed_artifacts"]["object_a"])
    assert record["request_sha256"] != hashlib.sha256(raw_line(object_a)).hexdigest()
    audit = json.loads(json.loads(record["emitted_bytes"])["audit"])
    assert audit["request_sha256"] != record["request_sha256"]


def test_edited_arguments_break_signature_and_args_hash() -> None:
    data = _load("fail-edited-arguments.receipt.json")
    record = json.loads(data)
    assert not object_b_ok(data)
    compact = json.dumps(record["arguments"], separators=(",", ":"))
    assert record["args_hash"] != hashlib.sha256(compact.encode()).hexdigest()


def test_bypass() -> None:
    assert json.loads(_load("fail-bypass.receipt.json"))["bypass"] is True


def test_jsonl_has_one_broken_line() -> None:
    lines = _load("receipts.jsonl").split(b"\n")
    assert lines[-1] == b""
    outcomes = []
    for line in lines[:-1]:
        try:
            strictjson.parse_bytes(line)
            outcomes.append("ok")
        except strictjson.JsonError:
            outcomes.append("broken")
    assert outcomes == ["ok", "ok", "broken", "ok", "ok"]
    assert all(object_b_ok(line) for i, line in enumerate(lines[:-1]) if i in (0, 1, 4))


def _run_readme_command(command: str) -> tuple[int, dict]:
    """Run one ``sealverify`` command as a README writes it, with ``--format json`` added."""
    import shlex

    from click.testing import CliRunner

    from sealverify._internal.cli.main import cli

    argv = shlex.split(command.replace("\\\n", " "))
    assert Path(argv[0]).name == "sealverify"  # as installed in the README's .venv too
    result = CliRunner().invoke(cli, [*argv[1:], "--format", "json"], catch_exceptions=False)
    return result.exit_code, json.loads(result.stdout)


def _published(subject: dict) -> list[tuple[str, str, str]]:
    return [
        (c["status"], c["data"]["role"], c["data"]["sources"][0])
        for c in subject["checks"]
        if c["id"] == "authority.published-key"
    ]


def test_readme_main_command_shows_the_capped_state() -> None:
    """The README's first set-up command, run as written, gives the outcomes it promises.

    The demo trust file pins the testkit keys, whose secrets are public: nothing is VERIFIED,
    every receipt signed under them is UNPINNED naming the key and its source.
    """
    import re

    readme = (DEMO.parent.parent / "README.md").read_text(encoding="utf-8")
    command = re.findall(r"```sh\n(.*?)\n```", readme, re.DOTALL)[0].split("&&")[-1]
    code, report = _run_readme_command(command.strip())
    assert code == 1  # the demo set includes FAIL receipts on purpose
    assert report["summary"]["allow_published_keys"] is False
    outcomes = {Path(s["name"]).name: s["outcome"] for s in report["subjects"]}
    assert set(outcomes.values()) == {"UNPINNED", "FAIL"}
    capped = [s for s in report["subjects"] if s["outcome"] == "UNPINNED"]
    assert sorted(Path(s["name"]).name for s in capped) == [
        "receipts.jsonl:1",
        "receipts.jsonl:2",
        "receipts.jsonl:4",
        "receipts.jsonl:5",
        "reduced-unknown-build.receipt.json",
        "reduced-unparseable.receipt.json",
        "verified-allow.receipt.json",
        "verified-block.receipt.json",
        "verified-fleet-v2.receipt.json",
    ]
    config = ("not-evaluated", "config", "sealverify testkit CONFIG_KEY")
    receipt = ("not-evaluated", "receipt", "sealverify testkit RECEIPT_KEY")
    for subject in capped:
        expected = [config] if subject["facts"]["family"] == "v2" else [config, receipt]
        assert sorted(_published(subject)) == sorted(expected), subject["name"]
        assert not [c for c in subject["checks"] if c["status"] == "fail"]


def test_demo_readme_commands_give_what_it_says() -> None:
    """fixtures/demo/README.md: the capped main command, then the one with published keys."""
    import re

    readme = (DEMO / "README.md").read_text(encoding="utf-8")
    main, allowed, unpinned = re.findall(r"```sh\n(.*?)\n```", readme, re.DOTALL)
    assert "--allow-published-keys" not in main and "--allow-published-keys" in allowed
    code, report = _run_readme_command(main)
    assert code == 1
    assert {s["outcome"] for s in report["subjects"]} == {"UNPINNED", "FAIL"}
    code, report = _run_readme_command(allowed)
    assert code == 1
    assert report["summary"]["allow_published_keys"] is True
    outcomes = {Path(s["name"]).name: s["outcome"] for s in report["subjects"]}
    assert outcomes == DEMO_ALLOWED_OUTCOMES
    for subject in report["subjects"]:
        if subject["outcome"] in ("VERIFIED", "REDUCED"):
            statuses = {status for status, _, _ in _published(subject)}
            assert statuses == {"info"}, subject["name"]  # still named, with its source
    code, report = _run_readme_command(unpinned)
    assert (code, [s["outcome"] for s in report["subjects"]]) == (3, ["UNPINNED"])


def test_the_demo_re_derives_every_verified_decision_and_names_the_one_it_cannot() -> None:
    """VERIFIED needs replay.decision pass; the unknown-build receipt is REDUCED, named."""
    code, report = _run_readme_command(
        "sealverify verify fixtures/demo/receipts --trust fixtures/demo/trust.json "
        "--allow-published-keys"
    )
    assert code == 1
    replays = {
        Path(s["name"]).name: next(c for c in s["checks"] if c["id"] == "replay.decision")
        for s in report["subjects"]
    }
    for subject in report["subjects"]:
        if subject["outcome"] == "VERIFIED":
            assert replays[Path(subject["name"]).name]["status"] == "pass", subject["name"]
    unknown = replays["reduced-unknown-build.receipt.json"]
    assert unknown["status"] == "not-evaluated"
    assert "has no profile in this model" in unknown["reason"]
    subject = next(
        s for s in report["subjects"] if s["name"].endswith("unknown-build.receipt.json")
    )
    assert not [c for c in subject["checks"] if c["status"] == "fail"]
    reduced = {c["id"] for c in subject["checks"] if c["status"] == "not-evaluated"}
    assert reduced == {"replay.decision", "decision.authenticated"}


def test_the_demo_names_the_current_kernel_profile() -> None:
    from sealverify_testkit.mintfixtures import CURRENT_KERNEL_SHA256

    from sealverify import DEFAULT_KERNEL_SHA256, KERNEL_PROFILES

    assert CURRENT_KERNEL_SHA256 == DEFAULT_KERNEL_SHA256
    assert CURRENT_KERNEL_SHA256 in KERNEL_PROFILES


def test_every_committed_fixture_is_what_the_generators_mint(tmp_path: Path) -> None:
    from sealverify_testkit.mintfixtures import main as mint_all

    assert mint_all([str(tmp_path)]) == 0
    minted = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    fixtures = ROOT / "fixtures"
    committed = {
        p.relative_to(fixtures): p.read_bytes() for p in fixtures.rglob("*") if p.is_file()
    }
    assert minted.keys() == committed.keys()
    changed = [str(name) for name in minted if minted[name] != committed[name]]
    assert not changed
    for folder in ("chain", "approval", "partition", "tools", "skills", "decide", "lint"):
        assert (fixtures / folder).is_dir(), folder
