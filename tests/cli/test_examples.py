"""docs/examples.md runs as written: each example's exit code and output, line by line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sealverify._internal.cli.main import command_modules
from tests.helpers.examples import EXAMPLE_LIST, ROOT


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
        [sys.executable, "-m", "sealverify._internal.cli.main", *argv[1:]],
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
