"""``chain`` walks its logs as it reads them: memory follows the longest line, not the log.

It once read every log whole and held a record object per chain record (about 3.6 bytes of
memory per input byte, so the 256 MiB input cap still allowed about 1 GB). The memory test
counts the peak Python allocation (tracemalloc) of one CLI run at two sizes of one valid log
and compares them: a ratio, never a timing. The other tests hold the streamed walk to the
answer of the walk over held records (``verify_logs``), which the report was built from.
"""

from __future__ import annotations

import io
import json
import os
import threading
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from sealverify_testkit.auditlog import audit_payload, chain_lines, record_line

from sealverify import ChainOptions, ReceiptGroup, chain_report
from sealverify._internal.cli.main import cli
from sealverify._internal.history import chain, chain_log
from sealverify._internal.results.repeats import Findings


def _valid_log(records: int) -> bytes:
    lines, _ = chain_lines([audit_payload(i) for i in range(records)])
    return b"".join(line + b"\n" for line in lines)


def _peak(args: list[str]) -> tuple[int, int]:
    """The exit code and the peak Python allocation of one CLI run of ``args``."""
    runner = CliRunner()
    runner.invoke(cli, [args[0], "--help"])  # imports outside the measurement
    tracemalloc.start()
    try:
        result = runner.invoke(cli, args, catch_exceptions=False)
        return result.exit_code, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_a_valid_log_four_times_longer_takes_no_more_memory(tmp_path: Path, fmt: str) -> None:
    peaks = []
    for records in (2_000, 8_000):
        log = tmp_path / f"audit-{records}.log"
        log.write_bytes(_valid_log(records))
        out = tmp_path / f"report-{records}"
        code, peak = _peak(["chain", str(log), "--expect-count", str(records), "--format", fmt,
                            "--output", str(out)])  # fmt: skip
        assert code == 0
        peaks.append(peak)
    small, large = peaks
    # Held whole, four times the log took about four times the memory (3.6 bytes a byte).
    assert large < 1.5 * small, f"{small} then {large} bytes at four times the records"


def _hostile_log() -> bytes:
    """Every kind of finding, many times over: breaks, malformed records, unchained lines."""
    lines, heads = chain_lines([audit_payload(i) for i in range(400)])
    log = list(lines)
    at = [i for i, line in enumerate(log) if b'"seal_record"' in line]  # each payload is before
    a, b = at[50] - 1, at[51] - 1
    log[a], log[b] = log[b], log[a]  # two payloads swapped: mutations
    a, b = at[100], at[101]
    log[a - 1 : a + 1], log[b - 1 : b + 1] = log[b - 1 : b + 1], log[a - 1 : a + 1]  # reordered
    for k in range(150):  # a run of records whose payloads never commit to their heads
        prev = chain.commit(heads[0], b"elsewhere %d" % k)
        log.append(b'{"edited":%d}' % k)
        log.append(record_line(1000 + k, "s9", prev, chain.commit(prev, b"x"), None))
    log += [b'{"seal_record":"v1","entry":-1}'] * 120  # malformed records
    log += [audit_payload(9000 + k) + b"\n" + b"text" for k in range(110)]  # unchained
    return b"".join(line + b"\n" for line in log)


def _held_checks(data: bytes, anchor: chain.Anchor) -> list[dict[str, object]]:
    """The chain subject's checks as the report built them from the walk over held records."""
    result = chain.verify_logs([("a.log", data)], anchor)
    return [c.to_dict() for c in Findings(result.checks).checks()]


@pytest.mark.parametrize("count", [None, 700])
def test_the_streamed_walk_reports_as_the_held_walk(count: int | None) -> None:
    data = _hostile_log()
    report = chain_report([("a.log", data)], ChainOptions(expect_count=count))
    streamed = [c.to_dict() for c in report.subjects[0].checks]
    held = _held_checks(data, chain.Anchor(count=count))
    assert streamed == held
    kinds = {c["data"].get("kind") for c in held if c["id"] == "chain.break"}
    assert {"mutation", "reordering"} <= kinds
    assert any(c["id"] == "chain.break" and "not listed" in c["reason"] for c in held)


def test_a_log_opened_and_read_as_walked_reports_as_its_bytes(tmp_path: Path) -> None:
    data = _hostile_log()
    log = tmp_path / "a.log"
    log.write_bytes(data)
    receipts = ReceiptGroup("r.json", (), (("r.json", b'{"emitted_bytes":"{}"}'),))
    opened = chain_report([("a.log", lambda: log.open("rb"))], ChainOptions(), [receipts])
    held = chain_report([("a.log", data)], ChainOptions(), [receipts])
    assert json.dumps(opened.to_dict()) == json.dumps(held.to_dict())


@pytest.mark.parametrize("window", [1, 2, 3, 7, 1 << 16])
def test_a_stream_read_by_windows_gives_every_line(
    window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chain_log, "_WINDOW", window)
    for data in [b"", b"\n", b"\n\n", b"a", b"a\n", b"a\nb", b"ab\ncd\n\nef", b"\n" * 9,
                 b"long line\nx\n" * 5 + b"tail", b"x" * 20 + b"\n" + b"y" * 20]:  # fmt: skip
        expected = list(chain_log.log_lines(data))
        assert list(chain_log.log_lines(lambda d=data: io.BytesIO(d))) == expected, data


def _broken_log(records: int) -> bytes:
    """A valid log but for two records swapped near its start: a reordering, named at once."""
    lines, _ = chain_lines([audit_payload(i) for i in range(records)])
    log = list(lines)
    at = [i for i, line in enumerate(log) if b'"seal_record"' in line]
    a, b = at[3], at[4]
    log[a - 1 : a + 1], log[b - 1 : b + 1] = log[b - 1 : b + 1], log[a - 1 : a + 1]
    return b"".join(line + b"\n" for line in log)


def test_a_broken_log_four_times_longer_takes_no_more_memory(tmp_path: Path) -> None:
    # Naming a break reads the log again for every record's head: a list and a location
    # string per record once held (about 300 bytes a record); sorted runs on disk now.
    peaks = []
    for records in (4_000, 16_000):
        log = tmp_path / f"audit-{records}.log"
        log.write_bytes(_broken_log(records))
        out = tmp_path / f"report-{records}"
        code, peak = _peak(["chain", str(log), "--format", "json", "--output", str(out)])
        assert code == 1
        assert '"kind": "reordering"' in out.read_text()
        peaks.append(peak)
    small, large = peaks
    assert large < 1.5 * small, f"{small} then {large} bytes at four times the records"


def test_standard_input_four_times_longer_takes_no_more_memory(tmp_path: Path) -> None:
    # Standard input was read whole before the walk; it is copied a block at a time to an
    # unnamed temporary file now and walked from there (read again to name a break).
    peaks = []
    for records in (2_000, 8_000):
        data = _broken_log(records)
        out = tmp_path / f"report-{records}"
        runner = CliRunner()
        runner.invoke(cli, ["chain", "--help"])
        tracemalloc.start()
        try:
            result = runner.invoke(cli, ["chain", "-", "--format", "json", "--output", str(out)],
                                   input=data, catch_exceptions=False)  # fmt: skip
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert result.exit_code == 1
        report = json.loads(out.read_text())
        assert report["subjects"][0]["facts"]["records"] == records
        assert '"kind": "reordering"' in out.read_text()
        peaks.append(peak)
    small, large = peaks
    assert large < 1.5 * small, f"{small} then {large} bytes at four times the records"


def test_a_pipe_and_standard_input_report_as_the_file(tmp_path: Path) -> None:
    data = _hostile_log()
    log = tmp_path / "a.log"
    log.write_bytes(data)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(data,))
    writer.start()
    runner = CliRunner()
    try:
        piped = runner.invoke(cli, ["chain", str(fifo), "--format", "json"])
    finally:
        writer.join()
    stdin = runner.invoke(cli, ["chain", "-", "--format", "json"], input=data)
    held = runner.invoke(cli, ["chain", str(log), "--format", "json"])
    assert held.exit_code == piped.exit_code == stdin.exit_code == 1
    assert piped.stdout == held.stdout.replace("a.log", "pipe")
    assert stdin.stdout == held.stdout.replace("a.log", "-")


@pytest.mark.parametrize("broken", [False, True])
def test_the_html_report_of_a_log_four_times_longer_takes_no_more_memory(
    tmp_path: Path, broken: bool
) -> None:
    # The html page kept a view of every record (about 1 KB a record) and built a row per
    # record; it holds the rows it lists and the timeline's cells now, the rest spilled.
    peaks = []
    for records in (3_000, 12_000):
        log = tmp_path / f"audit-{records}.log"
        log.write_bytes(_broken_log(records) if broken else _valid_log(records))
        out = tmp_path / f"report-{records}.html"
        code, peak = _peak(["chain", str(log), "--expect-count", str(records), "--format",
                            "html", "--output", str(out)])  # fmt: skip
        assert code == (1 if broken else 0)
        assert f"{records - 2_000} more record(s) are not listed" in out.read_text()
        peaks.append(peak)
    small, large = peaks
    assert large < 1.5 * small, f"{small} then {large} bytes at four times the records"
