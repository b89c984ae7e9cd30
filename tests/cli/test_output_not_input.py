"""A report never replaces evidence: ``--output`` naming one of the run's inputs is refused.

``verify R.json --output R.json`` used to write the report over the receipt and exit 0. Every
command that takes ``--output`` refuses, before any work, an output that is one of its inputs
(the same file, also through a symbolic or hard link), a file inside an input directory, or
a file an input pattern matches: exit 2, one line, no usage banner, the evidence untouched.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import click
import pytest

from sealverify._internal.cli import main as cli_main
from tests.conftest import ROOT, run_main

RECEIPT = ROOT / "fixtures" / "demo" / "receipts" / "verified-allow.receipt.json"
TRUST = ROOT / "fixtures" / "demo" / "trust.json"


def _evidence(tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "evidence.json", tmp_path / "other.json"
    shutil.copyfile(RECEIPT, first)
    shutil.copyfile(RECEIPT, second)
    return first, second


# Each command that takes --output, with the evidence file E (and a second input O) in the
# place of one of its inputs.
COMMANDS: dict[str, list[str]] = {
    "verify": ["verify", "E"],
    "inventory": ["inventory", "E"],
    "lint": ["lint", "E"],
    "chain": ["chain", "E"],
    "frame": ["frame", "E"],
    "diff": ["diff", "O", "E"],
    "approval": ["approval", "O", "--frame", "E", "--approval-pubkey", "00" * 32],
    "decide": ["decide", "--config", "E", "O"],
    "partition emit": ["partition", "emit", "E"],
    "partition verify": ["partition", "verify", "O", "--frame", "E", "--pubkey", "00" * 32],
    "skill verify": ["skill", "verify", "--listing", "O", "O", "E"],
    "tools digest": ["tools", "digest", "E"],
    "tools compare": ["tools", "compare", "O", "E"],
    "attestation verify": ["attestation", "verify", "E", "--pubkey", "00" * 32],
}


def _commands_with_output() -> set[str]:
    found: set[str] = set()
    ctx = click.Context(cli_main.cli)

    def walk(command: click.Command, name: str) -> None:
        if isinstance(command, click.Group):
            for sub in command.list_commands(ctx):
                child = command.get_command(ctx, sub)
                assert child is not None
                walk(child, f"{name} {sub}".strip())
        elif any(p.name == "output" for p in command.params):
            found.add(name)

    walk(cli_main.cli, "")
    return found


def test_every_command_with_output_is_tried() -> None:
    assert _commands_with_output() == set(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_output_over_an_input_is_refused_by_every_command(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    evidence, other = _evidence(tmp_path)
    before = evidence.read_bytes()
    args = [{"E": str(evidence), "O": str(other)}.get(a, a) for a in COMMANDS[name]]
    code, err = run_main(
        [*args, "--format", "json", "--output", str(evidence)], monkeypatch, capsys
    )
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith(f"sealverify: --output {evidence}: ")
    assert "a report never replaces evidence" in err and "Usage:" not in err
    assert evidence.read_bytes() == before
    assert not (tmp_path / "evidence.json.partial").exists()


def _refused(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    code, err = run_main(args, monkeypatch, capsys)
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "a report never replaces evidence" in err
    return err


def test_links_directories_patterns_and_side_inputs_are_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    evidence, _ = _evidence(tmp_path)
    before = evidence.read_bytes()
    verify = ["verify", "--trust", str(TRUST), "--format", "json", "--output"]
    link = tmp_path / "link.json"
    link.symlink_to(evidence)
    assert "the same file as input" in _refused(
        [*verify, str(link), str(evidence)], monkeypatch, capsys
    )
    assert "the same file as input" in _refused(
        [*verify, str(evidence), str(link)], monkeypatch, capsys
    )
    if hasattr(os, "link"):
        hard = tmp_path / "hard.json"
        os.link(evidence, hard)
        assert "the same file as" in _refused(
            [*verify, str(hard), str(evidence)], monkeypatch, capsys
        )
    inside = _refused([*verify, str(tmp_path / "report.json"), str(tmp_path)], monkeypatch, capsys)
    assert "inside the input directory" in inside
    pattern = str(tmp_path / "*.json")
    assert "matched by the pattern" in _refused(
        [*verify, str(tmp_path / "new.json"), pattern], monkeypatch, capsys
    )
    trust = tmp_path / "trust.json"
    shutil.copyfile(TRUST, trust)
    args = ["verify", str(RECEIPT), "--trust", str(trust), "--output", str(trust)]
    assert "--trust" in _refused(args, monkeypatch, capsys)
    state = tmp_path / "state.db"
    state.write_bytes(b"")
    args = [
        "verify",
        str(RECEIPT),
        "--trust",
        str(TRUST),
        "--state",
        str(state),
        "--output",
        str(state),
    ]
    assert "--state" in _refused(args, monkeypatch, capsys)
    assert evidence.read_bytes() == before and trust.read_bytes() == TRUST.read_bytes()


def test_an_output_beside_the_inputs_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "in").mkdir()
    evidence, _ = _evidence(tmp_path / "in")
    report = tmp_path / "report.json"
    args = ["verify", str(tmp_path / "in" / "*.json"), "--trust", str(TRUST), "--format", "json"]
    code, err = run_main([*args, "--output", str(report)], monkeypatch, capsys)
    assert code == 3, err
    assert report.read_bytes().startswith(b"{")
    code, err = run_main(
        ["verify", str(evidence), "--trust", str(TRUST), "--output", str(report)],
        monkeypatch,
        capsys,
    )
    assert code == 3, err


KEY = ROOT / "fixtures" / "attest" / "key.pem"


@pytest.mark.parametrize("name", ["verify", "chain", "approval"])
def test_an_attestation_over_an_input_is_refused(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    evidence, other = _evidence(tmp_path)
    before = evidence.read_bytes()
    args = [{"E": str(evidence), "O": str(other)}.get(a, a) for a in COMMANDS[name]]
    signing = ["--attest-key", str(KEY), "--attestation", str(evidence)]
    err = _refused([*args, *signing], monkeypatch, capsys)
    assert err.startswith(f"sealverify: --attestation {evidence}: ")
    assert evidence.read_bytes() == before
