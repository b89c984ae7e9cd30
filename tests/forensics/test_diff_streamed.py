"""`diff` reads each side a block at a time and finds what reading it whole found.

``load_side`` once held each input whole: ``data.strip()`` (twice) to try it as one receipt
document, ``iter_stdio`` over the bytes for its lines, ``stdio_frame_count`` for its frames.
Each streamed reading is checked here against that whole-bytes reading, kept in this module
as the reference, on hostile inputs (BOM, CRLF, no final LF, invalid UTF-8, truncated, deep,
left open, trailing content, empty), at block sizes that cut every token and escape.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify import DiffInput, DiffOptions, diff_inputs
from sealverify._internal.forensics.inputs import frame_count, whole_document
from sealverify._internal.forensics.integrity import RECEIPT_LIMITS
from sealverify._internal.forensics.sides import load_side
from sealverify._internal.reports.formats.jsonfmt import render
from sealverify._internal.wire import framing
from sealverify._internal.wire.framing import (
    WHITESPACE,
    Opener,
    Reader,
    iter_stdio,
    iter_stdio_blocks,
    read_lines,
    stdio_frame_count,
)
from sealverify._internal.wire.strictjson import JsonError, JsonValue, Limits, parse_bytes

ROOT = Path(__file__).resolve().parents[2]
CALL = (ROOT / "fixtures" / "frames" / "call.bin").read_bytes()
OTHER = (ROOT / "fixtures" / "frames" / "call-other-trace.bin").read_bytes()
RECEIPT = (ROOT / "fixtures" / "demo" / "receipts" / "verified-allow.receipt.json").read_bytes()
EDITED = ROOT / "fixtures" / "demo" / "receipts" / "fail-edited-arguments.receipt.json"
LINE = json.dumps(json.loads(RECEIPT)).encode()
LINE2 = json.dumps(json.loads(EDITED.read_bytes())).encode()
BIG = (
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":"'
    + b"x" * 200_000
    + b'"}}}'
)

HOSTILE: dict[str, bytes] = {
    "empty": b"",
    "whitespace": b" \r\n\t \n",
    "line feeds": b"\n\n\n",
    "a CR": b"\r",
    "a NUL": b"\0",
    "call": CALL,
    "call, no LF": CALL.rstrip(b"\n"),
    "call, CRLF": CALL.rstrip(b"\n") + b"\r\n",
    "call, BOM": b"\xef\xbb\xbf" + CALL,
    "call, invalid UTF-8": CALL.replace(b"search", b"se\xffrch", 1),
    "call, truncated": CALL[: len(CALL) // 2],
    "two calls": CALL + OTHER,
    "lines, then a call": b"{}\n" * 50 + CALL,
    "blank lines around a call": b"\n \n\t\n" + CALL + b"\n\n",
    "a huge line": BIG,
    "a huge line, then a call": BIG + b"\n" + CALL,
    "receipt": RECEIPT,
    "receipt in whitespace": b"\n \t" + RECEIPT + b"\n\n \r\n",
    "receipt, trailing byte": RECEIPT + b"x",
    "receipt, trailing object": RECEIPT + b"\n{}",
    "receipt, BOM": b"\xef\xbb\xbf" + RECEIPT,
    "receipt, CRLF": RECEIPT.replace(b"\n", b"\r\n"),
    "receipt left open": RECEIPT[:-3],
    "receipt, invalid UTF-8": RECEIPT.replace(b"shell_exec", b"shell\xc3exec", 1),
    "receipt, escaped key": RECEIPT.replace(b'"record_type"', b'"record\\u005ftype"', 1),
    "receipt, duplicate key": RECEIPT.replace(b'"record_version"', b'"tool"', 1),
    "receipt lines": LINE + b"\n" + LINE2 + b"\n",
    "receipt lines, blank lines": b"\n" + LINE + b"\n \n" + LINE2,
    "receipt line, then a call": LINE + b"\n" + CALL,
    "receipt line second": b"{}\n" + LINE + b"\n",
    "a brace, then a call": b"{\n" + CALL,
    "mismatched brackets": b"{]",
    "an open brace": b"{",
    "empty object": b"{}",
    "array": b"[]",
    "string": b'"x"',
    "numbers": b"123\n456",
    "too deep": b'{"a":' * 300 + b"1" + b"}" * 300,
    "deep receipt": b'{"record_type":' + b'{"a":' * 200 + b"1" + b"}" * 201,
    "brackets in strings": b'{"record_type":"}{\\"]","x":"\\\\"}  \n',
    "escapes": b'{"record_type":"a\\\\\\"}"}',
    "tab line, then a call": b"\t\n" + CALL,
    "CR inside a line": CALL.replace(b",", b",\r", 1),
    # past one block, so read by the bracket scan even at the largest block size
    "long receipt": RECEIPT.replace(b"{", b'{"pad": "' + b"p" * 70_000 + b'", ', 1),
    "long receipt, trailing object": RECEIPT.replace(
        b"{", b'{"pad": ' + b"[1]," * 20_000 + b'"", ', 1
    )
    + b"\n{}",
    "long receipt left open": RECEIPT.replace(b"{", b'{"pad": "' + b"p\\" * 40_000 + b'", ', 1)[
        :-3
    ],
    "depth 256, long": b'{"record_type":' * 256 + b'"' + b"x" * 70_000 + b'"' + b"}" * 256,
    "depth 257, long": b'{"record_type":' * 257 + b'"' + b"x" * 70_000 + b'"' + b"}" * 257,
    "deep pairs, long": b'{"a":"' + b"x" * 70_000 + b'","b":' + b"[" * 300 + b"]" * 300 + b"}",
    "pairs at 256, long": b'{"a":"' + b"x" * 70_000 + b'","b":' + b"[" * 255 + b"]" * 255 + b"}",
    "pairs at 257, long": b'{"a":"' + b"x" * 70_000 + b'","b":' + b"[" * 256 + b"]" * 256 + b"}",
    "depth 256, then whitespace": b'{"record_type":'
    + b"[" * 255
    + b"]" * 255
    + b"}"
    + b" " * 70_000,
    "depth 257, then whitespace": b'{"record_type":'
    + b"[" * 256
    + b"]" * 256
    + b"}"
    + b" " * 70_000,
    "escaped quotes, long": b'{"record_type":"' + b'\\"' * 40_000 + b'"}\n',
    "escaped quotes left open, long": b'{"record_type":"' + b'\\"' * 40_000,
    "deep after the value, long": b'{"a":"' + b"x" * 70_000 + b'"}' + b"[" * 300 + b"]" * 300,
    "lines of brackets, long": b'{"record_type":[' + b"[],\n" * 30_000 + b"[]]}",
}
BLOCKS = [1, 2, 3, 7, 64, 1 << 16]


def _old_whole(data: bytes, limits: Limits = RECEIPT_LIMITS) -> tuple[bool, JsonValue]:
    """What load_side read from the whole bytes: blank, and the one document if an object."""
    if not data.strip(WHITESPACE):
        return True, None
    try:
        whole = parse_bytes(data.strip(WHITESPACE), limits)
    except JsonError:
        return False, None
    return False, whole if isinstance(whole, dict) else None


def _new_whole(data: bytes, limits: Limits = RECEIPT_LIMITS) -> tuple[bool, JsonValue]:
    blank, document = whole_document(_opener(data), limits)
    if document is None:
        return blank, None
    assert document == data.strip(WHITESPACE)  # the very bytes the whole reading parsed
    try:
        whole = parse_bytes(document, limits)
    except JsonError:
        return blank, None
    return blank, whole if isinstance(whole, dict) else None


def _opener(data: bytes) -> Opener:
    def opened() -> Reader:
        return io.BytesIO(data)

    return opened


def _frames(frames: object) -> list[tuple[bytes, int, str]]:
    return [(f.data, f.offset, f.terminator) for f in frames]  # type: ignore[attr-defined]


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_streamed_reading_finds_what_the_whole_bytes_gave(
    name: str, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(framing, "BLOCK", block)  # read_blocks reads it
    data = HOSTILE[name]
    assert _new_whole(data) == _old_whole(data)
    assert _frames(read_lines(_opener(data))) == _frames(iter_stdio(data))
    assert _frames(read_lines(data)) == _frames(iter_stdio(data))
    assert frame_count(_opener(data)) == stdio_frame_count(data)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([b"{", b"}", b"[", b"]", b'"', b"\\", b"a", b" ", b"\n", b":", b","])),
    st.integers(min_value=1, max_value=9),
)
def test_the_bracket_scan_agrees_with_the_parser(pieces: list[bytes], block: int) -> None:
    """Any mix of brackets, quotes and escapes: the one document found is the one parsed."""
    data = b"".join(pieces)
    old = framing.BLOCK  # read_blocks reads it
    framing.BLOCK = block
    try:
        assert _new_whole(data) == _old_whole(data)
        assert _new_whole(b"{" + data) == _old_whole(b"{" + data)
    finally:
        framing.BLOCK = old


@pytest.mark.parametrize("size", [0, 1, 5, 100])
def test_the_document_size_limit_is_the_parsers(size: int) -> None:
    limits = Limits(max_document_bytes=len(RECEIPT) - 1 + size)
    for data in (RECEIPT, b"  " + RECEIPT + b"\n\n"):
        assert _new_whole(data, limits) == _old_whole(data, limits)


@given(st.lists(st.binary(max_size=12), max_size=12))
def test_lines_split_across_blocks_are_the_lines_of_the_joined_bytes(
    blocks: list[bytes],
) -> None:
    joined = b"".join(blocks)
    assert _frames(iter_stdio_blocks(blocks)) == _frames(iter_stdio(joined))


def _report(a: object, b: object, **options: object) -> str:
    report = diff_inputs(DiffInput(a, "a.bin"), DiffInput(b, "b.bin"), DiffOptions(**options))  # type: ignore[arg-type]
    return render(report)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_side_read_in_blocks_gives_the_report_read_whole(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = HOSTILE[name]
    outcomes = []
    for block in (3, 1 << 16):
        monkeypatch.setattr(framing, "BLOCK", block)  # read_blocks reads it
        for side in (data, _opener(data)):
            try:
                outcomes.append(_report(side, CALL))
            except ValueError as exc:  # DiffInputError: empty input, no frame
                outcomes.append(f"refused: {exc}")
    assert len(set(outcomes)) == 1, name


def test_index_and_reply_read_in_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framing, "BLOCK", 5)  # read_blocks reads it
    lines = LINE + b"\n\n" + LINE2 + b"\n"
    for index in (0, 1):
        side = load_side(_opener(lines), "A", "r.jsonl", index=index)
        assert side == load_side(lines, "A", "r.jsonl", index=index)
    stream = b"{}\n" * 3 + CALL
    assert load_side(_opener(stream), "A", "s", index=3) == load_side(stream, "A", "s", index=3)
    reply = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}'
    assert _report(CALL, CALL, reply=_opener(b"{}\n" + reply)) == _report(
        CALL, CALL, reply=b"{}\n" + reply
    )


def test_an_input_cut_short_between_readings_is_refused_not_a_crash() -> None:
    readings = iter([b"{}\n" * 3, b"{}\n" * 3, b"{}\n" * 3, b""])  # empty when analysed

    def opened() -> Reader:
        return io.BytesIO(next(readings))

    with pytest.raises(ValueError, match=r"s\.bin: empty input"):
        load_side(opened, "A", "s.bin")
