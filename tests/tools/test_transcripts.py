"""Capture conditions from real traffic: the official MCP Python SDK recorded in the suite.

Each session is recorded here, at test time, from the SDK's own servers (`tests/helpers/sdk/`):
Streamable HTTP on localhost (modern, legacy, and a client that drops the version header)
and a stdio launch through `tee`. The expected capture facts are read off the recorded
headers and bodies by the tests themselves; the heldfast digests are recomputed with
`hashlib` and `rfc8785` over bodies built by hand.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.tools.transcripts import read_any, sse_messages

record = pytest.importorskip(
    "tests.helpers.sdk.record", reason="the mcp test extra is not installed"
)


def _strip_version_header(request: Any) -> None:
    if "mcp-protocol-version" in request.headers:
        del request.headers["mcp-protocol-version"]


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out: dict[str, Path] = {}
    root = tmp_path_factory.mktemp("transcripts")
    for name, mode, edit in (
        ("modern", "2026-07-28", None),
        ("legacy", "legacy", None),
        ("legacy-no-header", "legacy", _strip_version_header),
    ):
        path = root / f"{name}.http.json"
        path.write_text(json.dumps(record.record_http(mode, edit), indent=1))
        out[name] = path
    return out


@pytest.fixture(scope="module")
def stdio_session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("sh") is None or shutil.which("tee") is None:
        pytest.skip("sh and tee are needed to record a stdio launch")
    work = tmp_path_factory.mktemp("stdio")
    home = work / "reader-home"
    env = {**record.base_env(home), "NOTES_HOME_IN_DESCRIPTION": "1"}
    path = work / "launch.stdio.json"
    path.write_text(json.dumps(record.record_stdio("legacy", work, env), indent=1))
    return path, home


def digest(path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        cli, ["tools", "digest", str(path), "--profile", "heldfast", "--format", "json", *extra]
    )
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def capture_of(report: dict[str, Any]) -> dict[str, Any]:
    (tool_set,) = [s for s in report["subjects"] if s["name"] == "(tool set)"]
    block: dict[str, Any] = tool_set["facts"]["capture"]
    return block


def exchanges(path: Path) -> list[dict[str, Any]]:
    doc: dict[str, Any] = json.loads(path.read_text())
    return list(doc["exchanges"])


def header(headers: list[list[str]], name: str) -> str | None:
    found = [v for k, v in headers if k.lower() == name]
    return found[0] if found else None


def body(part: dict[str, Any]) -> bytes:
    return base64.b64decode(part["body_base64"])


def tools_list_exchange(path: Path) -> dict[str, Any]:
    (chosen,) = [
        e
        for e in exchanges(path)
        if e["request"]["method"] == "POST"
        and json.loads(body(e["request"])).get("method") == "tools/list"
    ]
    return chosen


def response_message(exchange: dict[str, Any]) -> dict[str, Any]:
    data = body(exchange["response"])
    kind = header(exchange["response"]["headers"], "content-type") or ""
    if kind.startswith("text/event-stream"):
        # An independent reading: the one `data:` line of the one message event.
        lines = [ln for ln in data.decode().splitlines() if ln.startswith("data: ")]
        data = lines[-1][len("data: ") :].encode()
    message: dict[str, Any] = json.loads(data)
    return message


def heldfast(tool: dict[str, Any]) -> str:
    body_: dict[str, Any] = {
        "name": tool.get("name") or "",
        "title": tool.get("title") or "",
        "description": tool.get("description") or "",
        "input_schema": tool.get("inputSchema") or {},
        "annotations": tool.get("annotations") or {},
    }
    if tool.get("outputSchema"):
        body_["output_schema"] = tool["outputSchema"]
    return hashlib.sha256(rfc8785.dumps(body_)).hexdigest()


# --------------------------------------------------------------------------- Streamable HTTP


def test_modern_http_session_gives_its_capture_block(sessions: dict[str, Path]) -> None:
    exchange = tools_list_exchange(sessions["modern"])
    request = json.loads(body(exchange["request"]))
    sent_header = header(exchange["request"]["headers"], "mcp-protocol-version")
    asked = request["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
    assert sent_header == asked == "2026-07-28"
    code, report = digest(sessions["modern"])
    assert code == 0, report
    assert capture_of(report) == {
        "transport": "streamable-http",
        "protocol": {"requested": asked, "negotiated": asked, "versionHeader": True},
        "pages": {"read": 1, "complete": True},
        "clientCapabilities": sorted(
            request["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
        ),
    }
    tools = response_message(exchange)["result"]["tools"]
    digests = {s["name"]: s["facts"]["digest"] for s in report["subjects"] if s["name"][0] != "("}
    assert digests == {t["name"]: heldfast(t) for t in tools}
    assert {"add", "read_note"} <= set(digests)


def test_legacy_http_session_reads_event_streams_and_the_handshake(
    sessions: dict[str, Path],
) -> None:
    first = exchanges(sessions["legacy"])[0]
    init = json.loads(body(first["request"]))
    assert init["method"] == "initialize"
    assert header(first["response"]["headers"], "content-type") == "text/event-stream"
    negotiated = response_message(first)["result"]["protocolVersion"]
    later = [
        header(e["request"]["headers"], "mcp-protocol-version")
        for e in exchanges(sessions["legacy"])[1:]
    ]
    assert later and all(v == negotiated for v in later)
    code, report = digest(sessions["legacy"])
    assert code == 0
    protocol = capture_of(report)["protocol"]
    assert protocol == {
        "requested": init["params"]["protocolVersion"],
        "negotiated": negotiated,
        "versionHeader": True,
    }
    tools = response_message(tools_list_exchange(sessions["legacy"]))["result"]["tools"]
    got = {s["name"]: s["facts"]["digest"] for s in report["subjects"] if s["name"][0] != "("}
    assert got == {t["name"]: heldfast(t) for t in tools}


def test_a_client_without_the_version_header_is_recorded_as_such(
    sessions: dict[str, Path],
) -> None:
    path = sessions["legacy-no-header"]
    assert all(
        header(e["request"]["headers"], "mcp-protocol-version") is None for e in exchanges(path)
    )
    _, report = digest(path)
    assert capture_of(report)["protocol"]["versionHeader"] is False
    findings = {f["id"] for f in report["findings"]}
    assert "tools.capture.no-version-header" in findings


def test_readings_with_and_without_the_header_are_not_compared_as_drift(
    sessions: dict[str, Path],
) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "tools",
            "compare",
            str(sessions["legacy"]),
            str(sessions["legacy-no-header"]),
            "--format",
            "json",
        ],
    )
    report = json.loads(result.stdout)
    assert result.exit_code == 1
    assert report["summary"]["state"] == "not-comparable"
    differences = [c for c in report["findings"] if c["id"] == "tools.compare.capture-difference"]
    assert any("versionHeader" in c["reason"] for c in differences)


def test_two_modern_readings_compare_clean(sessions: dict[str, Path], tmp_path: Path) -> None:
    again = tmp_path / "again.http.json"
    again.write_text(json.dumps(record.record_http("2026-07-28")))
    result = CliRunner().invoke(
        cli, ["tools", "compare", str(sessions["modern"]), str(again), "--format", "json"]
    )
    assert result.exit_code == 0, result.stdout
    assert json.loads(result.stdout)["summary"]["state"] != "not-comparable"


def test_a_har_log_of_the_same_session_reads_the_same(
    sessions: dict[str, Path], tmp_path: Path
) -> None:
    entries = []
    for e in exchanges(sessions["legacy"]):
        req, resp = e["request"], e["response"]
        entries.append(
            {
                "request": {
                    "method": req["method"],
                    "url": req["url"],
                    "headers": [{"name": k, "value": v} for k, v in req["headers"]],
                    "postData": {"mimeType": "application/json", "text": body(req).decode()},
                },
                "response": {
                    "status": resp["status"],
                    "headers": [{"name": k, "value": v} for k, v in resp["headers"]],
                    "content": {"encoding": "base64", "text": resp["body_base64"]},
                },
            }
        )
    har = tmp_path / "session.har"
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}))
    _, from_har = digest(har)
    _, from_ours = digest(sessions["legacy"])
    assert capture_of(from_har) == capture_of(from_ours)
    assert from_har["summary"]["toolset_digest"] == from_ours["summary"]["toolset_digest"]


def test_declared_version_header_loses_to_the_recorded_headers(
    sessions: dict[str, Path], tmp_path: Path
) -> None:
    declared = tmp_path / "capture.json"
    declared.write_text(json.dumps({"protocol": {"versionHeader": True}}))
    code, report = digest(sessions["legacy-no-header"], "--capture", str(declared))
    assert code == 1
    conflicts = [f for f in report["findings"] if f["id"] == "capture.declared.conflict"]
    assert [f["location"] for f in conflicts] == ["capture/protocol/versionHeader"]
    assert capture_of(report)["protocol"]["versionHeader"] is False


# --------------------------------------------------------------------------- stdio launch


def test_stdio_launch_transcript_gives_the_launch_block(
    stdio_session: tuple[Path, Path],
) -> None:
    path, home = stdio_session
    doc = json.loads(path.read_text())
    code, report = digest(path)
    block = capture_of(report)
    assert block["transport"] == "stdio"
    assert block["launch"] == {
        "args": doc["launch"]["args"],
        "envNames": sorted(doc["launch"]["env"]),
        "home": str(home),
    }
    c2s = base64.b64decode(doc["c2s_base64"]).split(b"\n")
    init = json.loads(c2s[0])
    assert block["protocol"]["requested"] == init["params"]["protocolVersion"]
    # Values other than HOME are never published.
    text = json.dumps(report)
    assert doc["launch"]["env"]["EXAMPLE_API_KEY"] not in text
    assert "capture.env-values-withheld" in {f["id"] for f in report["findings"]}
    # The server quoted the reader's HOME in a definition: rule 4 flags it.
    flagged = [
        s["name"]
        for s in report["subjects"]
        for c in s["checks"]
        if c["id"] == "tools.capture.reader-environment"
    ]
    assert flagged == ["list_notes"]
    assert code == 1


def test_stdio_launch_transcript_equals_its_two_streams(
    stdio_session: tuple[Path, Path], tmp_path: Path
) -> None:
    path, _ = stdio_session
    doc = json.loads(path.read_text())
    s2c, c2s = tmp_path / "s2c.bin", tmp_path / "c2s.bin"
    s2c.write_bytes(base64.b64decode(doc["s2c_base64"]))
    c2s.write_bytes(base64.b64decode(doc["c2s_base64"]))
    _, streams = digest(s2c, "--requests", str(c2s))
    _, launch = digest(path)
    assert streams["summary"]["toolset_digest"] == launch["summary"]["toolset_digest"]
    assert capture_of(streams)["protocol"] == capture_of(launch)["protocol"]
    assert "launch" not in capture_of(streams)


# --------------------------------------------------------------------------- hostile input


@pytest.mark.parametrize(
    "doc",
    [
        {"format": "sealverify._internal.mcp-http-transcript/v1", "exchanges": {}},
        {"format": "sealverify._internal.mcp-http-transcript/v1", "exchanges": [{"request": {}}]},
        {
            "format": "sealverify._internal.mcp-http-transcript/v1",
            "exchanges": [
                {
                    "request": {"method": "POST", "headers": [], "body_base64": "%%"},
                    "response": {"status": 200, "headers": []},
                }
            ],
        },
        {
            "format": "sealverify._internal.mcp-http-transcript/v1",
            "exchanges": [
                {
                    "request": {"method": "POST", "headers": [["a"]]},
                    "response": {"status": 200, "headers": []},
                }
            ],
        },
        {"format": "sealverify._internal.mcp-stdio-transcript/v1", "s2c_base64": 7},
        {"format": "sealverify._internal.mcp-stdio-transcript/v1", "s2c_base64": "", "launch": []},
        {"format": "sealverify._internal.mcp-other/v9"},
        {"log": {"entries": [{"request": {"method": "POST", "headers": []}}]}},
    ],
)
def test_malformed_transcripts_are_exit_2(doc: Any, tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    result = CliRunner().invoke(cli, ["tools", "digest", str(path), "--profile", "heldfast"])
    assert result.exit_code == 2, result.output


def test_a_transcript_takes_no_requests_file(sessions: dict[str, Path]) -> None:
    args = ["tools", "digest", str(sessions["modern"]), "--profile", "heldfast"]
    result = CliRunner().invoke(cli, [*args, "--requests", str(sessions["modern"])])
    assert result.exit_code == 2


def _one_exchange(response_headers: list[list[str]], response_body: bytes) -> bytes:
    request = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
    return json.dumps(
        {
            "format": "sealverify._internal.mcp-http-transcript/v1",
            "exchanges": [
                {
                    "request": {
                        "method": "POST",
                        "headers": [["Content-Type", "application/json"]],
                        "body_base64": base64.b64encode(request).decode(),
                    },
                    "response": {
                        "status": 200,
                        "headers": response_headers,
                        "body_base64": base64.b64encode(response_body).decode(),
                    },
                }
            ],
        }
    ).encode()


def test_broken_bodies_are_findings_not_crashes() -> None:
    stream = [["content-type", "text/event-stream"]]
    for headers, data in (
        (stream, b"data: \xff\xfe\n\n"),
        (stream, b"data: {not json\n\n"),
        ([["content-type", "application/json"]], b'{"jsonrpc":"2.0","id":1,"id":1}'),
    ):
        listing = read_any(_one_exchange(headers, data))
        ids = {c.id for c in listing.findings}
        assert "tools.input.bad-frame" in ids
        assert "tools.input.no-listing" in ids


def test_sse_messages_follow_the_event_stream_format() -> None:
    data = (
        b": comment\r\nid: 1\r\nretry: 5\r\ndata:\r\n\r\n"
        b'event: message\r\ndata: {"a":\r\ndata:  1}\r\n\r\n'
        b"event: ping\ndata: x\n\n"
        b'data:{"b":2}\r\r'
    )
    assert sse_messages(data) == [b'{"a":\n 1}', b'{"b":2}']
