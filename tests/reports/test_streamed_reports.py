"""``verify --format sarif|junit`` is streamed, byte for byte the in-memory render (issue 8).

The in-memory renderers were split into shared pieces; ``_old_sarif`` and ``_old_junit`` below
are the renderers as they were before the split, kept here as the reference both must match.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote
from xml.sax.saxutils import escape, quoteattr

import pytest
from click.testing import CliRunner, Result
from sealverify_testkit.mint import HostContext

from sealverify import __version__
from sealverify._internal.cli.main import cli
from sealverify._internal.primitives.trust import TrustStore, load_trust_file
from sealverify._internal.receipts.verify import (
    VerifyOptions,
    build_report,
    verify_jsonl,
    verify_receipt,
)
from sealverify._internal.reports.formats import junit, sarif
from sealverify._internal.results.model import Check, Report, Subject
from sealverify.formats import render
from tests.conftest import shared_path
from tests.helpers.verify_perf import DEMO, TRUST, mixed_log

# --- the renderers before the split (reference) ------------------------------------------------

_LEVEL = {"fail": "error", "not-evaluated": "warning"}


def _old_location(subject_name: str, check: Check) -> dict[str, Any]:
    # Since the split, every result has a region: a log line's, lint's "line N", else line 1.
    uri, _, line = subject_name.rpartition(":")
    physical: dict[str, Any]
    if uri and line.isdigit():
        physical = {
            "artifactLocation": {"uri": quote(uri, safe="/:@#")},
            "region": {"startLine": int(line)},
        }
    else:
        start = int(check.location[5:]) if check.location.startswith("line ") else 1
        physical = {
            "artifactLocation": {"uri": quote(subject_name, safe="/:@#")},
            "region": {"startLine": start},
        }
    location: dict[str, Any] = {"physicalLocation": physical}
    if check.location:
        location["logicalLocations"] = [{"fullyQualifiedName": check.location}]
    return location


def _old_level(check: Check) -> str | None:
    # An accepted published key (info) is still a SARIF result, as a note (docs/trust.md).
    if check.status == "info" and check.id == "authority.published-key":
        return "note"
    return _LEVEL.get(check.status)


def _old_sarif(report: Report) -> str:
    results: list[dict[str, Any]] = []
    rule_ids: set[str] = set()
    for check in report.findings:
        if _old_level(check):
            rule_ids.add(check.id)
            results.append(
                {
                    "ruleId": check.id,
                    "level": _old_level(check),
                    "message": {"text": check.reason},
                    "locations": [_old_location(check.location or "(run)", check)],
                }
            )
    for subject in report.subjects:
        for check in subject.sorted_checks():
            if not _old_level(check):
                continue
            rule_ids.add(check.id)
            results.append(
                {
                    "ruleId": check.id,
                    "level": _old_level(check),
                    "message": {"text": f"{subject.outcome}: {check.reason}"},
                    "locations": [_old_location(subject.name, check)],
                }
            )
    # Since the split, rules carry the catalogue's descriptions
    # (tests/reports/test_sarif_schema.py).
    rules = [sarif._rule(rule) for rule in sorted(rule_ids)]
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "sealverify", "version": __version__, "rules": rules}},
                "results": results,
                "properties": {
                    "command": report.command,
                    "exitCode": report.exit_code,
                    **(
                        {"allowPublishedKeys": report.summary["allow_published_keys"]}
                        if "allow_published_keys" in report.summary
                        else {}
                    ),
                },
            }
        ],
    }
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def _old_junit(report: Report) -> str:
    cases: list[str] = []
    failures = 0
    for subject in report.subjects:
        failing = [c for c in subject.sorted_checks() if c.status == "fail"]
        unevaluated = [c for c in subject.sorted_checks() if c.status == "not-evaluated"]
        body = ""
        if failing:
            failures += 1
            text = "\n".join(f"{c.id}: {c.reason}" for c in failing)
            body = (
                f"<failure message={quoteattr(subject.outcome)} type={quoteattr(failing[0].id)}>"
                f"{escape(text)}</failure>"
            )
        elif subject.outcome not in ("VERIFIED", "ADMISSIBLE", "PASS", "CLEAN"):
            failures += 1
            text = "\n".join(f"{c.id}: {c.reason}" for c in unevaluated) or subject.outcome
            body = f"<failure message={quoteattr(subject.outcome)}>{escape(text)}</failure>"
        cases.append(
            f"    <testcase classname={quoteattr('sealverify.' + report.command)} "
            f"name={quoteattr(subject.name)}>{body}</testcase>"
        )
    for finding in report.findings:
        if finding.status == "fail":
            failures += 1
            cases.append(
                f"    <testcase classname={quoteattr('sealverify.' + report.command)} "
                f"name={quoteattr(finding.location or finding.id)}>"
                f"<failure message={quoteattr(finding.id)}>{escape(finding.reason)}</failure>"
                "</testcase>"
            )
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<testsuites>\n  <testsuite name={quoteattr('sealverify ' + report.command)} "
        f'tests="{len(cases)}" failures="{failures}" errors="0">\n'
    )
    flat = [
        (f"{key}.{sub}", item) if isinstance(value, dict) else (key, value)
        for key, value in report.summary.items()
        for sub, item in (value.items() if isinstance(value, dict) else [(None, value)])
    ]
    scalars = sorted(
        (key, ("true" if value else "false") if isinstance(value, bool) else str(value))
        for key, value in flat
        if isinstance(value, (str, int))
    )
    if scalars:
        head += (
            "    <properties>\n"
            + "".join(
                f"      <property name={quoteattr(k)} value={quoteattr(v)}/>\n" for k, v in scalars
            )
            + "    </properties>\n"
        )
    return head + "\n".join(cases) + ("\n" if cases else "") + "  </testsuite>\n</testsuites>\n"


_OLD = {"sarif": _old_sarif, "junit": _old_junit}

# --- helpers -----------------------------------------------------------------------------------


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["verify", *args], catch_exceptions=False)


def _check(d: dict[str, Any]) -> Check:
    return Check(d["id"], d["status"], d["reason"], d.get("location", ""), d.get("data", {}))


def _report_from_json(text: str) -> Report:
    """The whole report back from the CLI's JSON output (every subject with every check)."""
    doc = json.loads(text)
    subjects = tuple(
        Subject(
            s["name"], s["outcome"], tuple(map(_check, s["checks"])), s["facts"], s.get("label", "")
        )
        for s in doc["subjects"]
    )
    findings = tuple(map(_check, doc["findings"]))
    return Report(doc["command"], subjects, doc["summary"], doc["exit_code"], findings)


def _demo_subjects() -> list[Subject]:
    return [
        verify_receipt(p.read_bytes(), p.name) for p in sorted((DEMO / "receipts").glob("*.json"))
    ]


def _demo_options() -> VerifyOptions:
    return VerifyOptions(trust=TrustStore().merge(load_trust_file(TRUST.read_bytes())))


# --- the in-memory renderers still render what they rendered ----------------------------------


@pytest.mark.parametrize("fmt", ["sarif", "junit"])
def test_in_memory_render_is_unchanged_on_demo_receipts(fmt: str, tmp_path: Path) -> None:
    subjects = _demo_subjects()
    log_subjects, findings = verify_jsonl(
        (DEMO / "receipts" / "receipts.jsonl").read_bytes(), "demo.jsonl", _demo_options()
    )
    mixed, mixed_findings = verify_jsonl(mixed_log(tmp_path).read_bytes(), "mixed.jsonl")
    assert findings and mixed_findings  # the logs hold broken lines: findings come first
    reports = [
        build_report(subjects, []),
        build_report(subjects + log_subjects, findings),
        build_report(mixed, mixed_findings),
        build_report([], findings),
        build_report([], []),
    ]
    for report in reports:
        assert render(report, fmt) == _OLD[fmt](report)


@pytest.mark.parametrize("fmt", ["sarif", "junit"])
def test_in_memory_render_is_unchanged_on_real_receipts(fmt: str) -> None:
    seal = shared_path("fixtures", "seal")
    out = run(str(seal), "--format", "json")
    assert out.exit_code == 1, out.stderr
    report = _report_from_json(out.stdout)
    assert len(report.subjects) >= 20
    assert render(report, fmt) == _OLD[fmt](report)
    assert run(str(seal), "--format", fmt).stdout == _OLD[fmt](report)


@pytest.mark.parametrize("fmt", ["sarif", "junit"])
def test_in_memory_render_is_unchanged_for_other_commands(fmt: str, tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("The traceparent value is inert.\n")
    out = CliRunner().invoke(cli, ["lint", str(note), "--format", "json"])
    report = _report_from_json(out.stdout)
    assert report.command == "lint"
    assert render(report, fmt) == _OLD[fmt](report)


# --- the streamed CLI output is the in-memory render ------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("fmt", ["sarif", "junit"])
def test_streamed_output_equals_rendering_the_whole_report(
    fmt: str, jobs: str, tmp_path: Path
) -> None:
    log = mixed_log(tmp_path)
    out = run(str(log), "--trust", str(TRUST), "--format", fmt, "--jobs", jobs)
    subjects, findings = verify_jsonl(log.read_bytes(), log.as_posix(), _demo_options())
    assert len(subjects) > 2 * 64 and findings  # several tasks, and findings to place
    expected = render(build_report(subjects, findings), fmt)
    assert out.stdout == expected
    assert out.stdout == _OLD[fmt](build_report(subjects, findings))
    if fmt == "junit":
        assert out.stdout.count("<testcase ") == len(subjects) + len(findings)
    else:
        document = json.loads(out.stdout)
        assert document["runs"][0]["results"][0]["ruleId"] == findings[0].id


@pytest.mark.parametrize("fmt", ["sarif", "junit"])
def test_streamed_output_of_directory_and_log_equals_the_json_report(
    fmt: str, tmp_path: Path
) -> None:
    args = [str(DEMO / "receipts"), str(mixed_log(tmp_path)), "--trust", str(TRUST)]
    args += ["--kernel-sha256", HostContext().wasm_sha256]
    whole = _report_from_json(run(*args, "--format", "json").stdout)
    target = tmp_path / f"report.{fmt}"
    streamed = run(*args, "--format", fmt, "-j", "2", "--output", str(target))
    assert streamed.exit_code == whole.exit_code == 1
    assert target.read_text(encoding="utf-8") == _OLD[fmt](whole)


def test_sarif_pieces_rebuild_render(tmp_path: Path) -> None:
    subjects, findings = verify_jsonl(mixed_log(tmp_path).read_bytes(), "log", _demo_options())
    subjects += _demo_subjects()
    for found in (findings, []):
        report = build_report(subjects, found)
        kept = [sarif.rule_subject(s) for s in subjects]
        head, tail = sarif.render_around_results(report, (c.id for s in kept for c in s.checks))
        texts = [t for t in map(sarif.subject_text, subjects) if t]
        assert head + sarif.RESULT_SEPARATOR.join(texts) + tail == render(report, "sarif")
    plain = Subject("x", "VERIFIED", (Check("a", "pass", "fine"),))
    assert sarif.subject_text(plain) == ""  # no results: nothing is spooled for it
    assert sarif.rule_subject(plain).checks == ()


def test_junit_failure_is_found_in_the_case_text() -> None:
    tricky = Subject('<failure a="b">', "VERIFIED", (Check("x", "info", "<failure "),))
    assert not junit.case_failed(junit.subject_case("verify", tricky))
    failed = Subject("<failure ", "FAIL", (Check("x", "fail", "<failure x"),))
    assert junit.case_failed(junit.subject_case("verify", failed))
    unpinned = Subject("u", "UNPINNED", (Check("k", "not-evaluated", "no pin"),))
    assert junit.case_failed(junit.subject_case("verify", unpinned))


class _Marked(str):
    """A str subclass: not plain JSON to the fast encoder, so the standard library writes it."""


@pytest.mark.parametrize(
    "check",
    [
        Check("binding.x", "fail", "bad", "/a"),
        Check(_Marked("binding.x"), "fail", "bad", "/a"),
        Check("binding.x", "fail", "bad \ud800 \u2028 \x1b", _Marked("/a")),
        Check("binding.x", "not-evaluated", "untold", ""),
    ],
)
@pytest.mark.parametrize("name", ["r.json", "log.jsonl:99999999999999999999999", "r\\xff.json"])
def test_sarif_subject_text_equals_the_standard_library_encoding(check: Check, name: str) -> None:
    # A subject's results are judged plain by their checks' ids and locations alone; whatever
    # they hold (a str subclass, a lone surrogate, a line beyond 64 bits) the text is the
    # standard library's.
    subject = Subject(name, "FAIL", (check, Check("a.b", "pass", "fine")))
    expected = sarif.RESULT_SEPARATOR.join(
        json.dumps(r, sort_keys=True, indent=2, ensure_ascii=False).replace("\n", sarif._INDENT)
        for r in sarif.results_for_subject(subject)
    )
    assert expected and sarif.subject_text(subject) == expected
