"""The GitHub Action: its entry script run with the environment a runner sets, on the demo.

Each test gives the entry a temporary ``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT`` and
``GITHUB_WORKSPACE`` and the ``INPUT_*`` variables ``action.yml`` passes, then reads what a
runner would show: the exit code, the outputs, the annotations and the summary. The last test
runs ``action.yml``'s own verify step, as written, through bash.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from sealverify._internal import catalogue
from sealverify._internal.cli import github_action
from sealverify._internal.cli.main import cli
from sealverify._internal.reports.formats import table
from sealverify._internal.results.model import Subject, fail, not_evaluated, passed
from tests.conftest import ROOT

DEMO = "fixtures/demo"


def _outputs(path: Path) -> dict[str, str]:
    """Parse a GITHUB_OUTPUT file (name=value lines and name<<DELIM blocks)."""
    values: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines())
    for line in lines:
        if "<<" in line and "=" not in line.partition("<<")[0]:
            name, _, delimiter = line.partition("<<")
            block = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            values[name] = "\n".join(block)
        else:
            name, _, value = line.partition("=")
            values[name] = value
    return values


class Step:
    """One run of the entry with a runner's files; ``code``, ``out``, ``outputs``, ``summary``."""

    def __init__(self, tmp: Path, monkeypatch: pytest.MonkeyPatch, **inputs: str) -> None:
        monkeypatch.chdir(ROOT)
        monkeypatch.delenv(catalogue.SOURCE_URL_ENV, raising=False)
        tmp.mkdir(parents=True, exist_ok=True)  # the runner's files exist before the step
        self.summary_path, self.output_path = tmp / "summary.md", tmp / "output.txt"
        env = {
            "GITHUB_STEP_SUMMARY": str(self.summary_path),
            "GITHUB_OUTPUT": str(self.output_path),
            "GITHUB_WORKSPACE": str(ROOT),
            "INPUT_SARIF": str(tmp / "out" / "sealverify.sarif"),
        }
        env.update({"INPUT_" + k.upper().replace("-", "_"): v for k, v in inputs.items()})
        self.sarif = Path(env["INPUT_SARIF"]) if env["INPUT_SARIF"] else None
        out = io.StringIO()
        self.code = github_action.main(env=env, out=out)
        self.out = out.getvalue()
        self.outputs = _outputs(self.output_path)
        self.summary = self.summary_path.read_text(encoding="utf-8")

    def annotations(self, level: str) -> list[str]:
        starts = (f"::{level} ", f"::{level}::")
        return [line for line in self.out.splitlines() if line.startswith(starts)]


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout


def test_demo_fails_the_step_with_the_readme_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = Step(tmp_path, monkeypatch, paths=f"{DEMO}/receipts\n", trust=f"{DEMO}/trust.json")
    assert step.code == 1  # a FAIL receipt and a broken log line: exit 1, as the README says
    assert step.outputs["exit-code"] == "1" and step.outputs["passed"] == "false"
    assert step.outputs["receipts"] == "13"
    assert (step.outputs["fail"], step.outputs["unpinned"], step.outputs["verified"]) == (
        "4",
        "9",
        "0",
    )
    assert step.outputs["findings"] == "1"
    rederived = [
        step.outputs[f"rederived-{k}"] for k in ("identical", "different", "not-evaluated")
    ]
    # Every decision receipt names the real build but two (the made-up one) and the bypass.
    assert rederived == ["9", "0", "4"]
    assert "9 identical, 0 different, 4 not evaluated" in step.summary
    assert step.outputs["sarif"] == str(step.sarif)
    errors = step.annotations("error")
    assert len(errors) == 14  # thirteen receipts not VERIFIED and the broken line
    bypass = next(e for e in errors if "fail-bypass" in e)
    assert bypass.startswith(
        "::error file=fixtures/demo/receipts/fail-bypass.receipt.json,"
        "title=sealverify%3A FAIL (NOT MEDIATED)::FAIL (NOT MEDIATED): bypass.not-mediated: "
    )
    assert any(
        e.startswith(
            "::error file=fixtures/demo/receipts/receipts.jsonl,line=3,"
            "title=sealverify finding::log.broken-line: "
        )
        for e in errors
    )
    assert any("receipts.jsonl,line=5," in e and "UNPINNED" in e for e in errors)
    assert "**13 receipt(s)**: 0 VERIFIED, 0 REDUCED, 9 UNPINNED, 4 FAIL" in step.summary
    assert "| FAIL | 4 |" in step.summary and "| UNPINNED | 9 |" in step.summary
    assert "the step failed (exit 1)" in step.summary
    assert "| `fixtures/demo/receipts/fail-bypass.receipt.json` | FAIL \\(NOT MEDIATED\\) |" in (
        step.summary
    )
    assert "`log.broken-line`" in step.summary
    assert "sealverify explain" in step.summary


def test_the_sarif_file_is_verify_s_own_sarif_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = Step(tmp_path, monkeypatch, paths=f"{DEMO}/receipts", trust=f"{DEMO}/trust.json")
    assert step.sarif is not None
    code, expected = _cli(
        "verify", f"{DEMO}/receipts", "--trust", f"{DEMO}/trust.json", "--format", "sarif"
    )
    assert code == 1
    assert step.sarif.read_text(encoding="utf-8") == expected


def test_sarif_rules_link_to_the_docs_of_the_action_s_own_ref(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = Step(
        tmp_path,
        monkeypatch,
        paths=f"{DEMO}/receipts",
        trust=f"{DEMO}/trust.json",
    )
    assert catalogue.SOURCE_URL_ENV not in os.environ
    env = {
        "GITHUB_SERVER_URL": "https://github.com",
        "SEALVERIFY_ACTION_REPOSITORY": "owner/sealverify",
        "SEALVERIFY_ACTION_REF": "v1",
    }
    assert github_action._source_url(env) == "https://github.com/owner/sealverify/blob/v1/"
    local = {
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_WORKSPACE": str(ROOT),
        "GITHUB_REPOSITORY": "me/evidence",
        "GITHUB_SHA": "abc123",
    }
    assert github_action._source_url(local) == "https://github.com/me/evidence/blob/abc123/"
    assert github_action._source_url({**env, catalogue.SOURCE_URL_ENV: "https://x/"}) is None
    assert github_action._source_url({}) is None
    monkeypatch.setenv("SEALVERIFY_ACTION_REPOSITORY", "owner/sealverify")
    inputs = github_action.Inputs.from_env(
        {"INPUT_PATHS": f"{DEMO}/receipts", "INPUT_SARIF": str(tmp_path / "linked.sarif")}
    )
    github_action.run(inputs, env, io.StringIO())
    document = json.loads((tmp_path / "linked.sarif").read_text(encoding="utf-8"))
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://github.com/owner/sealverify/blob/v1/README.md"
    assert all(
        r["helpUri"].startswith("https://github.com/owner/sealverify/blob/v1/docs/")
        for r in driver["rules"]
    )
    assert catalogue.SOURCE_URL_ENV not in os.environ  # restored after the run
    assert step.sarif is not None and "helpUri" not in step.sarif.read_text(encoding="utf-8")


def test_fail_on_gates_the_step_and_the_annotation_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pinned = {"paths": f"{DEMO}/receipts/verified-*.json", "trust": f"{DEMO}/trust.json"}
    strict = Step(tmp_path / "a", monkeypatch, **pinned)  # default: unpinned
    assert strict.code == 3 and strict.outputs["exit-code"] == "3"  # UNPINNED, nothing worse
    assert len(strict.annotations("error")) == 3 and not strict.annotations("warning")
    lenient = Step(tmp_path / "b", monkeypatch, **pinned, **{"fail-on": "reduced"})
    assert lenient.code == 0 and lenient.outputs["exit-code"] == "3"
    assert lenient.outputs["passed"] == "true"
    assert len(lenient.annotations("warning")) == 3 and not lenient.annotations("error")
    assert "the step passed" in lenient.summary
    allowed = Step(tmp_path / "c", monkeypatch, **pinned, **{"allow-published-keys": "true"})
    assert allowed.code == 0 and allowed.outputs["verified"] == "3"
    assert not allowed.out.count("::error") and not allowed.annotations("warning")
    assert "Published keys were allowed" in allowed.summary
    reduced = Step(
        tmp_path / "d",
        monkeypatch,
        paths=f"{DEMO}/receipts/reduced-unparseable.receipt.json",
        trust=f"{DEMO}/trust.json",
        **{"allow-published-keys": "true", "fail-on": "reduced"},
    )
    assert reduced.code == 4 and reduced.outputs["reduced"] == "1"
    report_only = Step(tmp_path / "e", monkeypatch, paths=f"{DEMO}/receipts", **{"fail-on": "none"})
    assert report_only.code == 0 and report_only.outputs["exit-code"] == "1"
    assert len(report_only.annotations("warning")) == 14  # the broken line too
    assert not report_only.annotations("error")


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"paths": "fixtures/demo/receipts/*.nothing"}, "matches no file"),
        ({"paths": "fixtures/no-such-dir"}, "no such file or directory"),
        ({"paths": ""}, "give at least one"),
        ({"paths": f"{DEMO}/receipts", "fail-on": "sometimes"}, "fail-on: expected one of"),
        ({"paths": f"{DEMO}/receipts", "config-pubkey": "AB" * 31}, "64 hex digits (either"),
        ({"paths": f"{DEMO}/receipts", "trust": "missing-trust.json"}, "--trust"),
        ({"paths": f"{DEMO}/receipts", "allow-published-keys": "yes"}, "true or false"),
    ],
)
def test_a_run_that_cannot_be_done_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inputs: dict[str, str], message: str
) -> None:
    step = Step(tmp_path, monkeypatch, **inputs)
    assert step.code == 2
    assert step.outputs == {"exit-code": "2", "passed": "false"}
    (error,) = step.annotations("error")
    assert error.startswith("::error::sealverify could not run: ") and message in error
    assert "**Could not run** (exit 2)" in step.summary
    assert step.sarif is not None and not step.sarif.exists()


def test_pins_in_either_case_are_the_pins_verify_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One pin rule everywhere: the Action used to refuse an uppercase pin that verify accepts.
    demo = json.loads((ROOT / DEMO / "trust.json").read_text(encoding="utf-8"))
    config, receipt = (key["public_key"] for key in demo["keys"])
    (kernel,) = demo["kernels"]
    runs = []
    for name, spell in (("lower", str.lower), ("upper", str.upper)):
        step = Step(
            tmp_path / name,
            monkeypatch,
            paths=f"{DEMO}/receipts/verified-*.json",
            **{
                "config-pubkey": spell(config),
                "receipt-pubkey": spell(receipt),
                "kernel-sha256": spell(kernel),
                "allow-published-keys": "true",
            },
        )
        runs.append((step.code, step.outputs["verified"], step.outputs["unpinned"]))
    assert runs[0] == runs[1] and runs[0][0] != 2 and runs[0][1] != "0"


def test_working_directory_resolves_every_path_and_annotations_stay_workspace_relative(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = Step(
        tmp_path,
        monkeypatch,
        paths="receipts/*.jsonl",
        trust="trust.json",
        sarif="",
        report=str(tmp_path / "report.jsonl"),
        **{"working-directory": DEMO},
    )
    assert step.code == 1 and step.outputs["receipts"] == "4"
    assert step.outputs["sarif"] == ""
    assert any(
        "file=fixtures/demo/receipts/receipts.jsonl,line=3," in e for e in step.annotations("error")
    )
    code, expected = _cli(
        "verify",
        f"{DEMO}/receipts/receipts.jsonl",
        "--trust",
        f"{DEMO}/trust.json",
        "--format",
        "jsonl",
    )
    assert code == step.code
    assert (tmp_path / "report.jsonl").read_text(encoding="utf-8") == expected


@pytest.mark.parametrize("fmt", ["json", "junit", "sarif"])
def test_the_report_input_writes_verify_s_own_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    target = tmp_path / f"report.{fmt}"
    Step(
        tmp_path,
        monkeypatch,
        paths=f"{DEMO}/receipts",
        trust=f"{DEMO}/trust.json",
        report=str(target),
        format=fmt,
    )
    _, expected = _cli(
        "verify", f"{DEMO}/receipts", "--trust", f"{DEMO}/trust.json", "--format", fmt
    )
    assert target.read_text(encoding="utf-8") == expected


def test_workflow_commands_are_escaped_and_log_lines_neutralised() -> None:
    line = github_action.annotation("error", "50% a\nb", file="x,y:z.json", line=3)
    assert line == "::error file=x%2Cy%3Az.json,line=3::50%25 a%0Ab"
    assert github_action._neutral("::error::injected") == " ::error::injected"
    assert github_action._neutral("plain") == "plain"


def test_action_yml_passes_every_input_and_maps_every_output() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    install, verify, upload = action["runs"]["steps"]
    assert "github.action_path" in install["env"]["SEALVERIFY_ACTION_DIR"]
    assert "pip install" in install["run"] and "$SEALVERIFY_ACTION_DIR" in install["run"]
    passed = {
        name.removeprefix("INPUT_").lower().replace("_", "-"): value
        for name, value in verify["env"].items()
        if name.startswith("INPUT_")
    }
    for name in action["inputs"]:
        if name not in ("python", "artifact"):  # used by the install and upload steps
            assert passed[name] == f"${{{{ inputs.{name} }}}}", name
    # format: html is uploaded as an artifact, by an action pinned to a commit
    assert "inputs.format == 'html'" in upload["if"] and "!cancelled()" in upload["if"]
    assert re.fullmatch(r"actions/upload-artifact@[0-9a-f]{40}", upload["uses"])
    assert upload["with"]["path"] == "${{ steps.verify.outputs.report }}"
    source = (ROOT / "sealverify" / "_internal" / "cli" / "github_action.py").read_text(
        encoding="utf-8"
    )
    for name in passed:
        assert f'"{name}"' in source, f"the entry never reads input {name}"
    written = set(re.findall(r'"([a-z-]+)": ', source)) | {
        "verified",
        "reduced",
        "unpinned",
        "fail",
    }
    for name, output in action["outputs"].items():
        assert output["value"] == f"${{{{ steps.verify.outputs.{name} }}}}"
        assert name in written, name


def test_action_yml_s_verify_step_runs_as_written(tmp_path: Path) -> None:
    # The verify step's env and run line, with the expressions a runner would fill in, run
    # by bash; the venv the install step makes is this interpreter.
    if shutil.which("bash") is None:
        pytest.skip("no bash on this machine")
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    verify = action["runs"]["steps"][1]
    given = {"paths": f"{DEMO}/receipts/verified-*.json", "trust": f"{DEMO}/trust.json"}
    values = {
        name: given.get(name, spec.get("default", "")) for name, spec in action["inputs"].items()
    }
    context = {
        "github.action_path": str(ROOT),
        "github.action_repository": "",
        "github.action_ref": "",
    }

    def fill(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            key = match.group(1)
            return (
                values[key.removeprefix("inputs.")] if key.startswith("inputs.") else context[key]
            )

        return re.sub(r"\$\{\{ ([a-z0-9._-]+) \}\}", one, text)

    python = tmp_path / "sealverify-venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    env.pop(catalogue.SOURCE_URL_ENV, None)
    env.update({name: fill(str(value)) for name, value in verify["env"].items()})
    env.update(
        RUNNER_TEMP=str(tmp_path),
        GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
        GITHUB_OUTPUT=str(tmp_path / "output.txt"),
        GITHUB_WORKSPACE=str(ROOT),
        INPUT_SARIF=str(tmp_path / "sealverify.sarif"),
    )
    done = subprocess.run(
        ["bash", "-e", "-c", verify["run"]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 3, done.stdout + done.stderr  # UNPINNED: published test keys
    outputs = _outputs(tmp_path / "output.txt")
    assert outputs["receipts"] == "3" and outputs["unpinned"] == "3"
    assert done.stdout.count("::error file=fixtures/demo/receipts/verified-") == 3
    assert "sealverify verify: 3 receipt(s)" in done.stdout  # verify's summary line, in the log
    assert json.loads((tmp_path / "sealverify.sarif").read_text())["version"] == "2.1.0"


def test_awkward_file_names_stay_one_table_cell_and_one_annotation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "evidence"
    folder.mkdir()
    odd = folder / "a|b, c:d.receipt.json"
    odd.write_bytes((ROOT / DEMO / "receipts" / "fail-bypass.receipt.json").read_bytes())
    step = Step(tmp_path / "run", monkeypatch, paths=str(folder))
    assert step.code == 1
    (error,) = step.annotations("error")
    assert "file=" + str(odd).replace(",", "%2C").replace(":", "%3A") + "," in error
    row = next(line for line in step.summary.splitlines() if "receipt.json" in line)
    assert "a\\|b, c:d.receipt.json" in row and row.count(" | ") == 2


def test_the_decisive_checks_are_the_ones_the_table_names_first() -> None:
    checks = (
        fail("binding.args-hash", "args_hash differs"),
        fail("approval.expiry", "expired"),
        fail("legacy.guard-target-omits-meta", "legacy form"),
        fail("signature.object-b", "signature does not verify"),
        fail("binding.cert-hash", "cert hash differs"),
        fail("document.members", "unknown member"),
        not_evaluated("replay.decision", "no kernel profile"),
        passed("receipt.parse", "parsed"),
    )
    subject = Subject("r.json", "FAIL", checks)
    decisive = [c.id for c in github_action._decisive(subject)]
    assert decisive == ["document.members", "signature.object-b", "binding.args-hash"]
    why = table.decisive_reason([c for c in checks if c.status == "fail"])
    assert why.startswith(
        "; ".join(f"{c.id}: {c.reason}" for c in github_action._decisive(subject))
    )
    only_unevaluated = Subject("r.json", "REDUCED", (checks[-2], checks[-1]))
    assert [c.id for c in github_action._decisive(only_unevaluated)] == ["replay.decision"]
