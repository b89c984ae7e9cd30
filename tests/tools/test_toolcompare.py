"""Seed 004 §3 rules 1-4: each comparability rule with a passing and a failing case; drift."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.tools.compare import Reading, capture_differences, compare, json_diff
from sealverify._internal.tools.digests import PROFILES
from tests.conftest import shared_path

HELDFAST = PROFILES["heldfast"]
RUGSNARE = PROFILES["rugsnare"]
TOOLS = [
    {"name": "read", "description": "Read a file.", "inputSchema": {"type": "object"}},
    {"name": "write", "description": "Write a file.", "inputSchema": {"type": "object"}},
]


def _cap(**overrides: Any) -> dict[str, Any]:
    block: dict[str, Any] = {
        "transport": "stdio",
        "protocol": {"requested": "2025-06-18", "negotiated": "2025-06-18", "versionHeader": False},
        "pages": {"read": 1, "complete": True},
        "launch": {
            "package": "npm:example-mcp",
            "resolvedVersion": "1.2.3",
            "args": ["--stdio"],
            "envNames": ["EXAMPLE_API_KEY"],
            "envValues": "placeholder",
            "network": "none",
            "home": "/home/reader",
        },
    }
    for path, value in overrides.items():
        section, _, key = path.partition("__")
        block[section][key] = value
    return block


def _reading(label: str, tools: list[dict[str, Any]], capture: dict[str, Any]) -> Reading:
    return Reading(label, [(f"/tools/{i}", t) for i, t in enumerate(tools)], capture)


def _ids(report: Any) -> set[str]:
    return {c.id for c in report.findings} | {c.id for s in report.subjects for c in s.checks}


# --- rule 1: complete lists only ----------------------------------------------------------------


def test_rule1_pass_both_complete() -> None:
    report = compare(_reading("A", TOOLS, _cap()), _reading("B", TOOLS, _cap()), HELDFAST)
    assert report.summary["state"] == "no-drift" and report.exit_code == 0
    assert "tools.compare.complete" in _ids(report)


def test_rule1_fail_incomplete_never_compared_with_complete() -> None:
    stopped = _cap(pages__complete=False)
    changed = [dict(TOOLS[0], description="changed"), TOOLS[1]]
    report = compare(_reading("A", TOOLS, _cap()), _reading("B", changed, stopped), HELDFAST)
    assert report.exit_code == 1 and report.summary["state"] == "not-comparable"
    assert "tools.compare.incomplete" in _ids(report)
    assert report.subjects == ()  # nothing diffed: not even a capture difference per tool
    assert not any(i.startswith("tools.drift") for i in _ids(report))


# --- rule 2/3: negotiated protocol and version header ---------------------------------------


def test_rule3_protocol_pass_same_negotiated() -> None:
    checks, comparable = capture_differences(_cap(), _cap(protocol__requested="2025-03-26"))
    assert comparable  # `requested` alone does not matter; `negotiated` does
    assert not [c for c in checks if c.status == "fail"]


def test_rule3_protocol_fail_negotiated_differs_reports_capture_not_drift() -> None:
    other = _cap(protocol__negotiated="2024-11-05")
    changed = [dict(TOOLS[0], outputSchema={"type": "object", "properties": {}}), TOOLS[1]]
    report = compare(_reading("A", TOOLS, _cap()), _reading("B", changed, other), HELDFAST)
    assert report.exit_code == 1 and report.summary["state"] == "not-comparable"
    ids = _ids(report)
    assert "tools.compare.capture-difference" in ids
    assert not any(i.startswith("tools.drift.changed") for i in ids)
    read = next(s for s in report.subjects if s.name == "read")
    assert read.label == "capture-difference"
    assert any(c.location == "/outputSchema" for c in read.checks)


def test_rule2_version_header_pass_and_fail() -> None:
    _, same = capture_differences(
        _cap(protocol__versionHeader=True), _cap(protocol__versionHeader=True)
    )
    checks, differs = capture_differences(_cap(protocol__versionHeader=True), _cap())
    assert same and not differs
    assert any(c.location == "/capture/protocol/versionHeader" for c in checks)


def test_rule3_member_known_on_one_side_only_is_a_difference() -> None:
    partial = _cap()
    del partial["protocol"]["negotiated"]
    checks, comparable = capture_differences(_cap(), partial)
    assert not comparable
    assert any("not known for reading B" in c.reason for c in checks)


def test_rule3_member_known_on_neither_side_is_named_not_assumed() -> None:
    a, b = _cap(), _cap()
    for block in (a, b):
        del block["protocol"]["versionHeader"]
    checks, comparable = capture_differences(a, b)
    assert comparable
    assert any(
        c.id == "tools.compare.capture-unknown" and c.status == "not-evaluated" for c in checks
    )


# --- rule 3: launch -----------------------------------------------------------------------------


def test_rule3_launch_pass_same_launch() -> None:
    _, comparable = capture_differences(_cap(), _cap(launch__home="/home/other"))
    assert comparable  # home is recorded for rule 4, not a comparability member


def test_rule3_launch_fail_network_or_args_differ() -> None:
    for override in (
        {"launch__network": "full"},
        {"launch__args": ["--http"]},
        {"launch__resolvedVersion": "1.2.4"},
        {"launch__envValues": "real"},
        {"launch__envNames": []},
    ):
        checks, comparable = capture_differences(_cap(), _cap(**override))
        assert not comparable, override
        assert any(c.id == "tools.compare.capture-difference" for c in checks)


# --- rule 4: reader environment -----------------------------------------------------------------


def test_rule4_pass_clean_definitions() -> None:
    report = compare(
        _reading("A", TOOLS, _cap()),
        _reading("B", TOOLS, _cap()),
        HELDFAST,
        placeholders=("PLACEHOLDER-KEY",),
    )
    assert "tools.compare.reader-environment" not in _ids(report)


def test_rule4_fail_home_or_placeholder_flagged() -> None:
    homed = [dict(TOOLS[0], description="Files under /home/reader/work"), TOOLS[1]]
    keyed = [TOOLS[0], dict(TOOLS[1], inputSchema={"default": "PLACEHOLDER-KEY"})]
    report = compare(
        _reading("A", homed, _cap()),
        _reading("B", keyed, _cap()),
        HELDFAST,
        placeholders=("PLACEHOLDER-KEY",),
    )
    flags = [c for c in report.findings if c.id == "tools.compare.reader-environment"]
    assert sorted(c.location for c in flags) == [
        "A:/tools/0/description",
        "B:/tools/1/inputSchema/default",
    ]
    assert report.exit_code == 1
    assert "PLACEHOLDER-KEY" not in json.dumps(report.to_dict())


# --- drift --------------------------------------------------------------------------------------


def test_drift_added_removed_changed_with_pointers() -> None:
    b_tools = [
        dict(TOOLS[0], inputSchema={"type": "object", "required": ["path"]}),
        {"name": "delete", "description": "Delete."},
    ]
    report = compare(_reading("A", TOOLS, _cap()), _reading("B", b_tools, _cap()), HELDFAST)
    assert report.summary["state"] == "drift" and report.exit_code == 1
    assert (report.summary["added"], report.summary["removed"], report.summary["changed"]) == (
        1,
        1,
        1,
    )
    by_name = {s.name: s for s in report.subjects}
    assert by_name["delete"].outcome == "added"
    assert by_name["write"].outcome == "removed"
    changed = [c for c in by_name["read"].checks if c.id == "tools.drift.changed"]
    assert [c.location for c in changed] == ["/inputSchema/required"]


def test_difference_outside_profile_is_not_drift() -> None:
    annotated = [dict(TOOLS[0], annotations={"readOnlyHint": True}), TOOLS[1]]
    report = compare(_reading("A", TOOLS, _cap()), _reading("B", annotated, _cap()), RUGSNARE)
    assert report.summary["state"] == "no-drift"
    assert "tools.compare.outside-profile" in _ids(report)
    under_heldfast = compare(
        _reading("A", TOOLS, _cap()), _reading("B", annotated, _cap()), HELDFAST
    )
    assert under_heldfast.summary["state"] == "drift"


def test_json_diff_numbers_compare_as_javascript() -> None:
    assert json_diff({"m": 1}, {"m": 1.0}) == []
    assert json_diff({"m": True}, {"m": 1}) == [("changed", "/m")]
    assert json_diff({"a/b": 1}, {}) == [("removed", "/a~1b")]


# --- CLI ----------------------------------------------------------------------------------------


def _write(path: Path, tools: list[dict[str, Any]], capture: dict[str, Any] | None) -> str:
    doc: dict[str, Any] = {"tools": tools}
    if capture is not None:
        doc["capture"] = capture
    path.write_text(json.dumps(doc))
    return str(path)


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_compare_table_and_json(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.json", TOOLS, _cap())
    b = _write(tmp_path / "b.json", TOOLS, _cap())
    table = _run("tools", "compare", a, b)
    assert table.exit_code == 0, table.output
    assert "read" in table.stdout and "unchanged" in table.stdout
    js = _run("tools", "compare", a, b, "--format", "json")
    assert json.loads(js.stdout)["summary"]["state"] == "no-drift"


def test_cli_compare_drift_exits_1(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.json", TOOLS, _cap())
    b = _write(tmp_path / "b.json", TOOLS[:1], _cap())
    result = _run("tools", "compare", a, b, "--format", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["summary"]["removed"] == 1


def test_cli_compare_capture_flag_overrides_embedded(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.json", TOOLS, _cap())
    b = _write(tmp_path / "b.json", TOOLS, _cap())
    cap = tmp_path / "cap.json"
    cap.write_text(json.dumps(_cap(launch__network="full")))
    result = _run("tools", "compare", a, b, "--capture-b", str(cap), "--format", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["summary"]["state"] == "not-comparable"


def test_cli_compare_unreadable_exits_2(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.json", TOOLS, None)
    assert _run("tools", "compare", a, str(tmp_path / "missing.json")).exit_code == 2


def test_cli_compare_real_sdk_sessions_differ_in_capture() -> None:
    # The same fixture server read through a 2025-11-25 handshake and a 2026-07-28 session:
    # the negotiated versions differ, so any difference is a capture difference, never drift.
    folder = shared_path("frames", "mcp-python-sdk-2.3.0")
    legacy, modern = folder / "legacy-handshake", folder / "modern-diff-base"
    result = _run(
        "tools",
        "compare",
        f"{legacy}.s2c.bin",
        f"{modern}.s2c.bin",
        "--requests-a",
        f"{legacy}.c2s.bin",
        "--requests-b",
        f"{modern}.c2s.bin",
        "--format",
        "json",
    )
    report = json.loads(result.stdout)
    assert result.exit_code == 1
    assert report["summary"]["state"] == "not-comparable"
    assert any(
        f["id"] == "tools.compare.capture-difference"
        and f["location"] == "/capture/protocol/negotiated"
        for f in report["findings"]
    )
    assert not any(
        c["id"].startswith("tools.drift.") for s in report["subjects"] for c in s["checks"]
    )


def test_cli_compare_real_session_with_itself_is_no_drift() -> None:
    folder = shared_path("frames", "mcp-python-sdk-2.3.0")
    base = folder / "modern-diff-base"
    result = _run(
        "tools",
        "compare",
        f"{base}.s2c.bin",
        f"{base}.s2c.bin",
        "--requests-a",
        f"{base}.c2s.bin",
        "--requests-b",
        f"{base}.c2s.bin",
    )
    assert result.exit_code == 0, result.output


def test_cli_compare_failing_input_finding_is_never_a_quiet_0(tmp_path: Path) -> None:
    twice = [TOOLS[0], TOOLS[0]]
    a = _write(tmp_path / "a.json", twice, _cap())
    b = _write(tmp_path / "b.json", twice, _cap())
    result = _run("tools", "compare", a, b, "--format", "json")
    report = json.loads(result.stdout)
    assert report["summary"]["state"] == "no-drift"
    assert result.exit_code == 1
    assert any(f["id"] == "tools.list.duplicate-name" for f in report["findings"])


def test_a_declared_capture_is_read_as_its_whole_js_value_was() -> None:
    # The members a capture block drops are no longer copied; what is kept, dropped and
    # refused is what the copy of the whole parsed value gave.
    from sealverify._internal.tools.capture import declared_members, sanitize_declared
    from sealverify._internal.tools.digests import Unrepresentable, js_value
    from sealverify._internal.wire.strictjson import parse_bytes

    for text in [
        b'{"observedAt": "2025-01-01", "notes": [{"n": 1}], "launch": {"args": ["a"], "x": 2}}',
        b'{"pages": {"read": 1.0, "complete": true}, "protocol": {"requested": 3}, "z": null}',
        b'{"launch": {"env": {"B": "1", "A": "2"}}, "transport": "stdio"}',
        b"[1, 2]",
        b"null",
        b"12",
    ]:
        parsed = parse_bytes(text)
        assert sanitize_declared(declared_members(parsed), "c") == sanitize_declared(
            js_value(parsed), "c"
        ), text
    for text in [b'{"notes": [1, 1e999]}', b'{"launch": {"x": -1e400}}', b"[1e999]"]:
        with pytest.raises(Unrepresentable) as whole:
            js_value(parse_bytes(text))
        with pytest.raises(Unrepresentable) as kept:
            declared_members(parse_bytes(text))
        assert str(kept.value) == str(whole.value)


def test_a_huge_number_in_a_dropped_capture_member_is_still_a_finding(tmp_path: Path) -> None:
    capture = tmp_path / "capture.json"
    capture.write_text('{"notes": [{"n": 1e999}], "observedAt": "2025-01-01"}')
    listing = tmp_path / "tools.json"
    listing.write_text(json.dumps({"tools": TOOLS}))
    result = CliRunner().invoke(
        cli, ["tools", "compare", str(listing), str(listing), "--capture-a", str(capture),
              "--format", "json"],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "tools.input.bad-capture" in result.output
    assert "number 1e999 is beyond the largest double" in result.output
