"""The command group: every command found lazily, named after its module, with exit codes."""

from __future__ import annotations

import importlib
import subprocess
import sys

from click.testing import CliRunner

from sealverify._internal.cli.main import cli, command_modules


def test_each_command_module_holds_the_command_it_is_named_after() -> None:
    names = command_modules()
    assert {"verify", "frame", "diff", "chain", "approval", "partition", "lint", "tools"} <= set(
        names
    )
    for name in names:
        module = importlib.import_module(f"sealverify._internal.cli.{name}_cmd")
        assert [command.name for command in module.COMMANDS] == [name]


def test_group_help_lists_every_command() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    listed = [line.split()[0] for line in result.output.split("Commands:")[1].splitlines() if line]
    assert listed == list(command_modules())


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["verfy"])
    assert result.exit_code == 2 and "No such command" in result.output


def test_running_verify_does_not_import_the_other_commands() -> None:
    code = (
        "import sys\n"
        "from sealverify._internal.cli.main import cli\n"
        "try:\n"
        "    cli.main(['verify', '--help'], standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        "others = [m for m in ('diff', 'tools', 'skill', 'chain', 'partition')\n"
        "          if f'sealverify._internal.cli.{m}_cmd' in sys.modules]\n"
        "assert others == [], others\n"
        "assert 'sealverify._internal.cli.verify_cmd' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def test_a_mistyped_command_names_the_close_ones() -> None:
    run = CliRunner().invoke(cli, ["verfy", "x"])
    assert run.exit_code == 2 and "No such command 'verfy'. Did you mean 'verify'?" in run.output
    run = CliRunner().invoke(cli, ["zzzz"])
    assert run.exit_code == 2 and "Did you mean" not in run.output


def test_a_usage_error_is_one_line_naming_the_command_and_its_help() -> None:
    cases = {
        ("verfy", "x"): "sealverify: No such command 'verfy'. Did you mean 'verify'? "
        "(sealverify --help)",
        ("verify",): "sealverify verify: Missing argument 'PATH...'. (sealverify verify --help)",
        ("--bogus",): "sealverify: No such option '--bogus'. (sealverify --help)",
        ("chain", "--nope", "x"): "sealverify chain: No such option '--nope'. "
        "(sealverify chain --help)",
    }
    for args, line in cases.items():
        run = CliRunner().invoke(cli, list(args), prog_name="sealverify")
        assert run.exit_code == 2 and run.stderr == line + "\n", run.stderr
    done = subprocess.run(
        [sys.executable, "-m", "sealverify._internal.cli.main", "verify", "--format", "xml", "x"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("sealverify verify: Invalid value for '--format'")
