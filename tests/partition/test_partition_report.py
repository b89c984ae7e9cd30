"""``partition verify`` is a library call: the CLI writes ``sealverify.attestation_report``'s
report byte for byte, and the published-key cap holds in the library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import sealverify
from sealverify._internal.cli.main import cli
from sealverify.formats import render

FOLDER = Path(__file__).resolve().parents[2] / "fixtures" / "partition"
ATTESTATION = (FOLDER / "attestation.json").read_bytes()
FRAME = (FOLDER / "frame.bin").read_bytes()
SIGNER = json.loads((FOLDER / "signer.json").read_bytes())["pubkey"]


@pytest.mark.parametrize("fmt", ["json", "jsonl", "sarif", "junit", "table"])
@pytest.mark.parametrize("allow", [False, True])
@pytest.mark.parametrize("edited", [False, True])
def test_the_cli_writes_the_library_report_byte_for_byte(
    tmp_path: Path, fmt: str, allow: bool, edited: bool
) -> None:
    attestation = ATTESTATION
    if edited:  # a committed member changed after signing: the record no longer recomputes
        attestation = attestation.replace(b"b7ad6b7169203331", b"b7ad6b7169203332")
        assert attestation != ATTESTATION
    path = tmp_path / "attestation.json"
    path.write_bytes(attestation)
    args = ["partition", "verify", str(path), "--frame", str(FOLDER / "frame.bin")]
    args += ["--pubkey", SIGNER, "--format", fmt]
    if allow:
        args.append("--allow-published-keys")
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    report = sealverify.attestation_report(
        attestation,
        FRAME,
        [bytes.fromhex(SIGNER)],
        name="attestation.json",
        allow_published_keys=allow,
    )
    assert result.exit_code == report.exit_code == (1 if edited else 0 if allow else 3)
    assert result.stdout_bytes == render(report, fmt).encode("utf-8")


def test_the_library_caps_a_published_signer_at_unpinned() -> None:
    report = sealverify.attestation_report(ATTESTATION, FRAME, [bytes.fromhex(SIGNER)])
    assert (report.subjects[0].outcome, report.exit_code) == ("UNPINNED", 3)
    published = [c for c in report.subjects[0].checks if c.id == "authority.published-key"]
    assert [(c.status, c.location) for c in published] == [
        ("not-evaluated", "/signature/public_key")
    ]


@pytest.mark.parametrize("attestation", [b"not json", b"null", b"[]"])
def test_an_attestation_that_is_no_object_fails(attestation: bytes) -> None:
    report = sealverify.attestation_report(attestation, FRAME, [bytes.fromhex(SIGNER)])
    assert (report.subjects[0].outcome, report.exit_code) == ("FAILED", 1)
    assert [c.id for c in report.subjects[0].checks] == ["partition.attestation.json"]
