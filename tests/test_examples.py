"""docs/examples.md runs as written: each example's exit code and output, line by line."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from sealverify.cli.main import command_modules

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples.md"
BLOCK = re.compile(r"^```console example\n(.*?)^```$", re.MULTILINE | re.DOTALL)
EXIT = re.compile(r"^\(exit (\d+)\)$")


def _examples() -> list[tuple[str, list[str], list[str], int]]:
    """(command text, argv, expected output lines, expected exit code) per example block."""
    found = []
    for block in BLOCK.findall(EXAMPLES.read_text(encoding="utf-8")):
        lines = block.rstrip("\n").split("\n")
        assert lines[0].startswith("$ "), lines[0]
        command = [lines.pop(0)[2:]]
        while command[-1].endswith("\\"):
            command[-1] = command[-1][:-1]
            command.append(lines.pop(0))
        exit_line = EXIT.match(lines.pop())
        assert exit_line, "an example ends with its (exit N) line"
        text = " ".join(part.strip() for part in command)
        found.append((text, shlex.split(text), lines, int(exit_line.group(1))))
    return found


EXAMPLE_LIST = _examples()


def test_every_command_has_a_worked_example() -> None:
    shown = {argv[1] for _, argv, _, _ in EXAMPLE_LIST}
    assert all(argv[0] == "sealverify" for _, argv, _, _ in EXAMPLE_LIST)
    assert set(command_modules()) - {"explain"} <= shown  # explain documents itself


@pytest.mark.parametrize(
    "text,argv,expected,code", EXAMPLE_LIST, ids=[t[:60] for t, *_ in EXAMPLE_LIST]
)
def test_example_runs_as_written(text: str, argv: list[str], expected: list[str], code: int):
    # Tables are drawn 100 columns wide off a terminal unless $COLUMNS says otherwise.
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")}
    done = subprocess.run(
        [sys.executable, "-m", "sealverify.cli.main", *argv[1:]],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    shown = (done.stdout + done.stderr).decode("utf-8").rstrip("\n").split("\n")
    # Trailing spaces are the only difference allowed (a table pads its last column).
    assert [line.rstrip() for line in shown] == expected, text
    assert done.returncode == code, text


def test_the_parser_reads_what_the_page_shows() -> None:
    assert len(EXAMPLE_LIST) >= 12
    _, argv, expected, code = EXAMPLE_LIST[0]
    assert argv[:2] == ["sealverify", "verify"] and "--trust" in argv
    assert expected and code == 1
