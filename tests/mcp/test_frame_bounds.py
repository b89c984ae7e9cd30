"""frame on hostile streams: blank lines are refused, memory is bounded by frame caps."""

from __future__ import annotations

import json
import random
from pathlib import Path

from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.mcp.frame import FrameOptions, analyze_stream
from sealverify._internal.wire.framing import frame_of, split_stdio

ROOT = Path(__file__).resolve().parents[2]
CALL = (ROOT / "fixtures" / "frames" / "call.bin").read_bytes()


def _run(*args: str, stdin: bytes | None = None):
    return CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)


def test_blank_lines_are_refused_as_frames(tmp_path: Path) -> None:
    path = tmp_path / "s.bin"
    path.write_bytes(CALL + b"\n" + b"  \r\n" + CALL)
    result = _run("frame", str(path), "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    outcomes = [s["outcome"] for s in report["subjects"]]
    assert outcomes == ["ADMISSIBLE", "REFUSE", "REFUSE", "ADMISSIBLE"]
    blank = report["subjects"][1]
    assert [c["id"] for c in blank["checks"] if c["status"] == "fail"] == ["frame.blank-line"]
    assert report["summary"] == {"frames": 4, "refused": 2, "admissible": 2}


def test_library_refuses_a_blank_line_too() -> None:
    (result,) = analyze_stream(split_stdio(b"\n"))
    assert not result.admissible
    assert [r.code for r in result.refusals] == ["frame.blank-line"]


def test_a_frame_over_the_byte_cap_is_refused_unread() -> None:
    big = frame_of(b'{"jsonrpc":"2.0","id":1,"method":"ping","pad":"' + b"x" * 5000 + b'"}\n')
    (result,) = analyze_stream([big], FrameOptions(max_frame_bytes=1000))
    assert [r.code for r in result.refusals] == ["frame.too-large"]
    assert result.kind == "unparsed"
    (uncapped,) = analyze_stream([big], FrameOptions())
    assert "frame.too-large" not in [r.code for r in uncapped.refusals]


def test_cli_caps_frame_size(tmp_path: Path) -> None:
    path = tmp_path / "s.bin"
    path.write_bytes(CALL)
    capped = _run("frame", str(path), "--max-frame-bytes", "100", "--format", "json")
    assert capped.exit_code == 1
    checks = json.loads(capped.stdout)["subjects"][0]["checks"]
    assert any(c["id"] == "frame.too-large" for c in checks)
    assert _run("frame", str(path)).exit_code == 0


def test_random_bytes_stop_at_the_frame_limit_with_a_named_finding(tmp_path: Path) -> None:
    noise = random.Random(7).randbytes(1 << 20)  # about 4,000 LF-delimited pieces
    path = tmp_path / "noise.bin"
    path.write_bytes(noise)
    result = _run("frame", str(path), "--max-frames", "50", "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert len(report["subjects"]) == 50
    assert all(s["outcome"] == "REFUSE" for s in report["subjects"])
    assert [f["id"] for f in report["findings"]] == ["frame.limit.frames"]
    assert "more than 50" in result.stderr


def test_under_the_frame_limit_no_finding(tmp_path: Path) -> None:
    path = tmp_path / "s.bin"
    path.write_bytes(CALL * 3)
    result = _run("frame", str(path), "--max-frames", "3", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["findings"] == []


def test_stdin_is_read_as_a_stream() -> None:
    result = _run("frame", "-", "--format", "json", stdin=CALL + CALL)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["summary"]["frames"] == 2


def test_index_still_counts_every_frame(tmp_path: Path) -> None:
    path = tmp_path / "s.bin"
    path.write_bytes(CALL * 2)
    assert _run("frame", str(path), "--index", "1").exit_code == 0
    missing = _run("frame", str(path), "--index", "2")
    assert missing.exit_code == 2
    assert "has 2 frame(s)" in missing.output
