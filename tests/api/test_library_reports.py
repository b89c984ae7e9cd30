"""Every command is a library call: the CLI's JSON is the library's report, byte for byte.

Each case runs one command on a sample of the project's own fixtures (``fixtures/``, minted
by ``sealverify_testkit``) through the CLI with ``--format json``, and renders the report the
documented library function returns for the same inputs: the two must be equal byte for byte,
exit code included. A check, a cap or an outcome the CLI added (or dropped) on its own would
make them differ; ``test_a_cli_that_adds_a_check_is_caught`` shows that it does.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import sealverify
from tests.helpers.fleet_services import S3, s3_server
from tests.helpers.library_reports import (
    CASES,
    FIXTURES,
    PREPARE,
    ROOT,
    Case,
    run_report,
)

__all__ = ["s3_server"]  # the fixture, imported for its test


# verify ---------------------------------------------------------------------------------


# frame, diff, partition -----------------------------------------------------------------


# chain ----------------------------------------------------------------------------------


# approval -------------------------------------------------------------------------------


# lint, tools, skill ---------------------------------------------------------------------


# decide and inventory write their own JSON (no Report): the library's, serialised the same way


# attestation verify ----------------------------------------------------------------------


# The commands whose output is no library report: `explain` prints the catalogue's text, and
# `inventory` lists what receipts carry (sealverify.InventoryBuilder), verifying nothing.
NOT_REPORTS = {"explain", "inventory"}


def _run(case: Case, tmp: Path) -> tuple[bytes, int]:
    from sealverify._internal.cli.main import cli

    if case.id in PREPARE:
        PREPARE[case.id](tmp)
    args = [a.replace("{tmp}", str(tmp)) for a in case.args]
    result = CliRunner().invoke(cli, [*args, "--format", "json"], catch_exceptions=False)
    return result.stdout_bytes, result.exit_code


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_cli_writes_the_library_report(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the cases name fixtures relative to the repository root
    cli_dir, lib_dir = tmp_path / "cli", tmp_path / "lib"
    cli_dir.mkdir()
    lib_dir.mkdir()
    stdout, code = _run(case, cli_dir)
    text, expected = case.library(lib_dir)
    assert (stdout, code) == (text.encode("utf-8"), expected)


def test_every_command_has_a_case() -> None:
    from sealverify._internal.cli.main import command_modules

    covered = {c.args[0] for c in CASES}
    assert covered | NOT_REPORTS == set(command_modules())
    grouped = ("partition", "tools", "skill", "attestation")
    subcommands = {c.args[:2] for c in CASES if c.args[0] in grouped}
    assert subcommands == {
        ("attestation", "verify"),
        ("partition", "emit"),
        ("partition", "verify"),
        ("tools", "digest"),
        ("tools", "compare"),
        ("skill", "verify"),
    }
    outcomes = {case.library(Path("/nonexistent"))[1] for case in CASES if "state" not in case.id}
    assert outcomes >= {0, 1, 3}  # the samples reach every outcome a report can give


def test_a_cli_that_adds_a_check_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A CLI that judged one more thing than the library would write another report: the
    # comparison above sees it. Here `lint` is made to add a passing check of its own.
    import sealverify._internal.cli.lint_cmd as lint_cmd

    real = sealverify.lint_subject

    def extra(*args: object, **kwargs: object) -> sealverify.Subject:
        subject = real(*args, **kwargs)  # type: ignore[arg-type]
        check = sealverify.Check("lint.cli-only", "pass", "judged by the CLI alone")
        return replace(subject, checks=(*subject.checks, check))

    monkeypatch.chdir(ROOT)
    case = next(c for c in CASES if c.id == "lint-good.md")
    before = _run(case, tmp_path)
    monkeypatch.setattr(lint_cmd, "lint_subject", extra)
    after = _run(case, tmp_path)
    library = case.library(tmp_path)
    assert before == (library[0].encode("utf-8"), library[1])
    assert after != before


def test_no_command_module_builds_a_report_or_a_subject() -> None:
    # The outcome of each subject and the run's exit code are the library's: a command module
    # (sealverify/_internal/cli/*_cmd.py) that made a Report or a Subject itself would be deciding
    # them.
    import ast

    made = []
    for path in sorted((ROOT / "sealverify" / "_internal" / "cli").glob("*_cmd.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if name in ("Report", "Subject", "Check"):
                    made.append(f"{path.name} {name}")
            elif (
                isinstance(node, ast.ImportFrom)
                and node.module == "sealverify._internal.results.model"
            ):
                made += [f"{path.name} imports {a.name}" for a in node.names]
    # verify's run over many paths (workers, a cluster) is the library's (verify_sources);
    # cli/verify_report.py spools its results and relocates the --state checks it adds.
    assert made == []


def test_a_bucket_is_the_library_run_too(s3_server: S3, tmp_path: Path) -> None:
    # The same run over object storage (s3://, a real S3 server when the s3 extra is there).
    from sealverify._internal.cli.main import cli

    s3_server.client().create_bucket(Bucket="library")
    shutil.copytree(FIXTURES / "demo" / "receipts", tmp_path / "receipts")
    s3_server.upload("library", tmp_path, "run")
    url = "s3://library/run/receipts"
    flags = s3_server.options()  # --storage-option KEY=VALUE, three times
    stored = dict(pair.split("=", 1) for pair in flags[1::2])
    args = ["verify", url, "--trust", "fixtures/demo/trust.json", "--format", "json", *flags]
    done = CliRunner().invoke(cli, args, catch_exceptions=False)
    library = run_report((url,), False, storage_options=stored)
    assert (done.stdout_bytes, done.exit_code) == (library[0].encode("utf-8"), library[1])
    assert done.exit_code == 1 and f"{url}/verified-allow.receipt.json" in done.stdout
