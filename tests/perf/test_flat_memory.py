"""Flat memory on hostile inputs: repeated findings capped and counted, endless inputs refused.

Bounds are memory, measured deterministically (tracemalloc peaks, or a child process under
RLIMIT_AS), never time. Each input repeats one mistake many times: before the cap, every
element kept a finding of its own (a log of 40,000 blank lines held ~40 MB of findings).
"""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Literal

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.common import DEFAULT_MAX_INPUT_BYTES
from sealverify._internal.cli.main import cli
from sealverify._internal.cli.spooled import SubjectSpool
from sealverify._internal.results.model import Report, Subject, fail, info, not_evaluated, passed
from sealverify._internal.results.repeats import KEEP, Findings
from sealverify.formats import render

ROOT = Path(__file__).resolve().parents[2]
MB = 1 << 20


def _peak(*args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    """The traced peak (bytes) of one in-process run, and its JSON report.

    The report goes to a file (``--output``): captured stdout would be traced memory too.
    """
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "report.json"
        tracemalloc.start()
        try:
            CliRunner().invoke(
                cli, [*args, "--format", "json", "--output", str(out)], catch_exceptions=False
            )
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        return peak, json.loads(out.read_bytes())


def test_findings_keep_the_first_of_each_kind_and_count_the_rest() -> None:
    found = Findings(keep=3)
    for n in range(10):
        found.append(fail("log.blank-line", "blank", f"log:{n}"))
    found.append(info("other", "once"))
    checks = found.checks()
    assert [c.location for c in checks if c.id == "log.blank-line"] == [
        "log:0",
        "log:1",
        "log:2",
        "",
    ]
    closing = checks[-1]
    assert closing.status == "fail" and closing.data == {"not_listed": 7, "total": 10}
    assert [c.id for c in checks].count("other") == 1


def test_verify_a_log_of_blank_lines_keeps_flat(tmp_path: Path) -> None:
    log = tmp_path / "blank.jsonl"
    log.write_bytes(b"\n" * 40_000)
    peak, report = _peak("verify", str(log))
    assert peak < 12 * MB, f"{peak / MB:.1f} MB"
    blank = [f for f in report["findings"] if f["id"] == "log.blank-line"]
    assert len(blank) == KEEP + 1
    closing = [f for f in blank if "data" in f]
    assert closing == [
        {
            "id": "log.blank-line",
            "status": "fail",
            "reason": closing[0]["reason"],
            "data": {"not_listed": 40_000 - KEEP, "total": 40_000},
        }
    ]
    assert report["exit_code"] == 1


def test_tools_digest_of_many_non_listings_keeps_flat(tmp_path: Path) -> None:
    source = tmp_path / "tools.json"
    source.write_text(json.dumps([1] * 60_000))
    peak, report = _peak("tools", "digest", str(source))
    assert peak < 16 * MB, f"{peak / MB:.1f} MB"
    kept = [f for f in report["findings"] if f["id"] == "tools.input.not-a-listing"]
    assert len(kept) == KEEP + 1
    assert [f["data"]["total"] for f in kept if "data" in f] == [60_000]


# Each command's input is /dev/zero: endless. It must be refused by name, exit 2.
ENDLESS = [
    ("chain", "{z}"),
    ("tools", "digest", "{z}"),
    ("tools", "compare", "{z}", "{z}"),
    ("diff", "{z}", "{z}"),
    ("partition", "emit", "{z}"),
    ("skill", "verify", "--listing", "{z}"),
    ("frame", "{z}"),
    ("lint", "{z}"),
    ("decide", "{z}", "--config", "{z}"),
    ("approval", "{z}", "--frame", "{z}", "--approval-pubkey", "00" * 32),
]


def _limited() -> None:
    limit = 2 << 30  # far below what reading /dev/zero to the end would take
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _child(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "sealverify", *args],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=_limited,
        timeout=300,
        check=False,
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("args", ENDLESS, ids=lambda a: " ".join(a[:2]))
def test_an_endless_input_is_refused_under_the_cap(args: tuple[str, ...]) -> None:
    cmd = [a.format(z="/dev/zero") for a in args]
    result = CliRunner().invoke(cli, [*cmd, "--max-input-bytes", "1M"], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert "/dev/zero: more than 1048576 bytes (--max-input-bytes)" in result.stderr


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_the_default_cap_refuses_an_endless_input_in_bounded_memory() -> None:
    result = _child("tools", "digest", "/dev/zero")
    assert result.returncode == 2, result.stderr
    assert f"more than {DEFAULT_MAX_INPUT_BYTES} bytes" in result.stderr
    assert "MemoryError" not in result.stderr


def test_verify_holds_receipts_and_log_slices_to_the_cap(tmp_path: Path) -> None:
    receipt = ROOT / "fixtures" / "demo" / "receipts" / "verified-allow.receipt.json"
    log = ROOT / "fixtures" / "demo" / "receipts" / "receipts.jsonl"
    for path in (receipt, log):
        result = CliRunner().invoke(cli, ["verify", str(path), "--max-input-bytes", "1K"])
        assert result.exit_code == 2, result.output
        assert f"{path}: more than 1024 bytes (--max-input-bytes)" in result.stderr
    ok = CliRunner().invoke(cli, ["verify", str(receipt), "--max-input-bytes", "1M"])
    assert ok.exit_code != 2, ok.output


@pytest.mark.parametrize("value", ["0", "-1", "lots", "1T"])
def test_a_bad_cap_is_a_usage_error(value: str) -> None:
    result = CliRunner().invoke(cli, ["lint", "README.md", "--max-input-bytes", value])
    assert result.exit_code == 2
    assert "--max-input-bytes" in result.output


SUBJECTS = (
    Subject("a.ndjson:1", "VALID", (passed("approval.signature", "ok", "a.ndjson:1"),), {"k": 1}),
    Subject(
        "a.ndjson:2",
        "INVALID",
        (fail("approval.token-json", "not a token", "a.ndjson:2"), info("x.note", "n")),
        {"kind": "invalid"},
        "why",
    ),
    Subject("b.ndjson:7", "REFUSED", (not_evaluated("approval.expiry", "later"),), {}),
)


@pytest.mark.parametrize("layout", ["detail", "rows"])
@pytest.mark.parametrize("fmt", ["json", "jsonl", "sarif", "junit", "table", "html"])
@pytest.mark.parametrize("count", [0, 1, 3])
@pytest.mark.parametrize("findings", [(), (fail("run.finding", "a run-level finding", "x"),)])
def test_a_spooled_report_is_the_rendered_report(
    fmt: str,
    count: int,
    findings: tuple,  # type: ignore[type-arg]
    layout: Literal["detail", "rows"],
) -> None:
    subjects = SUBJECTS[:count]
    whole = Report("approval", subjects, {"tokens": count}, 1, findings, layout=layout)
    with SubjectSpool(fmt, "approval", layout) as spool:
        for subject in subjects:
            spool.add(subject)
        pieces = list(spool.pieces(dataclasses.replace(whole, subjects=())))
    text = b"".join(p if isinstance(p, bytes) else p.encode() for p in pieces).decode()
    assert text == render(whole, fmt)


@pytest.mark.parametrize("fmt", ["json", "jsonl", "sarif", "junit", "table", "html"])
@pytest.mark.parametrize("layout", ["detail", "rows"])
@pytest.mark.parametrize("in_memory", [0, 24, 1 << 16])
def test_a_spool_held_in_memory_then_moved_to_a_file_is_the_rendered_report(
    fmt: str, layout: Literal["detail", "rows"], in_memory: int
) -> None:
    # verify's spool holds fragments in memory up to a bound, then in a temporary file (moved
    # before a fragment that would pass the bound): the report is the rendered one either way.
    whole = Report("approval", SUBJECTS, {"tokens": 3}, 1, (), layout=layout)
    with SubjectSpool(fmt, "approval", layout, in_memory=in_memory) as spool:
        for subject in SUBJECTS:
            spool.add(subject)
        in_file = spool._memory is None
        pieces = list(spool.pieces(dataclasses.replace(whole, subjects=())))
    text = b"".join(p if isinstance(p, bytes) else p.encode() for p in pieces).decode()
    assert text == render(whole, fmt)
    if spool.stream.spooled and in_memory < 1 << 16:
        assert in_file  # each format's three fragments pass 24 bytes
    elif in_memory:
        assert not in_file


def test_approval_of_many_token_lines_keeps_flat(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.ndjson"
    tokens.write_bytes(b'{"v":2}\n' * 30_000)
    frame = tmp_path / "frame.json"
    frame.write_text('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}\n')
    args = ("approval", str(tokens), "--frame", str(frame), "--approval-pubkey", "ab" * 32)
    peak, report = _peak(*args)
    assert peak < 12 * MB, f"{peak / MB:.1f} MB"  # each token's subject was kept: ~60 MB
    assert report["summary"]["tokens"] == 30_000 and len(report["subjects"]) == 30_000
    assert report["subjects"][-1]["name"] == "tokens.ndjson:30000"


def test_lint_of_one_rule_hit_many_times_lists_the_first_and_counts(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("The traceparent value is inert.\n\n" * 500)
    _, report = _peak("lint", str(note))
    (subject,) = report["subjects"]
    ids = {c["id"] for c in subject["checks"]}
    assert len(ids) == 1
    assert len(subject["checks"]) == KEEP + 1
    assert [c["data"]["total"] for c in subject["checks"] if "not_listed" in c.get("data", {})] == [
        500
    ]
    assert subject["facts"]["violations"] == report["summary"]["violations"] == 500
    assert report["exit_code"] == 1


def test_chain_whose_every_record_breaks_lists_the_first_breaks_and_counts(tmp_path: Path) -> None:
    from tests.helpers.history import host_log

    data, _ = host_log(300)
    # Each payload changed after it was committed: every record's commitment breaks.
    log = tmp_path / "broken.log"
    log.write_bytes(data.replace(b"decision ", b"decisioN "))
    _, report = _peak("chain", str(log))
    breaks = [c for c in report["subjects"][0]["checks"] if c["id"] == "chain.break"]
    assert len(breaks) == KEEP + 1
    assert [c["data"] for c in breaks if "not_listed" in c.get("data", {})] == [
        {"not_listed": 300 - KEEP, "total": 300}
    ]
    assert report["exit_code"] == 1


def test_the_cap_travels_with_the_task_settings() -> None:
    # A worker on a cluster never parsed the command line: the cap comes with its settings.
    from sealverify import SealverifyError
    from sealverify._internal.run import engine

    receipt = ROOT / "fixtures" / "demo" / "receipts" / "verified-allow.receipt.json"
    task = next(engine.tasks([(receipt, False)]))
    options = engine.VerifyOptions()
    small = engine.Settings(options, False, "json", max_input=100)
    ((refused, _, _),) = engine._run_task(task, small)
    # Handed back as the error the run raises (one line, exit 2), not as a string.
    assert isinstance(refused, SealverifyError) and "more than 100 bytes" in str(refused)
    ((verified, _, _),) = engine._run_task(task, engine.Settings(options, False, "json"))
    assert not isinstance(verified, SealverifyError)
