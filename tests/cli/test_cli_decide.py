"""``sealverify decide``: a policy what-if, offline, with the kernel's exact bytes."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sealverify import DEFAULT_KERNEL_SHA256 as CURRENT
from sealverify import KERNEL_PROFILES, MAX_FRAMES, what_if, what_if_report
from sealverify._internal.cli import decide_cmd
from sealverify._internal.cli.main import cli

PAYLOAD = json.dumps(
    {
        "epoch": 1,
        "safety": {
            "approval": {"control_file": "/tmp/a", "ttl_seconds": 60},
            "tools": [
                {"name": "read", "mode": "allow"},
                {"name": "db", "mode": "guarded", "target": [{"full_arguments": True}]},
            ],
        },
    },
    separators=(",", ":"),
)
KEY = Ed25519PrivateKey.from_private_bytes(bytes(32))
PUBKEY = KEY.public_key().public_bytes_raw().hex()


def _files(tmp_path: Path, *lines: str, sign: bool = True) -> tuple[str, str]:
    config = tmp_path / "trusted.json"
    envelope = {"payload": PAYLOAD}
    if sign:
        envelope["signature"] = KEY.sign(PAYLOAD.encode()).hex()
    config.write_text(json.dumps(envelope))
    frame = tmp_path / "frame.jsonl"
    frame.write_text("".join(line + "\n" for line in lines))
    return str(config), str(frame)


def _call(tool: str, args: dict[str, object], request_id: int = 1) -> str:
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call"}
    message["params"] = {"name": tool, "arguments": args}
    return json.dumps(message, separators=(",", ":"))


def test_forward_exits_0_and_block_exits_1(tmp_path: Path) -> None:
    config, frame = _files(tmp_path, _call("read", {}))
    result = CliRunner().invoke(
        cli, ["decide", "--config", config, "--config-pubkey", PUBKEY, frame]
    )
    assert result.exit_code == 0, result.output
    assert "config signature: verified" in result.output
    assert "route forward" in result.output and "explicit policy allow" in result.output
    config, frame = _files(tmp_path, _call("db", {"q": 1}))
    result = CliRunner().invoke(cli, ["decide", "--config", config, frame, "--format", "json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    step = report["steps"][0]
    assert step["route"] == "block" and step["certs"][0]["verdict"] == "deny"
    assert report["config_signature"] == "not checked: no public key (give --config-pubkey)"
    assert json.loads(step["emitted_bytes"])["route"] == "block"


def test_an_approval_forwards_once_and_expires(tmp_path: Path) -> None:
    config, frame = _files(tmp_path, _call("db", {"q": 1}), _call("db", {"q": 1}, 2))
    first = CliRunner().invoke(cli, ["decide", "--config", config, frame, "--format", "json"])
    target = json.loads(first.stdout)["steps"][0]["certs"][0]["reason"]
    args = ["decide", "--config", config, frame, "--format", "json", "--approval", target]
    result = CliRunner().invoke(cli, args)
    routes = [s["route"] for s in json.loads(result.stdout)["steps"]]
    assert routes == ["forward", "block"] and result.exit_code == 1  # one approval, one call
    late = CliRunner().invoke(cli, [*args[:-1], f"{target}@1", "--now", "70000"])
    assert [s["route"] for s in json.loads(late.stdout)["steps"]] == ["block", "block"]


def test_refused_line_and_bad_inputs(tmp_path: Path) -> None:
    config, frame = _files(tmp_path, '{"method":"tools/call","method":"x","params":{}}')
    result = CliRunner().invoke(cli, ["decide", "--config", config, frame])
    assert result.exit_code == 1 and "refused by the keys guard" in result.output
    bad = CliRunner().invoke(cli, ["decide", "--config", config, frame, "--approval", "xyz"])
    assert bad.exit_code == 2
    forged = CliRunner().invoke(
        cli, ["decide", "--config", config, "--config-pubkey", "11" * 32, frame]
    )
    assert forged.exit_code == 2 and "config signature verification failed" in forged.output
    missing = CliRunner().invoke(cli, ["decide", "--config", str(tmp_path / "nope"), frame])
    assert missing.exit_code == 2


def test_help() -> None:
    result = CliRunner().invoke(cli, ["decide", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "not the pinned seal.wasm" in text and "--approval TARGET[@MS]" in text


def test_builds_by_prefix(tmp_path: Path) -> None:
    tools = [{"name": "db", "mode": "guarded", "target": [{"literal": "db"}]}]
    payload = json.dumps(
        {"epoch": 1, "safety": {"approval": {"control_file": "/a"}, "tools": tools}},
        separators=(",", ":"),
    )
    config = tmp_path / "legacy.json"
    config.write_text(payload)
    frame = tmp_path / "frame.jsonl"
    frame.write_text(_call("db", {}) + "\n")
    current = CliRunner().invoke(cli, ["decide", "--config", str(config), str(frame)])
    assert current.exit_code == 2 and "guard mode requires target" in current.output
    legacy = CliRunner().invoke(
        cli, ["decide", "--config", str(config), str(frame), "--kernel-sha256", "d7d81e27"]
    )
    assert legacy.exit_code == 1 and "route block" in legacy.output
    assert "not checked: the config is a bare payload" in legacy.output
    unknown = CliRunner().invoke(
        cli, ["decide", "--config", str(config), str(frame), "--kernel-sha256", "abcdef12"]
    )
    assert unknown.exit_code == 2


def _lines(count: int) -> list[str]:
    return [_call(("read", "db")[i % 2], {"i": i}, i) for i in range(count)]


def test_the_streamed_report_is_the_report_rendered_whole(tmp_path: Path) -> None:
    # Written a step at a time, the json is json.dumps(what_if_report(...)) byte for byte.
    lines = [
        *_lines(5),
        "",
        '{"jsonrpc":"2.0","id":1,"method":"ping"}',
        '{"method":"x","method":1}',
    ]
    config, frame = _files(tmp_path, *lines)
    result = CliRunner().invoke(cli, ["decide", "--config", config, frame, "--format", "json"])
    envelope = json.loads(Path(config).read_text())
    whole = what_if(
        json.dumps(envelope), [line.encode() for line in lines if line], KERNEL_PROFILES[CURRENT]
    )
    assert result.exit_code == whole.exit_code == 1
    assert result.stdout == json.dumps(what_if_report(whole), indent=2, sort_keys=True) + "\n"


def test_the_summary_keeps_counts_and_the_first_routes(tmp_path: Path) -> None:
    config, frame = _files(tmp_path, *_lines(45))
    result = CliRunner().invoke(cli, ["decide", "--config", config, frame])
    routes = ", ".join(["forward", "block"] * 10)
    assert result.stderr == (
        f"sealverify decide: {routes}, ... (45 lines: 23 forward, 22 block) (28bb3ae7)\n"
    )


def test_max_frames_stops_reading_and_fails(tmp_path: Path) -> None:
    assert decide_cmd.MAX_FRAMES == MAX_FRAMES  # frame's default
    config, frame = _files(tmp_path, *_lines(3)[::2])  # two forwards
    args = ["decide", "--config", config, frame, "--format", "json", "--max-frames"]
    assert CliRunner().invoke(cli, [*args, "2"]).exit_code == 0
    result = CliRunner().invoke(cli, [*args, "1"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert [s["route"] for s in report["steps"]] == ["forward"]
    assert report["truncated"] == (
        "the input holds more than 1 frames (--max-frames): only the first 1 were decided, "
        "the rest were not read"
    )
    assert result.stderr == (
        "sealverify decide: forward (28bb3ae7); more than 1 in the input, the rest not decided\n"
    )
    wide = {"COLUMNS": "200"}  # the table is fitted: wide enough for the sentence on one line
    table = CliRunner().invoke(cli, [*args[:-3], "--max-frames", "1"], env=wide)
    assert table.exit_code == 1 and table.stdout.endswith("the rest were not read\n")


def test_a_long_input_is_decided_in_flat_memory(tmp_path: Path) -> None:
    # 700,000 lines of {} took 1.5 GB: every step was held and the report rendered in one
    # piece. Now each line is read, decided, written and dropped.
    count = 10_000  # --max-frames by default
    config, frame = _files(tmp_path, *(["{}"] * count))
    args = ["decide", "--config", config, frame, "--format", "json", "--output", os.devnull]
    tracemalloc.start()
    try:
        result = CliRunner().invoke(cli, args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.output
    assert peak < 4 * 2**20, peak  # held whole: about 2 kB a line
    assert "sealverify decide: passthrough, passthrough" in result.stderr
    assert f"({count} lines: {count} passthrough)" in result.stderr


def test_jsonl_is_a_step_line_per_line_then_a_summary(tmp_path: Path) -> None:
    config, frame = _files(tmp_path, *_lines(3))
    args = ["decide", "--config", config, frame, "--format"]
    whole = json.loads(CliRunner().invoke(cli, [*args, "json"]).stdout)
    result = CliRunner().invoke(cli, [*args, "jsonl", "--max-frames", "2"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert all(line.startswith('{"type":"step",') for line in lines[:-1])
    steps = [json.loads(line) for line in lines[:-1]]
    assert [{k: v for k, v in s.items() if k != "type"} for s in steps] == whole["steps"][:2]
    summary = json.loads(lines[-1])
    assert summary.pop("truncated").startswith("the input holds more than 2 frames")
    assert summary == {
        "type": "summary",
        **{k: v for k, v in whole.items() if k != "steps"},
        "exit_code": 1,
        "counts": {"forward": 1, "block": 1},
    }


def test_an_endless_line_is_refused_at_the_input_cap(tmp_path: Path) -> None:
    config, _ = _files(tmp_path)
    args = ["decide", "--config", config, "--max-input-bytes", "1K"]
    for data in (b"x" * 5000, b"\n".join([b"{}"] * 2000)):  # one line, or many, past the cap
        result = CliRunner().invoke(cli, [*args, "-"], input=data)
        assert result.exit_code == 2 and "more than 1024 bytes" in result.stderr
    if Path("/dev/zero").exists():  # a device has no size: read at most to the cap
        result = CliRunner().invoke(cli, [*args, "/dev/zero"])
        assert result.exit_code == 2 and "/dev/zero: more than 1024 bytes" in result.stderr
    fits = CliRunner().invoke(cli, [*args, "-"], input=_call("read", {}) + "\n")
    assert fits.exit_code == 0


def test_the_table_is_fitted_to_the_width_certs_whole() -> None:
    # The demo's emitted bytes are a 694-character line; drawn through the table renderer
    # every line fits the width, and each certHash stays whole on its row.
    fixtures = Path(__file__).parents[2] / "fixtures" / "decide"
    args = ["decide", "--config", str(fixtures / "signed-config.json"), str(fixtures / "calls.bin")]
    for columns in (80, 120):
        result = CliRunner().invoke(cli, args, env={"COLUMNS": str(columns)})
        assert result.exit_code == 1, result.output
        lines = result.stdout.splitlines()
        assert max(map(len, lines)) <= columns, max(lines, key=len)
        assert any("9006643612498967736" in line and "safety" in line for line in lines)
        assert "emitted bytes:" in result.stdout
