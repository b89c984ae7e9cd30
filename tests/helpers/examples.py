"""Shared with other test modules by tests/cli/test_examples.py."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
