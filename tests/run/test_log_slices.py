"""JSONL logs are cut into tasks at exactly the line boundaries line iteration gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.run import engine
from sealverify._internal.run.engine import _log_slices, _LogSlice


def _reference(path: Path) -> list[_LogSlice]:
    """The cut as iterating the file's lines gives it (the form before block scanning)."""
    name, chunk = path.as_posix(), engine._CHUNK
    start = offset = count = 0
    first = 1
    out = []
    with path.open("rb") as log:
        for line in log:
            offset += len(line)
            count += 1
            if count == chunk:
                out.append(_LogSlice(name, start, offset, first))
                start, first, count = offset, first + count, 0
    if count:
        out.append(_LogSlice(name, start, offset, first))
    return out


@settings(max_examples=300)
@given(
    lengths=st.lists(st.sampled_from([0, 1, 5, 300]), max_size=200),
    ending=st.sampled_from([b"", b"\n", b"\r\n", b"\n\n"]),
    block=st.sampled_from([1, 7, 64, 4096]),
)
def test_block_scan_cuts_where_line_iteration_does(
    tmp_path_factory: pytest.TempPathFactory, lengths: list[int], ending: bytes, block: int
) -> None:
    log = tmp_path_factory.mktemp("log") / "receipts.jsonl"
    log.write_bytes(b"\n".join(b"x" * n for n in lengths) + ending)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "_BLOCK", block)
        assert list(_log_slices(log)) == _reference(log)


def test_chunk_boundaries_and_an_unterminated_last_line(tmp_path: Path) -> None:
    chunk = engine._CHUNK
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(b"{}\n" * (2 * chunk) + b"{}")
    slices = list(_log_slices(log))
    assert [(s.start, s.end, s.first) for s in slices] == [
        (0, 3 * chunk, 1),
        (3 * chunk, 6 * chunk, chunk + 1),
        (6 * chunk, 6 * chunk + 2, 2 * chunk + 1),
    ]
