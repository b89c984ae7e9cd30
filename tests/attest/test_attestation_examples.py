"""docs/examples.md's attestation round trip runs as written, its commands one after the other.

A ``console round-trip`` block holds several commands, each followed by its output and its
``(exit N)`` line; they share one directory, as a person's shell would. The directory starts
as a fresh clone's does for these commands: a copy of the project's ``fixtures/``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

EXAMPLES = ROOT / "docs" / "examples.md"
BLOCK = re.compile(r"^```console round-trip\n(.*?)^```$", re.MULTILINE | re.DOTALL)
EXIT = re.compile(r"^\(exit (\d+)\)$")


def _steps(block: str) -> list[tuple[str, list[str], int]]:
    """(command text, expected output lines, expected exit code) per command of a block."""
    lines = block.rstrip("\n").split("\n")
    steps = []
    while lines:
        assert lines[0].startswith("$ "), lines[0]
        command = [lines.pop(0)[2:]]
        while command[-1].endswith("\\"):
            command[-1] = command[-1][:-1]
            command.append(lines.pop(0))
        output: list[str] = []
        while not EXIT.match(lines[0]):
            output.append(lines.pop(0))
        code = int(EXIT.match(lines.pop(0)).group(1))  # type: ignore[union-attr]
        steps.append((" ".join(part.strip() for part in command), output, code))
    return steps


def test_the_round_trip_runs_as_written(tmp_path: Path) -> None:
    blocks = BLOCK.findall(EXAMPLES.read_text(encoding="utf-8"))
    assert len(blocks) == 1
    steps = _steps(blocks[0])
    assert [shlex.split(text)[:2] for text, _, _ in steps] == [
        ["sealverify", "verify"],
        ["sealverify", "attestation"],
        ["sealverify", "attestation"],
    ]
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    for text, expected, code in steps:
        done = subprocess.run(
            [sys.executable, "-m", "sealverify._internal.cli.main", *shlex.split(text)[1:]],
            capture_output=True,
            cwd=tmp_path,
            env={k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")},
            timeout=300,
        )
        shown = (done.stdout + done.stderr).decode("utf-8").rstrip("\n").split("\n")
        assert [line.rstrip() for line in shown] == expected, text
        assert done.returncode == code, text
    assert (tmp_path / "gate.intoto.jsonl").is_file()


def test_the_parser_splits_a_block_into_its_commands() -> None:
    block = "$ sealverify a \\\n    b\nout\n(exit 0)\n$ sealverify c\n(exit 1)\n"
    assert _steps(block) == [("sealverify a b", ["out"], 0), ("sealverify c", [], 1)]
