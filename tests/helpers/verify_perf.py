"""Shared with other test modules by tests/perf/test_verify_perf.py."""

from __future__ import annotations

from pathlib import Path

from sealverify_testkit.mint import mint_many, parse_record, render_compact

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
TRUST = DEMO / "trust.json"


def mixed_log(tmp_path: Path) -> Path:
    """A log of 150 lines (more than two worker tasks) with every kind of line in it."""
    lines = [render_compact(parse_record(raw)) for raw in mint_many(140, seed=b"perf-test")]
    lines[5] = b""  # blank line
    lines[70] = b'{"record_type": '  # broken line
    lines[71] = lines[71] + b"\r"  # CRLF line
    lines[100] = b"[1, 2]"  # strict JSON, not an object: verified and fails
    demo = (DEMO / "receipts" / "receipts.jsonl").read_bytes().rstrip(b"\n").split(b"\n")
    log = tmp_path / "mixed.jsonl"
    log.write_bytes(b"\n".join(lines + demo))  # no final line terminator
    return log
