"""What surprised a new user: metavars, hex pin case, parse messages, stray output, JUnit."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from sealverify_testkit import mint

from sealverify._internal.cli.main import cli
from sealverify._internal.reports.formats import junit
from sealverify._internal.results.model import Report, Subject, passed
from sealverify._internal.wire.strictjson import JsonError, parse_bytes

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
OTHER = DEMO / "receipts" / "other-signer.receipt.json"
DEMO_KERNEL = mint.HostContext().wasm_sha256


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _commands(group: click.Group, path: tuple[str, ...] = ()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name), command


ALL = list(_commands(cli))


@pytest.mark.parametrize("path,command", ALL, ids=[" ".join(p) for p, _ in ALL])
def test_no_option_shows_a_bare_click_type_as_metavar(path, command) -> None:
    ctx = click.Context(command, info_name=" ".join(path))
    for param in command.params:
        record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
        if record is None:
            continue
        words = record[0].replace(",", " ").split()
        for bad in ("TEXT", "INTEGER", "FLOAT", "FILENAME", "PATH", "RANGE"):
            assert bad not in words, f"{' '.join(path)}: {record[0]}"
    text = _run(*path, "--help").output
    assert " TEXT" not in text


def test_help_walk_covers_every_command() -> None:
    names = {" ".join(p) for p, _ in ALL}
    assert {"verify", "frame", "chain", "tools digest", "partition verify", "skill verify"} <= names


def test_uppercase_hex_pins_are_accepted_as_lowercase() -> None:
    lower = _run("verify", str(OTHER), "--kernel-sha256", DEMO_KERNEL, "--format", "json")
    upper = _run("verify", str(OTHER), "--kernel-sha256", DEMO_KERNEL.upper(), "--format", "json")
    assert lower.exit_code == upper.exit_code == 3
    assert upper.stdout == lower.stdout
    pin = mint.OTHER_CONFIG_KEY.public_hex.upper()
    pinned = _run("verify", str(OTHER), "--kernel-sha256", DEMO_KERNEL, "--config-pubkey", pin)
    assert pinned.exit_code != 2, pinned.output


def test_a_non_hex_pin_still_exits_2() -> None:
    result = _run("verify", str(OTHER), "--kernel-sha256", "Z" * 64)
    assert result.exit_code == 2
    assert "64 hex digits" in result.output


def test_uppercase_key_in_a_library_call_says_to_lowercase_it() -> None:
    from sealverify._internal.primitives.signatures import hex_key

    with pytest.raises(ValueError, match="write it in lowercase"):
        hex_key("AB" * 32)


def test_control_character_message_says_at_once() -> None:
    with pytest.raises(JsonError) as caught:
        parse_bytes(b'{"a":"\x01"}')
    assert " at at " not in str(caught.value)
    assert str(caught.value).endswith("Invalid control character at byte 6")


def test_detail_table_prints_no_stray_braces(tmp_path: Path) -> None:
    from sealverify._internal.reports.formats import table

    subject = Subject("a.json", "VERIFIED", (passed("x", "ok"),))
    report = Report("partition verify", (subject,), {}, 0, layout="detail")
    text = table.render(report)
    assert "{}" not in text
    assert text.startswith("== a.json: VERIFIED\n")


def test_junit_counts_intact_and_valid_as_passes() -> None:
    for outcome in ("INTACT", "VALID", "DECLINE", "VERIFIED"):
        case = junit.subject_case("chain", Subject("s", outcome, (passed("x", "ok"),)))
        assert not junit.case_failed(case), outcome
    for outcome in ("BROKEN", "INVALID", "UNPINNED", "UNANCHORED"):
        case = junit.subject_case("chain", Subject("s", outcome, (passed("x", "ok"),)))
        assert junit.case_failed(case), outcome


def test_diff_table_shows_json_not_python_reprs() -> None:
    frames = ROOT / "fixtures" / "frames"
    result = _run("diff", str(frames / "call.bin"), str(frames / "refused-meta-null.bin"))
    assert result.exit_code == 1
    for repr_word in ("True", "False", "None", "{'", "['"):
        assert repr_word not in result.stdout, repr_word
    assert "false" in result.stdout


def test_demo_readme_unpinned_command_runs_as_written() -> None:
    readme = (DEMO / "README.md").read_text(encoding="utf-8")
    block = readme.split("UNPINNED: with no pins at all")[1].split("```sh\n")[1].split("```")[0]
    args = block.replace("\\\n", " ").split()
    assert args[:2] == ["sealverify", "verify"]
    result = _in_root(args[1:])  # paths relative to the repository root, as the README says
    assert result.exit_code == 3, result.output
    report = json.loads(_in_root([*args[1:], "--format", "json"]).stdout)
    assert [s["outcome"] for s in report["subjects"]] == ["UNPINNED"]


def _in_root(args: list[str]):
    import os

    here = os.getcwd()
    os.chdir(ROOT)
    try:
        return CliRunner().invoke(cli, args, catch_exceptions=False)
    finally:
        os.chdir(here)


WITH_OUTPUT = [
    (path, command)
    for path, command in ALL
    if any(isinstance(p, click.Option) and "--output" in p.opts for p in command.params)
]


@pytest.mark.parametrize("path,command", WITH_OUTPUT, ids=[" ".join(p) for p, _ in WITH_OUTPUT])
def test_output_into_a_missing_directory_exits_2_before_any_work(
    path, command, tmp_path: Path
) -> None:
    target = tmp_path / "no-such-dir" / "report.out"
    result = _run(*path, "--output", str(target), str(ROOT / "fixtures" / "frames" / "call.bin"))
    assert result.exit_code == 2, result.output
    assert "does not exist" in result.output
    assert "--output" in result.output
    assert not target.parent.exists()


def test_every_command_with_a_report_has_output() -> None:
    assert {"verify", "frame", "chain", "approval", "lint"} <= {" ".join(p) for p, _ in WITH_OUTPUT}


def test_output_under_a_file_is_refused_at_once(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = _run("verify", str(DEMO / "receipts"), "--output", str(blocker / "r.json"))
    assert result.exit_code == 2
    assert "is not a directory" in result.output


def test_junit_from_the_cli_has_no_failure_for_an_intact_chain_or_a_valid_approval() -> None:
    anchors = json.loads((ROOT / "fixtures" / "chain" / "anchors.json").read_text())
    chain = _in_root(
        [
            "chain",
            "fixtures/chain/host.stderr",
            "--expect-head",
            anchors["expect_head"],
            "--expect-count",
            str(anchors["expect_count"]),
            "--format",
            "junit",
        ]
    )
    assert chain.exit_code == 0
    assert 'failures="0"' in chain.stdout and "<failure" not in chain.stdout
    approver = json.loads((ROOT / "fixtures" / "approval" / "approver.json").read_text())
    approval = _in_root(
        [
            "approval",
            "fixtures/approval/tokens.ndjson",
            "--frame",
            "fixtures/approval/frame.bin",
            "--server",
            approver["server"],
            "--approval-pubkey",
            approver["approver_pubkey"],
            "--at",
            str(approver["judged_at_ms"]),
            "--allow-published-keys",
            "--format",
            "junit",
        ]
    )
    assert approval.exit_code == 0
    assert 'failures="0"' in approval.stdout and "<failure" not in approval.stdout
    broken = _in_root(
        ["chain", "fixtures/chain/truncated.stderr", "--expect-count", "3", "--format", "junit"]
    )
    assert broken.exit_code == 1 and 'failures="1"' in broken.stdout
