"""The fuzz harnesses (fuzz/) run deterministically without atheris, and do report what breaks."""

from __future__ import annotations

import random
import tomllib

import pytest
from sealverify_testkit.records import parse_record

from fuzz import rules
from fuzz.harnesses import HARNESSES, Harness
from fuzz.mutate import mutate_json
from fuzz.resign import resign
from fuzz.run import mutant, run_quick
from fuzz.seeds import FIXTURES, ROOT, files
from sealverify._internal.wire.strictjson import JsonError, parse_bytes

ITERATIONS = 60  # per harness: the suite proves each harness runs; nox -s fuzz searches


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_harness_runs_its_seeds_and_mutants_without_a_finding(name: str) -> None:
    harness = HARNESSES[name]
    corpus = harness.seeds()
    assert corpus, f"{name}: no seed from fixtures/"
    outcome = run_quick(harness, ITERATIONS, max_seconds=None)  # never timed in the suite
    assert outcome.executions == len(corpus) + ITERATIONS
    assert not outcome.findings, [f"{f} {f.data[:200]!r}" for f in outcome.findings]


def _planted(data: bytes) -> None:
    # The frame harness's target with a planted crash: a tools/call line that is not JSON.
    HARNESSES["frame"].target(data)
    if b"tools/call" in data:
        try:
            parse_bytes(data.rstrip(b"\n"))
        except JsonError:
            raise KeyError("planted") from None


def test_a_planted_crash_is_found_and_reported_with_its_input() -> None:
    def fixture_frames() -> list[bytes]:  # valid frames only: the crash must come from a mutant
        return files(FIXTURES / "frames", "*.bin")

    harness = Harness("planted", "frame with a planted crash", fixture_frames, _planted)
    first = run_quick(harness, 150, max_seconds=None)
    crashes = [f for f in first.findings if f.kind == "crash"]
    assert crashes and "KeyError" in crashes[0].detail
    assert b"tools/call" in crashes[0].data and crashes[0].data not in fixture_frames()
    with pytest.raises(JsonError):
        parse_bytes(crashes[0].data.rstrip(b"\n"))
    again = run_quick(harness, 150, max_seconds=None)
    assert [f.data for f in again.findings] == [f.data for f in first.findings]  # deterministic


def test_the_time_rule_reports() -> None:
    slow = run_quick(HARNESSES["strict-json"], 0, max_seconds=-1.0)  # every input exceeds -1 s
    assert slow.findings and {f.kind for f in slow.findings} == {"slow"}


def _allocate(data: bytes) -> None:
    assert len(bytearray(4 * 1024 * 1024)) > len(data)


def test_memory_rule_reports_over_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "MAX_PEAK_BYTES", 1024 * 1024)
    with pytest.raises(rules.Finding) as memory:
        rules.checked(_allocate, b"x", measure_memory=True)
    assert memory.value.kind == "memory"
    rules.checked(lambda data: None, b"x", measure_memory=True)  # under the bound: no finding


def test_verify_mutants_reach_inside_embedded_documents_and_are_re_signed() -> None:
    receipt = (FIXTURES / "demo" / "receipts" / "verified-allow.receipt.json").read_bytes()
    signature = parse_record(receipt)["signature"]
    resigned = resign(receipt)
    assert resigned is not None and parse_record(resigned)["signature"] == signature
    rng = random.Random(3)
    mutants = [mutate_json(receipt, rng) for _ in range(200)]
    changed_embedded = 0
    for data in mutants:
        assert data is not None
        before = parse_bytes(receipt)
        assert isinstance(before, dict)
        try:
            after = parse_bytes(data)
        except JsonError:
            continue  # a mutant need not be strict JSON
        if not isinstance(after, dict):
            continue  # the whole document was replaced
        for member in ("emitted_bytes", "signed_artifacts", "signed_config"):
            if member in after and after[member] != before[member]:
                changed_embedded += 1
    assert changed_embedded > 10
    signed = [mutant(HARNESSES["verify"], receipt, random.Random(i), [receipt]) for i in range(40)]
    fresh = set()
    for data in signed:
        try:
            fresh.add(str(parse_record(data).get("signature")))
        except (JsonError, ValueError):
            continue
    assert len(fresh) > 2  # several mutants carry new signatures made by the testkit keys


def test_the_harnesses_are_not_shipped_in_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    assert include == ["sealverify*"]  # fuzz/ stays out; atheris is only the `fuzz` extra
    assert "atheris==3.0.0" in config["project"]["optional-dependencies"]["fuzz"]


def test_run_cli_holds_no_report_but_still_refuses_text_utf8_cannot_encode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A memory measurement counts what a command holds, not the report it wrote.

    The complexity check measures peak allocation around ``run_cli``; a report kept in a
    buffer made every command whose output grows with its input look as if it held that
    input. The text layer must still encode as UTF-8, so a lone surrogate still escapes.
    """
    import tracemalloc

    import click

    from fuzz import base

    chunk = "x" * (1 << 16)

    def loud(*_: object, **__: object) -> int:
        for _ in range(128):  # 8 MiB of report
            click.echo(chunk)
        return 0

    monkeypatch.setattr(base.cli, "main", loud)
    tracemalloc.start()
    try:
        assert base.run_cli([]) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * 2**20, f"run_cli held {peak} bytes of an 8 MiB report"

    def surrogate(*_: object, **__: object) -> int:
        click.echo("\ud800")
        return 0

    monkeypatch.setattr(base.cli, "main", surrogate)
    with pytest.raises(UnicodeEncodeError):
        base.run_cli([])
