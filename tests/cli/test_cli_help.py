"""``--help`` of every command: an example that runs, and option names never cut in two."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from tests.conftest import ROOT


def _commands(group: click.Group, path: tuple[str, ...] = ()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))


ALL = list(_commands(cli))
IDS = [" ".join(p) for p, _ in ALL]


def _help(path: tuple[str, ...], width: int) -> str:
    result = CliRunner().invoke(cli, [*path, "--help"], terminal_width=width)
    assert result.exit_code == 0, result.output
    return result.output


def _examples(text: str) -> list[str]:
    """The example commands of a help text's epilog, continuation lines joined."""
    _, found, tail = text.partition("Examples (from the source tree's root, on its fixtures):\n")
    assert found, "no Examples epilog"
    joined = re.sub(r"\\\n\s*", "", tail)
    return [line.strip() for line in joined.splitlines() if line.startswith("    sealverify ")]


@pytest.mark.parametrize(("path", "command"), ALL, ids=IDS)
def test_help_has_examples_of_this_command_that_run(
    path: tuple[str, ...], command: click.Command, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    examples = _examples(_help(path, 100))
    assert examples
    for text in examples:
        argv = shlex.split(text, comments=True)
        assert argv[: 1 + len(path)] == ["sealverify", *path], text
        for index, word in enumerate(argv[:-1]):  # a report file goes to a scratch directory
            if word in ("--output", "--trust-template"):
                argv[index + 1] = str(tmp_path / argv[index + 1])
        result = CliRunner().invoke(cli, argv[1:])
        assert result.exception is None or isinstance(result.exception, SystemExit), text
        assert result.exit_code != 2, (text, result.output)


@pytest.mark.parametrize("width", [80, 100, 120])
@pytest.mark.parametrize(("path", "command"), ALL, ids=IDS)
def test_no_option_name_is_cut_across_lines(
    path: tuple[str, ...], command: click.Command, width: int
) -> None:
    text = _help(path, width)
    # A line that ends inside a hyphenated word: textwrap's default break after a hyphen.
    cut = [line for line in text.splitlines() if re.search(r"[A-Za-z0-9]-$", line)]
    assert not cut, cut
    names = {opt for p in command.params for opt in getattr(p, "opts", ()) if opt.startswith("--")}
    words = set(re.findall(r"--[a-z0-9][a-z0-9-]*", text))
    assert names <= words, names - words
    assert max(len(line) for line in text.splitlines() if "sealverify " not in line) <= max(
        width, 100
    )
