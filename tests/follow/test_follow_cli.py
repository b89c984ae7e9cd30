"""``verify --follow``'s options: what it needs, and what only a batch run takes (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli

KEY = str(Path(__file__).resolve().parents[2] / "fixtures" / "attest" / "key.pem")


def _verify(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["verify", *args])
    return done.exit_code, done.output


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ((), "--follow needs --state"),
        (("--state", "s.db", "--format", "sarif"), "--format is for a batch run"),
        (("--state", "s.db", "--output", "out.json"), "--output is for a batch run"),
        (("--state", "s.db", "--jobs", "2"), "--jobs is for a batch run"),
        (("--state", "s.db", "--cluster", "local"), "--cluster is for a batch run"),
        (("--state", "s.db", "--chain", "nowhere/stderr.log"), "--chain nowhere/stderr.log"),
        (
            ("--state", "s.db", "--attest-key", KEY, "--attestation", "a.jsonl"),
            "--attest-key is for a batch run",
        ),
    ],
)
def test_follow_refuses_what_it_cannot_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: tuple[str, ...], said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    code, output = _verify("--follow", "r.jsonl", *extra)
    assert code == 2 and said in output
    assert not (tmp_path / "s.db").exists()  # refused before the store is opened


def test_follow_options_without_follow_are_refused(tmp_path: Path) -> None:
    for extra in (("--chain", "x.log"), ("--on-fail", "true"), ("--exit-on-fail",)):
        code, output = _verify(str(tmp_path), *extra)
        assert code == 2 and "need --follow" in output
