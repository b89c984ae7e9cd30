"""A report that cannot be spooled to a temporary file is one line and exit 2, not a defect."""

from __future__ import annotations

import errno
import io
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


class _Full(io.BytesIO):
    """A temporary file on a disk that fills up at the first write."""

    def write(self, data: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def _verify(tmp_path: Path) -> Any:
    # the fixtures' json report is past the bytes verify keeps in memory, so it spools
    args = ["verify", str(FIXTURES), "--format", "json", "--jobs", "1"]
    return CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "r.json")], prog_name="sealverify")


def _no_file(*args: Any, **kwargs: Any) -> Any:
    raise OSError(errno.EACCES, "Permission denied")


@pytest.mark.parametrize(
    ("make", "why"),
    [(_no_file, "Permission denied"), (lambda *a, **k: _Full(), "No space left on device")],
)
def test_a_spool_that_fails_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Any, why: str
) -> None:
    monkeypatch.setattr(tempfile, "TemporaryFile", make)
    run = _verify(tmp_path)
    assert run.exit_code == 2, run.output
    line = f"sealverify: cannot spool the report to a temporary file (TMPDIR): {why}\n"
    assert run.stderr == line
    assert "internal error" not in run.output


def test_the_fixtures_report_passes_the_in_memory_bound(tmp_path: Path) -> None:
    from sealverify._internal.cli import spooled

    run = _verify(tmp_path)
    assert run.exit_code in (0, 1), run.output
    assert (tmp_path / "r.json").stat().st_size > spooled.IN_MEMORY
