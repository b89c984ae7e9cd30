"""Real-client evidence: the official MCP Python SDK's own frames through `frame` and `diff`.

The SDK client (mcp 2.3.0, the `test` extra) drives a tiny MCPServer over stdio; the server
command is a shell pipeline whose `tee` keeps the exact bytes the client wrote (the capture
method of docs/research/mcp-2026-07-28.md §9, with our own code). Bounded in time; skipped
when mcp is not importable or no POSIX shell and tee are available.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli

pytest.importorskip("mcp", reason="the MCP Python SDK (test extra mcp==2.3.0) is not installed")

TRACE_1 = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
TRACE_2 = "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01"

SERVER = textwrap.dedent(
    """
    from mcp.server import MCPServer

    app = MCPServer("sealverify-diff-test")

    @app.tool()
    def search_notes(query: str, limit: int) -> str:
        return f"{limit} notes for {query}"

    app.run("stdio")
    """
)

CLIENT = textwrap.dedent(
    """
    import shlex, sys
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.types import Implementation

    TRACE_1, TRACE_2, workdir = sys.argv[1], sys.argv[2], sys.argv[3]

    async def main() -> None:
        pipeline = (f"tee {shlex.quote(workdir + '/c2s.bin')} | "
                    f"{shlex.quote(sys.executable)} {shlex.quote(workdir + '/server.py')}")
        params = StdioServerParameters(command="sh", args=["-c", pipeline])
        calls = [
            {"traceparent": TRACE_1, "progressToken": "tok-a"},
            {"traceparent": TRACE_2, "progressToken": "tok-a"},
            {"traceparent": TRACE_1, "progressToken": "tok-b"},
        ]
        with anyio.fail_after(60):
            async with Client(params, mode="2026-07-28",
                              client_info=Implementation(name="diff-test", version="0.1"),
                              log_level="info") as client:
                for meta in calls:
                    result = await client.call_tool(
                        "search_notes", {"query": "invoice 2291", "limit": 5}, meta=meta)
                    assert not result.is_error, result

    anyio.run(main)
    """
)


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("sh") is None or shutil.which("tee") is None:
        pytest.skip("needs a POSIX sh and tee to capture the client's exact frames")
    work = tmp_path_factory.mktemp("sdk")
    (work / "server.py").write_text(SERVER, encoding="utf-8")
    (work / "client.py").write_text(CLIENT, encoding="utf-8")
    try:
        done = subprocess.run(
            [sys.executable, str(work / "client.py"), TRACE_1, TRACE_2, str(work)],
            capture_output=True,
            timeout=120,
            cwd=work,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the SDK client/server exchange did not finish within 120 s")
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-2000:]
    return work / "c2s.bin"


def _tools_calls(stream: bytes) -> list[int]:
    """Indexes of tools/call lines, found with the standard json module (independent)."""
    lines = stream.split(b"\n")
    return [
        i for i, line in enumerate(lines) if line and json.loads(line).get("method") == "tools/call"
    ]


def _diff(path: Path, a: int, b: int) -> tuple[int, dict[str, object]]:
    result = CliRunner().invoke(
        cli,
        [
            "diff",
            str(path),
            str(path),
            "--index-a",
            str(a),
            "--index-b",
            str(b),
            "--format",
            "json",
        ],
    )
    facts = json.loads(result.stdout)["subjects"][0]["facts"]
    return result.exit_code, facts


def test_sdk_frames_are_admissible(capture: Path) -> None:
    stream = capture.read_bytes()
    assert len(_tools_calls(stream)) == 3
    result = CliRunner().invoke(cli, ["frame", str(capture), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    calls = [s for s in report["subjects"] if s["facts"]["method"] == "tools/call"]
    assert len(calls) == 3
    assert all(s["outcome"] == "ADMISSIBLE" for s in calls)
    # The SDK wrote the caller's traceparent values verbatim (seen by an independent parser).
    metas = [
        json.loads(line)["params"]["_meta"] for line in stream.split(b"\n") if b"tools/call" in line
    ]
    assert [m["traceparent"] for m in metas] == [TRACE_1, TRACE_2, TRACE_1]


@pytest.mark.parametrize(("which", "key"), [(1, "traceparent"), (2, "progressToken")])
def test_sdk_same_action_different_invocation(capture: Path, which: int, key: str) -> None:
    calls = _tools_calls(capture.read_bytes())
    code, facts = _diff(capture, calls[0], calls[which])
    assert code == 1
    assert facts["verdict"] == "same-action"
    text = facts["verdict_text"]
    assert isinstance(text, str)
    assert text.startswith("same action, different invocation (metadata only")
    assert key in text
    rows = facts["meta_keys"]
    assert isinstance(rows, list)
    assert [row["key"] for row in rows] == [key]
    assert rows[0]["option_c"].startswith("excluded from authority identity")
    identities = facts["identities"]
    assert isinstance(identities, dict)
    assert identities["effect_v3"]["equal"] is True
    assert identities["guard_target_meta_all"]["equal"] is False


def test_sdk_call_against_itself_is_identical(capture: Path) -> None:
    first = _tools_calls(capture.read_bytes())[0]
    code, facts = _diff(capture, first, first)
    assert (code, facts["verdict"]) == (0, "identical-bytes")
