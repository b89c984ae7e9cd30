"""--format jsonl: one line per subject, equal to the json format's subject, and a summary last."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.reports.formats import jsonl
from sealverify._internal.results.model import Report
from sealverify.formats import FORMATS
from tests.conftest import ROOT

DEMO = ROOT / "fixtures" / "demo"
VERIFY = ["verify", str(DEMO / "receipts"), "--trust", str(DEMO / "trust.json")]


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout


def _lines(text: str) -> list[dict]:
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def _untyped(line: dict) -> dict:
    return {k: v for k, v in line.items() if k != "type"}


def _matches_json(args: list[str]) -> list[dict]:
    code_l, text = _run(*args, "--format", "jsonl")
    code_j, document = _run(*args, "--format", "json")
    report = json.loads(document)
    lines = _lines(text)
    assert code_l == code_j == report["exit_code"]
    types = [line["type"] for line in lines]
    assert types[-1] == "summary" and types.count("summary") == 1
    subjects = [_untyped(ln) for ln in lines if ln["type"] == "subject"]
    findings = [_untyped(ln) for ln in lines if ln["type"] == "finding"]
    assert subjects == report["subjects"]
    assert findings == report["findings"]
    summary = lines[-1]
    assert summary == {
        "type": "summary",
        "schema": report["schema"],
        "command": report["command"],
        "exit_code": report["exit_code"],
        "summary": report["summary"],
    }
    # subjects first, in input order, then findings, then the summary
    assert types == ["subject"] * len(subjects) + ["finding"] * len(findings) + ["summary"]
    return lines


def test_verify_jsonl_lines_equal_the_json_subjects() -> None:
    lines = _matches_json(VERIFY)
    assert len(lines) == 13 + 1 + 1  # thirteen receipts, the broken log line, the summary
    assert lines[-2]["id"] == "log.broken-line"
    assert lines[-2]["location"].endswith("receipts.jsonl:3")


def test_verify_jsonl_with_published_keys_allowed_and_jobs_is_the_same_stream() -> None:
    args = [*VERIFY, "--allow-published-keys"]
    _matches_json(args)
    assert _run(*args, "--format", "jsonl") == _run(*args, "--format", "jsonl", "--jobs", "2")


def test_frame_jsonl_lines_equal_the_json_subjects() -> None:
    for name in ("call.bin", "refused-meta-null.bin"):
        _matches_json(["frame", str(ROOT / "fixtures" / "frames" / name)])


def test_each_line_starts_with_its_type_and_round_trips() -> None:
    _, text = _run(*VERIFY, "--format", "jsonl")
    for line in text.splitlines(keepends=True):
        value = json.loads(line)
        assert line.startswith('{"type":"' + value["type"] + '"')
        if value["type"] == "subject":
            assert jsonl.subject_line(jsonl.parse_subject(value)) == line
        elif value["type"] == "finding":
            assert jsonl.finding_line(jsonl.parse_check(value)) == line


def test_render_is_the_registered_pure_form_of_the_streamed_one(tmp_path: Path) -> None:
    assert FORMATS["jsonl"] is jsonl.render
    _, document = _run(*VERIFY, "--format", "json")
    value = json.loads(document)
    report = Report(
        value["command"],
        tuple(jsonl.parse_subject(s) for s in value["subjects"]),
        value["summary"],
        value["exit_code"],
        tuple(jsonl.parse_check(f) for f in value["findings"]),
    )
    out = tmp_path / "report.jsonl"
    code, _ = _run(*VERIFY, "--format", "jsonl", "--output", str(out))
    assert code == 1
    assert out.read_text(encoding="utf-8") == jsonl.render(report)
    assert "".join(jsonl.lines(report)) == jsonl.render(report)


@pytest.mark.parametrize("command", ["verify", "frame"])
def test_jsonl_is_offered(command: str) -> None:
    _, text = _run(command, "--help")
    assert "jsonl" in text
