"""Reading a stream a block at a time: one stdio frame taken, or a copy spooled to disk."""

from __future__ import annotations

import io
import os
import threading
from itertools import islice
from pathlib import Path

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


def _all(opened: object) -> bytes:
    assert callable(opened)
    with opened() as stream:
        return b"".join(iter(lambda: stream.read(7), b""))


def test_an_input_to_read_again_is_held_only_when_short(tmp_path: Path) -> None:
    short, long = tmp_path / "short.bin", tmp_path / "long.bin"
    short.write_bytes(b"a\n" * 10)
    long.write_bytes(b"b\n" * 100)
    assert reading.reopenable_input(str(short), hold=20) == b"a\n" * 10  # read once, held
    opened = reading.reopenable_input(str(long), hold=20)
    assert _all(opened) == _all(opened) == b"b\n" * 100  # each reading from the start


def test_a_pipe_to_read_again_is_spooled(tmp_path: Path) -> None:
    mkfifo = getattr(os, "mkfifo", None)
    if mkfifo is None:
        pytest.skip("no named pipes here")
    pipe = tmp_path / "pipe"
    mkfifo(pipe)
    data = b"c\n" * 5000

    def write() -> None:
        with open(pipe, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    opened = reading.reopenable_input(str(pipe), hold=1 << 16)
    writer.join()
    assert _all(opened) == _all(opened) == data  # read once from the pipe, twice from the copy


def test_an_input_to_read_again_is_refused_as_a_whole_read_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "_max_input", [10])
    big = tmp_path / "big.bin"
    big.write_bytes(b"x" * 11)
    for hold in (0, 100):
        with pytest.raises(InputRefused, match=r"big\.bin: more than 10 bytes"):
            reading.reopenable_input(str(big), hold=hold)
    with pytest.raises(OSError, match=r"cannot read .*missing"):
        reading.reopenable_input(str(tmp_path / "missing"))
    with pytest.raises(OSError, match=r"cannot read .*Is a directory"):
        reading.reopenable_input(str(tmp_path))


def test_each_reading_of_a_file_gets_the_bytes_it_held_when_first_seen(tmp_path: Path) -> None:
    capture = tmp_path / "capture.bin"
    capture.write_bytes(b"a\n" * 100)
    opened = reading.reopenable_input(str(capture), hold=20)
    with capture.open("ab") as out:
        out.write(b"written later\n")  # a capture still being written
    assert _all(opened) == _all(opened) == b"a\n" * 100
