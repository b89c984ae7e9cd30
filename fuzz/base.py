"""What every harness shares: the harness record, running the CLI in-process, a workspace."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import click
from sealverify_testkit import keys

from sealverify._internal.cli.main import cli

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["EXIT_CODES", "Harness", "run_cli", "workspace", "write"]

EXIT_CODES = frozenset({0, 1, 2, 3, 4})  # README: 0 pass, 1 fail, 2 could not run, 3, 4


@dataclass(frozen=True, slots=True)
class Harness:
    """A fuzz target: ``target(data)`` returns for every documented outcome."""

    name: str
    family: str
    seeds: Callable[[], list[bytes]]
    target: Callable[[bytes], None]
    structured: bool = True  # mutate inside the JSON as well as the bytes
    resign: bool = False  # re-sign half of the mutants with the testkit keys


class _Discard(io.RawIOBase):
    """A writable stream that keeps nothing: what a command writes is encoded, then dropped.

    The text layer above it still encodes strictly as UTF-8 (so text a real terminal could
    not take still escapes as a crash), but no report is held: a memory measurement counts
    what the command holds, not the bytes it wrote to its standard output.
    """

    def writable(self) -> bool:
        return True

    def write(self, data: ReadableBuffer, /) -> int:
        return memoryview(data).nbytes


def run_cli(args: list[str]) -> int:
    """Run ``sealverify ARGS`` in-process; return its exit code, or raise what escaped it.

    The documented refusals are click's usage errors (exit 2, "could not run") and the exit
    codes of the README; anything else escaping the command is a crash.
    """
    out = io.TextIOWrapper(io.BufferedWriter(_Discard()), encoding="utf-8")
    err = io.TextIOWrapper(io.BufferedWriter(_Discard()), encoding="utf-8")
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = cli.main(args, prog_name="sealverify", standalone_mode=False)
        except click.ClickException:
            return 2
    code = 0 if code is None else code
    if code not in EXIT_CODES:
        raise AssertionError(f"exit code {code!r} is not one the README documents")
    return int(code)


@cache
def workspace() -> Path:
    root = Path(tempfile.mkdtemp(prefix="sealverify-fuzz-"))
    (root / "receipts").mkdir()
    (root / "sign.key").write_text(keys.RECEIPT_KEY.seed.hex() + "\n")
    return root


def write(name: str, data: bytes) -> str:
    """Write ``data`` to ``name`` in the run's scratch directory (folders made); the path."""
    path = workspace() / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return str(path)
