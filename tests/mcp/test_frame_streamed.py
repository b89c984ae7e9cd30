"""Frames over the byte cap are hashed as they arrive, never held, and report as if held."""

from __future__ import annotations

import hashlib
import io
import json
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.cli.main import cli
from sealverify._internal.mcp.frame import FrameOptions, analyze_frame, iter_stream
from sealverify._internal.wire.framing import FrameBytes, frame_of, split_stdio
from sealverify._internal.wire.streamed import read_http_frame, read_stdio_frames

CALL = (Path(__file__).resolve().parents[2] / "fixtures" / "frames" / "call.bin").read_bytes()
_BYTES = st.binary(max_size=60).map(
    lambda b: bytes(b"x \r\n\t{"[byte % 6] for byte in b)  # mostly the bytes that matter
)


class _Recording(io.BytesIO):
    """A stream that remembers the largest read it was asked for (None: unbounded)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.asks: list[int | None] = []

    def readline(self, size: int | None = -1) -> bytes:
        self.asks.append(None if size is None or size < 0 else size)
        return super().readline(size)

    def read(self, size: int | None = -1) -> bytes:
        self.asks.append(None if size is None or size < 0 else size)
        return super().read(size)


def _facts(frame: FrameBytes) -> tuple[object, ...]:
    return (
        frame.offset,
        frame.length,
        frame.terminator,
        frame.transport,
        frame.exact_sha256,
        frame.raw_line_sha256,
        frame.inner_newline,
        frame.blank,
    )


@settings(max_examples=1500)
@given(_BYTES, st.integers(min_value=1, max_value=12), st.integers(min_value=1, max_value=7))
def test_streamed_stdio_frames_measure_what_held_frames_hold(
    data: bytes, cap: int, chunk: int
) -> None:
    stream = _Recording(data)
    read = list(read_stdio_frames(stream, cap, chunk=chunk))
    held = split_stdio(data)
    assert [_facts(f) for f in read] == [_facts(f) for f in held]
    for frame in read:
        assert (frame.streamed is not None) == (
            frame.length > cap + 1 or (frame.length == cap + 1 and not frame.data.endswith(b"\n"))
        )
        if frame.streamed is None:
            assert frame.data == data[frame.offset : frame.offset + frame.length]
    assert None not in stream.asks and max(stream.asks) <= max(cap + 1, chunk)


@settings(max_examples=800)
@given(_BYTES, st.integers(min_value=1, max_value=12), st.integers(min_value=1, max_value=7))
def test_a_streamed_http_body_measures_what_the_held_body_holds(
    data: bytes, cap: int, chunk: int
) -> None:
    stream = _Recording(data)
    frame = read_http_frame(stream, cap, chunk=chunk)
    assert _facts(frame) == _facts(frame_of(data, "http"))
    assert (frame.streamed is not None) == (len(data) > cap)
    assert None not in stream.asks and max(stream.asks) <= max(cap + 1, chunk)


@settings(max_examples=800)
@given(_BYTES, st.integers(min_value=1, max_value=12))
def test_a_streamed_frame_is_refused_exactly_as_the_held_frame(data: bytes, cap: int) -> None:
    options = FrameOptions(max_frame_bytes=cap)
    streamed = list(iter_stream(read_stdio_frames(io.BytesIO(data), cap, chunk=3), options))
    held = list(iter_stream(split_stdio(data), options))
    assert [(a.kind, a.refusals) for a in streamed] == [(a.kind, a.refusals) for a in held]


def test_without_a_cap_every_line_is_held() -> None:
    data = b"a" * 10_000 + b"\n" + b"b\r\n"
    frames = list(read_stdio_frames(io.BytesIO(data), None))
    assert [f.data for f in frames] == [b"a" * 10_000 + b"\n", b"b\r\n"]
    assert read_http_frame(io.BytesIO(data), None).data == data


def test_a_streamed_frame_has_no_line_to_parse() -> None:
    (frame,) = read_stdio_frames(io.BytesIO(b"x" * 100), 10)
    assert frame.data == b"" and frame.length == 100
    with pytest.raises(ValueError, match="hashed, not held"):
        _ = frame.line
    (refusal, too_large) = analyze_frame(frame).refusals  # no cap in the options: still refused
    assert (refusal.code, too_large.code) == ("frame.unterminated", "frame.too-large")


def test_the_cli_reports_a_huge_line_in_bounded_memory(tmp_path: Path) -> None:
    line = b'{"jsonrpc":"2.0","id":1,"method":"ping","pad":"' + b"x" * (48 << 20) + b'"}\r\n'
    path = tmp_path / "huge.bin"
    path.write_bytes(line + CALL)
    tracemalloc.start()
    try:
        result = CliRunner().invoke(
            cli, ["frame", str(path), "--max-frame-bytes", str(1 << 20), "--format", "json"]
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.exit_code == 1, result.output
    assert peak < 12 << 20, peak  # the line is 48 MiB; the cap and the read chunk are 1 MiB
    big, small = json.loads(result.stdout)["subjects"]
    text = json.dumps(big)
    assert hashlib.sha256(line).hexdigest() in text
    assert hashlib.sha256(line[:-2]).hexdigest() in text
    assert str(len(line)) in text
    assert [c["id"] for c in big["checks"] if c["status"] == "fail"] == ["frame.too-large"]
    assert small["outcome"] == "ADMISSIBLE"
