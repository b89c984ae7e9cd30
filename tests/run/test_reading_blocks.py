"""Reading a stream a block at a time: one stdio frame taken, or a copy spooled to disk."""

from __future__ import annotations

import io
from itertools import islice

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.run import reading
from sealverify._internal.run.refused import InputRefused
from sealverify._internal.wire.framing import iter_stdio, stdio_frame_count


@settings(max_examples=400, deadline=None)
@given(
    st.binary(max_size=40).map(lambda b: bytes(c if c % 3 else 10 for c in b)),
    st.integers(0, 12),
    st.sampled_from([1, 2, 3, 5, 1 << 16]),
)
def test_a_frame_is_the_one_the_whole_stream_gives(data: bytes, index: int, block: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reading, "_SPOOL", block)
        found = reading.stdio_frame(io.BytesIO(data), "s", index)
    frame = next(islice(iter_stdio(data), index, None), None)
    assert found == (frame.data if frame is not None else None, stdio_frame_count(data))


def test_a_stream_past_the_cap_is_refused_whichever_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "_max_input", [10])
    with pytest.raises(InputRefused, match="s: more than 10 bytes"):
        reading.stdio_frame(io.BytesIO(b"a\n" + b"b" * 20), "s", 0)
    with pytest.raises(InputRefused, match="s: more than 10 bytes"):
        reading.spool_capped(io.BytesIO(b"a\n" + b"b" * 20), "s")


def test_a_spooled_copy_is_read_by_each_reader_from_its_start() -> None:
    data = bytes(range(256)) * 300
    opener = reading.spool_capped(io.BytesIO(data), "s")
    assert callable(opener)
    first, second = opener(), opener()
    assert first.read(1000) == data[:1000]
    assert second.read(len(data) + 1) == data
    assert first.read(len(data)) == data[1000:]
    assert first.read(10) == b""
