"""`sealverify frame` through click: exit codes, JSON output, --help, bundled fixtures."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

from sealverify._internal.cli.main import cli, command_modules
from tests.conftest import ROOT, shared_path

FIXTURES = ROOT / "fixtures" / "frames"


def _run(*args: str, input: bytes | None = None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_admissible_frame_exits_0_and_reports_identities() -> None:
    result = _run("frame", str(FIXTURES / "call.bin"), "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    subject = report["subjects"][0]
    assert subject["outcome"] == "ADMISSIBLE"
    ids = subject["facts"]["identities"]
    assert set(ids) >= {
        "canonical_request_sha256",
        "args_hash",
        "guard_target_meta_all",
        "effect_v3",
        "effect_v4",
        "legacy_canonical_request_sha256",
    }


def test_refused_frame_exits_1_with_wire_error() -> None:
    result = _run("frame", str(FIXTURES / "refused-meta-null.bin"), "--format", "json")
    assert result.exit_code == 1
    check = json.loads(result.stdout)["subjects"][0]["checks"][0]
    assert check["id"] == "meta.not-object" and check["data"]["wire_error"] == -32602


def test_trace_only_difference_keeps_action_and_changes_invocation() -> None:
    reports = [
        json.loads(_run("frame", str(FIXTURES / name), "--format", "json").stdout)
        for name in ("call.bin", "call-other-trace.bin")
    ]
    a, b = (r["subjects"][0]["facts"]["identities"] for r in reports)
    assert a["effect_v3"] == b["effect_v3"] and a["args_hash"] == b["args_hash"]
    assert a["guard_target_meta_all"] != b["guard_target_meta_all"]


def test_unreadable_input_exits_2() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "sealverify._internal.cli.main", "frame", "/nonexistent"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "cannot read" in out.stderr


def test_bad_flag_exits_2() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "sealverify._internal.cli.main", "frame", "--era", "bogus", "x"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2


def test_stdin_and_http_transport() -> None:
    body = (FIXTURES / "call.bin").read_bytes().rstrip(b"\n")
    result = _run("frame", "-", "--transport", "http", "--format", "json", input=body)
    assert result.exit_code == 0
    facts = json.loads(result.stdout)["subjects"][0]["facts"]
    assert facts["terminator"] == "http-body"
    assert facts["exact_frame_sha256"] == facts["raw_line_sha256"]


def test_index_selects_frames_and_out_of_range_is_usage_error() -> None:
    data = shared_path("frames", "mcp-python-sdk-2.3.0", "legacy-handshake.c2s.bin")
    result = _run("frame", str(data), "--era", "auto", "--index", "2", "--format", "json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert [s["facts"]["method"] for s in report["subjects"]] == ["tools/call"]
    assert [s["name"].rsplit("#", 1)[1] for s in report["subjects"]] == ["2"]  # its own number
    assert _run("frame", str(data), "--index", "99").exit_code == 2


def test_output_file_is_written_only_on_completion(tmp_path) -> None:
    target = tmp_path / "report.json"
    result = _run("frame", str(FIXTURES / "call.bin"), "--format", "json", "--output", str(target))
    assert result.exit_code == 0 and result.stdout == ""
    assert json.loads(target.read_text())["command"] == "frame"
    assert not (tmp_path / "report.json.partial").exists()


def test_json_output_is_byte_stable() -> None:
    first = _run("frame", str(FIXTURES / "call.bin"), "--format", "json").stdout
    second = _run("frame", str(FIXTURES / "call.bin"), "--format", "json").stdout
    assert first == second


def test_help_on_every_command() -> None:
    assert _run("--help").exit_code == 0
    for name in command_modules():
        result = _run(name, "--help")
        assert result.exit_code == 0 and "Usage" in result.stdout, name


def test_a_chosen_frame_keeps_its_number_in_the_stream() -> None:
    listing = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'
    call = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}\n'
    result = _run("frame", "-", "--index", "1", "--format", "json", input=listing + call)
    names = [s["name"] for s in json.loads(result.stdout)["subjects"]]
    assert names == ["-#1"]  # the second frame of the stream, not "#0" of the ones chosen
