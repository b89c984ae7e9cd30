"""Commands that read a stream hold one line (or frame) at a time, not an object per line.

``chain`` once built an object for every line of its log before reading any (12 MB of line
feeds took 1.3 GB), and ``partition emit`` and ``approval --frame`` built a frame object for
every line of their stream to take frame 0 or to check that it is one line (about 125 bytes a
line). Each test runs the command through the CLI on a stream of many short lines and bounds
its peak Python allocation (tracemalloc) by a small multiple of the input, which is held once
as read. Counting memory, not time: nothing here depends on the machine's speed.
"""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from sealverify_testkit import keys
from sealverify_testkit.mint import DEMO_KERNEL_CONFIG, approval_token

from sealverify._internal.cli.main import cli
from sealverify._internal.history import chain_log
from tests.helpers.child_peak import child_peak_kib

ROOT = Path(__file__).resolve().parents[2]
CALL = ROOT / "fixtures" / "frames" / "call.bin"
MIB = 1 << 20


def _peak(args: list[str]) -> tuple[int, int]:
    """The exit code and the peak Python allocation of one CLI run of ``args``."""
    runner = CliRunner()
    runner.invoke(cli, [args[0], "--help"])  # imports outside the measurement
    tracemalloc.start()
    try:
        result = runner.invoke(cli, args, catch_exceptions=False)
        return result.exit_code, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_chain_holds_a_line_not_every_line(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    log.write_bytes(b"\n" * (MIB // 2))  # half a million empty lines: no record at all
    code, peak = _peak(["chain", str(log), "--format", "json", "--output", str(tmp_path / "o")])
    assert code == 1  # no chain record: BROKEN
    assert peak < 2 * MIB + 4 * MIB, f"{peak / MIB:.0f} MiB for a half-MiB log"


def test_chain_reads_12_mb_of_line_feeds_in_a_bounded_address_space(tmp_path: Path) -> None:
    """The log of the report: 12 MB of line feeds took 1.3 GB; now under a 384 MiB cap."""
    resource = pytest.importorskip("resource")  # POSIX: the cap is RLIMIT_AS
    log = tmp_path / "audit.log"
    log.write_bytes(b"\n" * 12_000_000)
    cap = 384 * MIB

    def capped() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    result = subprocess.run(
        [sys.executable, "-m", "sealverify", "chain", str(log), "--format", "json",
         "--output", str(tmp_path / "o.json")],
        capture_output=True, text=True, preexec_fn=capped, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr  # no record: BROKEN, and no MemoryError
    assert "0 record(s), 12000000 other line(s) skipped" in result.stderr


def test_partition_emit_holds_frame_zero_not_every_frame(tmp_path: Path) -> None:
    stream = tmp_path / "stream.bin"
    stream.write_bytes(CALL.read_bytes() + b"{}\n" * (MIB // 3))  # frame 0, then many lines
    code, peak = _peak(["partition", "emit", str(stream), "--output", str(tmp_path / "o")])
    assert code == 0
    assert peak < 3 * MIB + 4 * MIB, f"{peak / MIB:.0f} MiB for a 1 MiB stream"


def test_partition_emit_counts_frames_it_does_not_hold(tmp_path: Path) -> None:
    stream = tmp_path / "stream.bin"
    stream.write_bytes(b"{}\n" * (MIB // 3))
    result = CliRunner().invoke(cli, ["partition", "emit", str(stream), "--index", str(MIB)])
    assert result.exit_code == 2
    assert f"stream.bin holds {MIB // 3} frame(s)" in result.output


@pytest.mark.parametrize("stdin", [False, True])
def test_partition_emit_holds_the_frame_not_the_stream(tmp_path: Path, stdin: bool) -> None:
    # The stream was read whole (held once, about its size) to take one frame; it is read a
    # block at a time now, and a stream four times longer takes no more memory.
    peaks = []
    for lines in (MIB // 3, 4 * MIB // 3):
        data = CALL.read_bytes() + b"{}\n" * lines  # frame 0, then many lines
        stream = tmp_path / "stream.bin"
        stream.write_bytes(data)
        out = tmp_path / "o"
        args = ["partition", "emit", "-" if stdin else str(stream), "--output", str(out)]
        runner = CliRunner()
        runner.invoke(cli, ["partition", "--help"])
        tracemalloc.start()
        try:
            result = runner.invoke(cli, args, input=data if stdin else None)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert result.exit_code == 0, result.output
        peaks.append(peak)
        alone = tmp_path / "call.out"
        assert CliRunner().invoke(cli, ["partition", "emit", str(CALL), "--output", str(alone)])
        assert out.read_bytes() == alone.read_bytes()
    small, large = peaks
    assert large < 1.5 * small, f"{small} then {large} bytes for a stream four times longer"


def test_partition_emit_finds_each_frame_as_the_whole_stream_did(tmp_path: Path) -> None:
    stream = tmp_path / "stream.bin"
    stream.write_bytes(b"{}\n" + CALL.read_bytes() + b"{}\n\n" + CALL.read_bytes().rstrip(b"\n"))
    runner = CliRunner()
    for index, code in [(0, 1), (1, 0), (2, 1), (3, 1), (4, 1)]:  # the last: no LF
        result = runner.invoke(cli, ["partition", "emit", str(stream), "--index", str(index)])
        assert result.exit_code == code, (index, result.output)
    result = runner.invoke(cli, ["partition", "emit", str(stream), "--index", "5"])
    assert result.exit_code == 2 and "stream.bin holds 5 frame(s)" in result.output


def test_partition_verify_holds_the_frame_not_the_stream(tmp_path: Path) -> None:
    # --frame was read whole (held once, about its size) to take one frame.
    partition = ROOT / "fixtures" / "partition"
    pubkey = "0545a4cf42aa36b761dc2bdfe0b11bd71d45a2ea15be33e3ee9ca610c608fe2d"
    peaks = []
    for lines in (MIB // 3, 4 * MIB // 3):
        stream = tmp_path / f"stream-{lines}.bin"
        stream.write_bytes((partition / "frame.bin").read_bytes() + b"{}\n" * lines)
        code, peak = _peak(["partition", "verify", str(partition / "attestation.json"),
                            "--frame", str(stream), "--pubkey", pubkey, "--allow-published-keys",
                            "--format", "json", "--output", str(tmp_path / "o")])  # fmt: skip
        assert code == 0
        peaks.append(peak)
    small, large = peaks
    assert large < 1.5 * small, f"{small} then {large} bytes for a stream four times longer"


def test_approval_frame_of_many_lines_is_refused_without_holding_them(tmp_path: Path) -> None:
    frame = tmp_path / "frame.bin"
    frame.write_bytes(CALL.read_bytes() + b"{}\n" * (MIB // 3))
    tokens = tmp_path / "tokens.ndjson"
    tokens.write_bytes(approval_token(CALL.read_bytes(), DEMO_KERNEL_CONFIG))
    args = ["approval", str(tokens), "--approval-pubkey", keys.APPROVER_KEY.public_hex]
    code, peak = _peak([*args, "--frame", str(frame)])
    assert code == 2  # "must hold exactly one frame (one line)"
    assert peak < 3 * MIB + 4 * MIB, f"{peak / MIB:.0f} MiB for a 1 MiB frame file"
    code, _ = _peak([*args, "--frame", str(CALL)])
    assert code != 2  # the one-line frame is read and the token judged


def test_approval_frame_of_many_lines_holds_its_first_line_only(tmp_path: Path) -> None:
    # The frame file was read whole (held once, about its size) to see it is one line; it is
    # read a block at a time now, and a file four times longer takes no more memory.
    tokens = tmp_path / "tokens.ndjson"
    tokens.write_bytes(approval_token(CALL.read_bytes(), DEMO_KERNEL_CONFIG))
    args = ["approval", str(tokens), "--approval-pubkey", keys.APPROVER_KEY.public_hex]
    peaks = []
    for lines in (MIB // 3, 4 * MIB // 3):
        frame = tmp_path / f"frame-{lines}.bin"
        frame.write_bytes(CALL.read_bytes() + b"{}\n" * lines)
        code, peak = _peak([*args, "--frame", str(frame)])
        assert code == 2  # "must hold exactly one frame (one line)"
        peaks.append(peak)
    small, large = peaks
    assert large < 1.5 * small, f"{small} then {large} bytes for a frame file four times longer"


def test_a_tools_transcript_is_not_parsed_whole_to_find_it_is_a_stream(tmp_path: Path) -> None:
    # tools digest parsed the whole transcript as one JSON value (twice) only to learn that
    # it is not one: 3.5 bytes of memory a byte to find the extra data after the first line.
    reply = b'{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{}}]}}\n'
    note = b'{"jsonrpc":"2.0","method":"notifications/message"}\n'
    sizes, peaks = [], []
    for notes in (4_000, 16_000):
        stream = tmp_path / f"s2c-{notes}.jsonl"
        stream.write_bytes(note * notes + reply)
        code, peak = _peak(["tools", "digest", str(stream), "--format", "json",
                            "--output", str(tmp_path / "o")])  # fmt: skip
        assert code == 0
        assert '"name": "a"' in (tmp_path / "o").read_text()
        sizes.append(stream.stat().st_size)
        peaks.append(peak)
    per_byte = (peaks[1] - peaks[0]) / (sizes[1] - sizes[0])
    assert per_byte < 2.5, f"{per_byte:.2f} bytes of memory per byte of transcript"


def test_diff_holds_one_frame_not_every_analysis(tmp_path: Path) -> None:
    """diff analysed every frame (and parsed every line) to pick the first tools/call."""
    stream = tmp_path / "stream.bin"
    stream.write_bytes(b"{}\n" * 30_000 + CALL.read_bytes())  # the tools/call comes last
    code, peak = _peak(["diff", str(stream), str(CALL), "--format", "json",
                        "--output", str(tmp_path / "o")])  # fmt: skip
    assert code == 0  # the same frame: nothing differs
    assert peak < 3 * 90_000 + 4 * MIB, f"{peak / MIB:.0f} MiB for a 90 kB stream"
    result = CliRunner().invoke(cli, ["diff", str(stream), str(CALL), "--format", "json"])
    assert "holds 30001 frames; compared the first tools/call, frame #30000" in result.output


@pytest.mark.parametrize("window", [1, 2, 3, 7, 1 << 16])
def test_the_windowed_split_gives_every_line(window: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The log split a window at a time gives the lines ``bytes.split`` gives, LF by LF."""
    monkeypatch.setattr(chain_log, "_WINDOW", window)
    for data in [b"", b"\n", b"\n\n", b"a", b"a\n", b"a\nb", b"ab\ncd\n\nef", b"\n" * 9,
                 b"long line\nx\n" * 5 + b"tail", b"x" * 20 + b"\n" + b"y" * 20]:  # fmt: skip
        pieces = data.split(b"\n")
        if pieces[-1] == b"":
            pieces.pop()
        assert list(chain_log._split_lines(data)) == pieces, data


def test_frame_writes_each_frame_as_it_comes(tmp_path: Path) -> None:
    """frame held every reported frame's subject until the end (about 3 kB a frame)."""
    stream = tmp_path / "stream.bin"
    stream.write_bytes(b"{}\n" * 2_000)
    for fmt in ("json", "jsonl", "table"):
        out = tmp_path / f"o.{fmt}"
        code, peak = _peak(["frame", str(stream), "--format", fmt, "--output", str(out)])
        assert code == 1  # an empty object is no JSON-RPC request: every frame refused
        assert peak < 4 * MIB, f"{peak / MIB:.0f} MiB for 2,000 frames ({fmt})"
        assert out.read_text().count("stream.bin#1999") == 1


def test_lint_holds_a_paragraph_not_the_document(tmp_path: Path) -> None:
    """lint held the whole document (about 4.7 bytes of memory a byte) and every finding."""
    paragraph = b"The traceparent value is inert.\n\nPlain words about nothing at all.\n \n"
    peaks = []
    for times in (MIB // 2 // len(paragraph), 2 * MIB // len(paragraph)):
        note = tmp_path / f"note-{times}.md"
        note.write_bytes(b"# Notes\n\n" + paragraph * times)
        out = tmp_path / "o.json"
        code, peak = _peak(["lint", str(note), "--format", "json", "--output", str(out)])
        assert code == 1
        report = out.read_text()
        assert f'"violations": {times}' in report and '"line 3"' in report  # the first hit
        assert f'"line {9 + 4 * (times - 1)}"' not in report  # the last: counted, not listed
        peaks.append(peak)
    small, large = peaks  # the document and every finding held: 18 then 71 MiB
    assert large < 1.5 * small, f"{small} then {large} bytes for a document four times longer"
    assert large < 8 * MIB, f"{large / MIB:.1f} MiB for a 2 MiB document"


def _child_peak_kib(args: list[str]) -> int:
    return child_peak_kib(args, ROOT)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM of /proc/self/status")
@pytest.mark.parametrize(
    "line",
    [
        b"- the value is inert\n",  # a list: a marker starts each line
        b"The meta value is inert. And\n",  # a sentence ends inside each line
        b"the value\tis meta inert\n",  # a tab parts each line
    ],
)
def test_lint_holds_a_window_of_a_text_without_blank_lines(tmp_path: Path, line: bytes) -> None:
    """A text with no blank line and no sentence end at a line's end was held whole.

    Its window was only cut there; `SENTENCE_END` also ends a sentence at a list marker, a
    tab or a sentence end inside a line, and the window is cut there now. Held whole, 1 MiB
    of such a text took 100 to 131 MiB and 4 MiB 344 to 468 MiB.
    """
    peaks = []
    for mib in (1, 4):
        note = tmp_path / f"note-{mib}.md"
        with note.open("wb") as out:
            for _ in range(mib):
                out.write(line * (MIB // len(line)))
        out_path = tmp_path / f"o-{mib}.json"
        peaks.append(_child_peak_kib(["lint", str(note), "--format", "json", "-o", str(out_path)]))
        assert f'"violations": {mib * (MIB // len(line))}' in out_path.read_text()
    small, large = peaks
    assert large - small < 8 * 1024, f"{small} then {large} KiB for a text four times longer"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM of /proc/self/status")
def test_tools_compare_copies_no_dropped_capture_member(tmp_path: Path) -> None:
    """A capture's members the block drops were copied whole with the rest (22 bytes a byte).

    The capture is still parsed whole (about 14 bytes of memory a byte of many small notes,
    within the strict JSON limits); only the copy of what is dropped is gone.
    """
    listing = tmp_path / "tools.json"
    listing.write_bytes(b'{"tools":[{"name":"a","inputSchema":{}}]}')
    sizes, peaks = [], []
    for notes in (100_000, 400_000):
        capture = tmp_path / f"capture-{notes}.json"
        with capture.open("w") as out:
            out.write('{"observedAt": "2025-01-01", "notes": [')
            out.write(", ".join(f'{{"note": "n{i}"}}' for i in range(notes)))
            out.write("]}")
        sizes.append(capture.stat().st_size)
        peaks.append(_child_peak_kib(["tools", "compare", str(listing), str(listing),
                                      "--capture-a", str(capture), "--format", "json",
                                      "-o", str(tmp_path / "o.json")]))  # fmt: skip
        assert "notes dropped: not a member" in (tmp_path / "o.json").read_text()
    per_byte = (peaks[1] - peaks[0]) * 1024 / (sizes[1] - sizes[0])
    assert per_byte < 18, f"{per_byte:.1f} bytes of memory per byte of capture"
