"""Every command's table fits ``$COLUMNS`` off a terminal, keeps ids whole, notes repeats."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.reports.formats.grid import View, grid, noted, wrap
from sealverify._internal.reports.formats.table import render
from sealverify._internal.results.model import Check, Report, Subject

ROOT_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TRUST = ["--trust", "fixtures/demo/trust.json"]
KEY = "ae7b5a6d2b3a1f39c6b7b9b9a7f5ac9b1a1b5f3c1a8b9a1a2f4b4a7c1b6a1e0f"
COMMANDS = {
    "verify": ["verify", "fixtures/demo/receipts", *TRUST],
    "verify-demo-pins": ["verify", "fixtures/demo/receipts"],
    "chain": ["chain", "fixtures/chain/truncated.stderr", "--expect-count", "3"],
    "diff": ["diff", "fixtures/frames/call.bin", "fixtures/frames/call-other-trace.bin"],
    "frame": ["frame", "fixtures/frames/refused-meta-null.bin"],
    "inventory": ["inventory", "fixtures/demo/receipts"],
    "approval": [
        "approval",
        "fixtures/approval/tokens.ndjson",
        "--frame",
        "fixtures/approval/frame.bin",
        "--server",
        "sealverify-demo@1.0.0",
        "--approval-pubkey",
        "33eeb75bcee9e2349937c1cc205a4673e0e0563e19a1dc8617995bcd7f9174de",
        "--at",
        "1786000060000",
        "--allow-published-keys",
    ],
    "tools": ["tools", "digest", "fixtures/tools/tools.json"],
    "lint": ["lint", "fixtures/lint"],
}
# An id as tables show it: dotted lowercase words (a file name's suffix is not one).
_ID = re.compile(r"(?<![\w./-])([a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)+)(…|:|\s|$)")
_FILE = (".json", ".jsonl", ".bin", ".stderr", ".md", ".ndjson")


def _run(argv: list[str], columns: int | None, **env: str) -> str:
    environment = {"COLUMNS": str(columns)} if columns else {"COLUMNS": ""}
    done = CliRunner(env={**environment, **env}).invoke(cli, argv, catch_exceptions=False)
    assert done.exit_code in (0, 1), done.output
    return done.stdout


def _ids(value: Any) -> set[str]:
    """Every "id" member of a JSON report."""
    if isinstance(value, dict):
        found = {value["id"]} if isinstance(value.get("id"), str) else set()
        return found.union(*(_ids(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_ids(v) for v in value))
    return set()


@pytest.mark.parametrize("name", sorted(COMMANDS))
@pytest.mark.parametrize("columns", [80, 120, None])
def test_no_table_line_is_wider_than_the_columns(name: str, columns: int | None) -> None:
    out = _run(COMMANDS[name], columns)
    width = columns or 100  # no $COLUMNS off a terminal: 100, never a 300-column line
    assert out.strip()
    for line in out.splitlines():
        assert len(line) <= width, f"{name} at {width}: {line!r}"


@pytest.mark.parametrize("name", [n for n in sorted(COMMANDS) if n not in ("inventory", "lint")])
@pytest.mark.parametrize("columns", [60, 80])
def test_ids_are_never_cut(name: str, columns: int) -> None:
    known = _ids(json.loads(_run([*COMMANDS[name], "--format", "json"], None)))
    out = _run(COMMANDS[name], columns)
    for match in _ID.finditer(out):
        word, after = match.groups()
        if word.endswith(_FILE) or word.split(".")[0] in ("fixtures", "signed_config"):
            continue
        cut = after == "…" or (after == ":" and word not in known)
        assert not (cut and any(k.startswith(word) for k in known)), f"{word!r} cut:\n{out}"


def test_a_repeated_reason_is_a_note_in_a_pipe() -> None:
    out = _run(COMMANDS["verify"], None)
    assert "note 1: authority.published-key" in out
    assert out.count("Real evidence needs the operator's own keys") == 1
    rows = [line for line in out.splitlines() if "note 1: authority.published-key (+" in line]
    assert len(rows) >= 3


def test_no_colour_off_a_terminal_unless_asked() -> None:
    assert "\x1b[" not in _run(COMMANDS["chain"], 80)
    assert "\x1b[" not in _run(COMMANDS["verify"], 80)


def test_a_generic_findings_table_notes_a_repeated_reason() -> None:
    reason = "signed under a key whose secret is published " * 3
    checks = tuple(
        Check("authority.published-key", "not-evaluated", reason.strip(), f"a{i}.json")
        for i in range(4)
    )
    report = Report("approval", (), {}, 1, findings=checks)
    text = render(report, View(80))
    assert text.replace("\n  ", " ").count(reason.strip()) == 1  # in the note, wrapped
    assert text.count("see note 1") == 4
    assert all(len(line) <= 80 for line in text.splitlines())


def test_a_long_reason_wraps_and_the_ids_stay_whole() -> None:
    subject = Subject(
        "frame.bin#0",
        "REFUSE",
        (Check("identities.legacy_canonical_request_sha256", "fail", "word " * 60, "/params"),),
        {"exact_frame_sha256": KEY},
    )
    for columns in (70, 80, 100):
        text = render(Report("frame", (subject,), {}, 1, layout="detail"), View(columns))
        assert all(len(line) <= columns for line in text.splitlines()), text
        assert "identities.legacy_canonical_request_sha256" in text
        assert KEY in text  # a digest that fits a line is never broken


def test_grid_keeps_the_tabulate_layout_when_it_fits() -> None:
    lines = grid(["a", "bb"], [("x", "yyy"), ("zz", "w")], ("id", "text"), View(80))
    assert lines == ["a   bb", "--  ---", "x   yyy", "zz  w"]


def test_grid_stacks_rows_when_the_ids_leave_no_room() -> None:
    rows = [("PASS", "a.very.long.check.identifier.that.is.wide", "because " * 10)]
    lines = grid(["status", "check", "reason"], rows, ("id", "id", "text"), View(50), status=0)
    assert lines[0] == "PASS  a.very.long.check.identifier.that.is.wide"
    assert all(line.startswith("      ") for line in lines[1:])


def test_noted_replaces_a_reason_on_three_rows_or_more() -> None:
    rows = [("FAIL", "x.y", "same"), ("FAIL", "x.y", "same"), ("FAIL", "x.y", "same")]
    shown, notes = noted([*rows, ("FAIL", "x.z", "other")], 1, 2)
    assert [r[2] for r in shown] == ["see note 1"] * 3 + ["other"]
    assert notes == ["note 1: x.y on 3 rows: same"]


def test_wrap_breaks_only_a_word_wider_than_the_line() -> None:
    assert wrap("aa bb cc", 5) == ["aa bb", "cc"]
    assert wrap("abcdefgh", 3) == ["abc", "def", "gh"]
    assert wrap("  indented text here", 10, "  ") == ["  indented", "  text", "  here"]


def test_a_reason_repeated_across_detail_blocks_becomes_a_note(tmp_path) -> None:
    tokens = (ROOT_FIXTURES / "approval" / "tokens.ndjson").read_text().splitlines()
    path = tmp_path / "tokens.ndjson"
    path.write_text("\n".join(tokens * 5) + "\n")
    argv = [*COMMANDS["approval"][:1], str(path), *COMMANDS["approval"][2:]]
    out = _run(argv, 100)
    # Said on the first two blocks (written before the next is known), then once as a note.
    assert out.count("APPROVER_KEY") == 3
    assert "note 9: authority.published-key on 5 rows:" in out
    assert out.count("see note 9") == 3
    assert all(len(line) <= 100 for line in out.splitlines())


@pytest.mark.parametrize("name", ["chain", "diff", "frame", "approval"])
def test_color_always_colours_every_command_in_a_pipe(name: str) -> None:
    coloured = _run([*COMMANDS[name], "--color", "always"], 80)
    assert "\x1b[" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == _run(COMMANDS[name], 80)
    assert "\x1b[" not in _run([*COMMANDS[name], "--color", "never"], 80)
