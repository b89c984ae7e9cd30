"""``tools`` reads its stdio captures a frame at a time and reports what the whole read did.

The reference is the reading ``tools digest`` and ``tools compare`` did before they streamed:
each capture read whole (``read_input``), split with ``iter_stdio`` over its bytes, every
request and reply held, and ``one_value`` over the whole bytes. It is kept here, as it was,
and the command's report (JSON and table) must be byte-identical to it over hostile captures:
a BOM, CR LF, no final newline, invalid UTF-8, truncated frames, lines longer than a block,
blank and empty streams, pages whose cursors do not follow.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify import ToolsSource
from sealverify._internal.cli import tools_cmd
from sealverify._internal.cli.common import read_input
from sealverify._internal.cli.main import cli
from sealverify._internal.tools import digests, transcripts
from sealverify._internal.tools.digests import (
    Listing,
    _frame_json,
    collect_pages,
    note_request,
    one_value,
)
from sealverify._internal.wire.framing import BLOCK, iter_stdio
from sealverify._internal.wire.strictjson import JsonError, JsonValue, parse_bytes

# --- the whole-bytes reading, as it was ------------------------------------------------------


def _old_one_value(data: bytes) -> JsonValue | None:
    end = data.find(b"\n")
    if 0 <= end < len(data) - 1 and data[end:].strip(b" \t\r\n"):
        try:
            parse_bytes(data[:end])
        except JsonError:
            pass
        else:
            return None
    try:
        return parse_bytes(data)
    except JsonError:
        return None


def _old_from_transcript(s2c: bytes, c2s: bytes | None, listing: Listing) -> None:
    listing.transport = "stdio"
    requests: dict[str, dict[str, JsonValue]] = {}
    if c2s is not None:
        for i, frame in enumerate(iter_stdio(c2s)):
            msg = _frame_json(frame, i, listing, "c2s")
            if isinstance(msg, dict) and isinstance(msg.get("method"), str) and "id" in msg:
                requests[repr(msg["id"])] = msg
                note_request(msg, listing)
    replies: list[tuple[str, dict[str, JsonValue] | None, dict[str, JsonValue]]] = []
    for i, frame in enumerate(iter_stdio(s2c)):
        msg = _frame_json(frame, i, listing, "s2c")
        if not isinstance(msg, dict) or "method" in msg:
            continue
        request = requests.get(repr(msg.get("id"))) if "id" in msg else None
        replies.append((f"s2c#{i}", request, msg))
    collect_pages(replies, listing)


def _old_source(source: str, requests: str | None, capture: str | None) -> ToolsSource:
    return ToolsSource(
        read_input(source),
        name=source,
        requests=read_input(requests) if requests else None,
        capture=read_input(capture) if capture is not None else None,
        capture_name=capture or "--capture",
    )


def _whole_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tools_cmd, "_source", _old_source)
    monkeypatch.setattr(digests, "_from_transcript", _old_from_transcript)
    monkeypatch.setattr(digests, "one_value", _old_one_value)
    monkeypatch.setattr(transcripts, "one_value", _old_one_value)


# --- hostile captures ------------------------------------------------------------------------


def _reply(rid: object, tools: list[object], cursor: str | None = None) -> bytes:
    result: dict[str, object] = {"tools": tools}
    if cursor is not None:
        result["nextCursor"] = cursor
    return json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode()


def _list_request(rid: object, cursor: str | None = None) -> bytes:
    params: dict[str, object] = {} if cursor is None else {"cursor": cursor}
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": params})


TOOL = {"name": "a", "description": "d", "inputSchema": {"type": "object"}}
TOOL_B = {"name": "b", "inputSchema": {"type": "object"}}
NOTE = b'{"jsonrpc":"2.0","method":"notifications/message"}'
LONG = b'{"jsonrpc":"2.0","method":"n","params":{"d":"' + b"x" * (3 * BLOCK) + b'"}}'
INIT = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    b'"capabilities":{"roots":{}}}}'
)
INIT_REPLY = b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}'
PING = b'{"jsonrpc":"2.0","id":7,"method":"ping"}'

CAPTURES: dict[str, tuple[bytes, bytes | None]] = {
    "plain": (NOTE + b"\n" + _reply(1, [TOOL]) + b"\n", None),
    "bom": (b"\xef\xbb\xbf" + _reply(1, [TOOL]) + b"\n" + _reply(2, [TOOL_B]) + b"\n", None),
    "crlf": (NOTE + b"\r\n" + _reply(1, [TOOL]) + b"\r\n", INIT + b"\r\n" + PING + b"\r\n"),
    "no final newline": (NOTE + b"\n" + _reply(1, [TOOL]), _list_request(1).encode()),
    "invalid utf-8": (b'{"a":"\xff\xfe"}\n' + _reply(1, [TOOL]) + b"\n\xc3\n", b"\xff\n"),
    "truncated frames": (_reply(1, [TOOL])[:-7] + b"\n" + _reply(2, [TOOL])[:40], None),
    "huge lines": (LONG + b"\n" + _reply(1, [TOOL]) + b"\n" + LONG, LONG + b"\n" + INIT),
    "huge truncated": (_reply(1, [TOOL]) + b"\n" + LONG[: 2 * BLOCK + 5], None),
    "empty": (b"", b""),
    "blank lines": (b"\n\r\n \t\n" * 3, b"\n\n"),
    "blank first line": (b"\n" + _reply(1, [TOOL]) + b"\n" + NOTE + b"\n", None),
    "a log line first": (b"server started\n" + _reply(1, [TOOL]) + b"\n", None),
    "a scalar, then blank lines": (b"\n 17 \n\n\r\n", None),
    "an array over lines": (b"[\n" + _reply(1, [TOOL]) + b"\n]\n", None),
    "pretty document": (json.dumps({"tools": [TOOL] * 3000}, indent=2).encode(), None),
    "document then more": (_reply(1, [TOOL]) + b"\n" + NOTE + b"\n", None),
    "pages and a ping": (
        INIT_REPLY
        + b"\n"
        + _reply(7, [TOOL_B])
        + b"\n"
        + _reply(1, [TOOL], "c1")
        + b"\n"
        + _reply(2, [TOOL_B])
        + b"\n",
        b"\n".join([INIT, PING, _list_request(1).encode(), _list_request(2, "c1").encode()]),
    ),
    "cursor mismatch": (
        _reply(1, [TOOL], "c1") + b"\n" + _reply(2, [TOOL_B]) + b"\n" + _reply(3, [TOOL]),
        b"\n".join([_list_request(1).encode(), _list_request(2, "zz").encode(), PING]),
    ),
    "repeated ids": (
        _reply(1, [TOOL]) + b"\n" + _reply(1, [TOOL_B], "c") + b"\n",
        _list_request(1).encode() + b"\n" + PING.replace(b"7", b"1") + b"\n",
    ),
}
PAD = NOTE + b"\n"  # a line the streams can start with, to take them past one block


def _variants() -> list[tuple[str, bytes, bytes | None]]:
    out = []
    for name, (s2c, c2s) in CAPTURES.items():
        out.append((name, s2c, c2s))
        padded = PAD * (BLOCK // len(PAD) + 1)  # read as a stream, not held
        out.append((f"{name}, past a block", padded + s2c, None if c2s is None else padded + c2s))
    return out


def _run(tmp: Path, s2c: bytes, c2s: bytes | None, args: list[str]) -> tuple[int, bytes]:
    stream = tmp / "s2c.bin"
    stream.write_bytes(s2c)
    extra: list[str] = []
    if c2s is not None:
        (tmp / "c2s.bin").write_bytes(c2s)
        extra = ["--requests", str(tmp / "c2s.bin")]
    if args[0] == "compare":
        extra = [str(stream)] + (
            ["--requests-a", extra[1], "--requests-b", extra[1]] if extra else []
        )
    result = CliRunner().invoke(cli, ["tools", *args, str(stream), *extra])
    return result.exit_code, result.stdout_bytes


@pytest.mark.parametrize(("name", "s2c", "c2s"), _variants(), ids=lambda v: str(v)[:40])
@pytest.mark.parametrize("args", [["digest", "--format", "json"], ["digest"],
                                  ["compare", "--format", "json"]])  # fmt: skip
def test_streamed_report_is_the_whole_read_report(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    s2c: bytes,
    c2s: bytes | None,
    args: list[str],
) -> None:
    new = _run(tmp_path, s2c, c2s, args)
    with monkeypatch.context() as patch:
        _whole_reading(patch)
        old = _run(tmp_path, s2c, c2s, args)
    assert new == old
    assert new[0] in (0, 1)


def test_the_reference_reads_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The patched reading is the old one: it calls iter_stdio over the capture's whole bytes."""
    seen: list[int] = []
    split = iter_stdio

    def counting(stream: bytes) -> object:
        seen.append(len(stream))
        return split(stream)

    s2c, c2s = CAPTURES["huge lines"]
    _whole_reading(monkeypatch)
    monkeypatch.setattr(f"{__name__}.iter_stdio", counting)
    _run(tmp_path, s2c, c2s, ["digest"])
    assert sorted(seen) == sorted([len(s2c), len(c2s or b"")])


def _opener(data: bytes) -> Callable[[], io.BytesIO]:
    return lambda: io.BytesIO(data)


_PIECES = [b"{", b"}", b"[", b"]", b'"a"', b"1", b":", b",", b" ", b"\n", b"\r\n", b"\t",
           b'{"a":1}', b"[1,2]", b"null", b'"x\\n"', b"\xef\xbb\xbf", b"{}", b'"', b"-",
           b"x", b"\n\n", b"2e5", b"\xff"]  # fmt: skip


@settings(max_examples=3000)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map(b"".join))
def test_one_value_of_a_stream_is_of_its_bytes(data: bytes) -> None:
    assert one_value(_opener(data)) == one_value(data) == _old_one_value(data)
