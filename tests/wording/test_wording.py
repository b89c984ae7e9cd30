"""Wording rules: planted violations, mentions, real receipts and documents, the lint CLI."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.wire.framing import split_stdio
from sealverify._internal.wording import rules as wording
from tests.conftest import ROOT, shared_path


def ids(checks: list[wording.Check]) -> list[str]:
    return [c.id for c in checks if c.status == "fail"]


# --- documents --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("The traceparent value is inert.", "wording.inert"),
        ("Trace keys are semantically inert and can be ignored.", "wording.inert"),
        ("Excluded metadata values are inert, so nothing downstream reads them.", "wording.inert"),
        ("- progressToken: inert", "wording.inert"),
        ("The _meta key is not negligible; it is inert.", "wording.inert"),
        ("traceparent is not present in the authority identity.", "wording.not-present-unobserved"),
        ("Excluded keys are not present in the guard target.", "wording.not-present-unobserved"),
        ("baggage isn't present in the effect commitment", "wording.not-present-unobserved"),
    ],
)
def test_planted_document_violations(text: str, rule: str) -> None:
    assert ids(wording.lint_text(text)) == [rule]


@pytest.mark.parametrize(
    "text",
    [
        "It is not semantically inert.",
        "They must never be described as semantically inert.",
        "must never call an excluded key or value “inert.”",
        'Never write "inert" about a _meta key.',
        "Do not call a key `inert` in a receipt.",
        "It must never say or imply “not present” for a present excluded key.",
        "The noble gas argon is inert.",  # not about metadata
        "The key is not present in the request.",  # a document cannot be checked
        "```\nthe traceparent key is inert\n```\n",  # code block
        "Neither inert nor optional: the key selects request semantics.",
    ],
)
def test_document_mentions_and_denials_are_clean(text: str) -> None:
    assert ids(wording.lint_text(text)) == []


def test_violation_is_located_by_line() -> None:
    checks = wording.lint_text("# Title\n\nFine text.\n\nThe baggage key is inert.\n")
    assert [c.location for c in checks] == ["line 5"]
    assert checks[0].data["excerpt"] == "The baggage key is inert."


def test_seed_documents_lint_clean() -> None:
    seeds = sorted(shared_path("seeds").glob("*.txt"))
    assert seeds
    for path in seeds:
        assert ids(wording.lint_text(path.read_text(encoding="utf-8"), markdown=False)) == [], path


def test_seed_000_would_be_caught_without_its_quotes() -> None:
    """The seed lints clean because of the mention rule, not because the rules are blind."""
    seed = shared_path("seeds", "000_1cf2c566c1259e6c.txt").read_text(encoding="utf-8")
    stripped = seed.replace("“inert.”", "inert.").replace("call an excluded", "call the excluded")
    stripped = stripped.replace("must never call", "must call")
    assert "wording.inert" in ids(wording.lint_text(stripped, markdown=False))


def test_project_docs_lint_clean() -> None:
    docs = sorted((ROOT / "docs").glob("*.md"))
    assert docs
    for path in docs:
        assert ids(wording.lint_text(path.read_text(encoding="utf-8"))) == [], path


# --- receipts ---------------------------------------------------------------------------------


def test_receipt_rules() -> None:
    receipt = {
        "reason": "traceparent not present",
        "certs": [{"reason": "baggage is inert"}, {"reason": "trace ok (1 events)"}],
        "kernel_identity": {"note": "fine"},
        "arguments": {"text": "this inert argument is user data"},
        "_meta": {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
    }
    checks = wording.lint_receipt(receipt, None)
    assert sorted((c.id, c.location) for c in checks) == [
        ("wording.inert", "/certs/0/reason"),
        ("wording.not-present-carried", "/reason"),
    ]


def test_not_present_checked_against_frame_bytes() -> None:
    frame = split_stdio(
        shared_path("frames", "mcp-python-sdk-2.3.0", "modern-diff-base.c2s.bin").read_bytes()
    )[0]
    keys = frozenset(json.loads(frame.line)["params"]["_meta"])
    receipt = {"notes": ["progressToken not present", "tracestate not present"]}
    checks = wording.lint_receipt(receipt, keys)
    # The frame carries progressToken but not tracestate: only the first is a false claim.
    assert [(c.id, c.location) for c in checks if c.status == "fail"] == [
        ("wording.not-present-carried", "/notes/0")
    ]
    unobserved = wording.lint_receipt(receipt, None)
    assert ids(unobserved) == ["wording.not-present-unobserved"] * 2


def test_c_record_excluded_keys_need_the_label() -> None:
    receipt = {
        "partition_attestation": {
            "record": {"policy": "c-commit-unknown", "exclusion_declaration": ["traceparent"]}
        },
        "statements": [
            "traceparent was left out",
            "traceparent is excluded from authority identity.",
        ],
    }
    checks = wording.lint_receipt(receipt, None)
    assert [(c.id, c.location) for c in checks if c.status == "fail"] == [
        ("wording.excluded-unlabelled", "/statements/0")
    ]
    receipt["partition_attestation"]["record"]["policy"] = "commit-all"  # type: ignore[index]
    assert ids(wording.lint_receipt(receipt, None)) == []


def test_clean_receipt_reports_a_pass() -> None:
    checks = wording.lint_receipt({"reason": "every gating kernel allows"}, frozenset())
    assert [(c.id, c.status) for c in checks] == [("wording.clean", "pass")]


def test_real_receipts_lint_clean() -> None:
    root = shared_path("fixtures", "seal")
    receipts = sorted(root.rglob("*receipt*.json"))
    assert len(receipts) >= 5
    strings = 0
    for path in receipts:
        document = json.loads(path.read_text(encoding="utf-8"))
        assert ids(wording.lint_receipt(document, None)) == [], path
        strings += len(wording.receipt_strings(document))
    assert strings >= 3 * len(receipts) // 2


def test_receipt_strings_skip_request_data() -> None:
    document = {
        "reason": "r",
        "kernel_identity": {"note": "n"},
        "asserted_provenance": {"note": "p"},
        "arguments": {"reason": "user data"},
        "emitted_bytes": "bytes",
        "certs": [{"reason": "c"}],
        "evidence": {"human_present_detail": "d"},
    }
    assert wording.receipt_strings(document) == [
        ("/reason", "r"),
        ("/kernel_identity/note", "n"),
        ("/asserted_provenance/note", "p"),
        ("/certs/0/reason", "c"),
        ("/evidence/human_present_detail", "d"),
    ]


# --- rule files -------------------------------------------------------------------------------


def test_rule_file_enable_disable_and_phrases() -> None:
    rules = wording.parse_rules(
        'disable = ["wording.inert"]\n'
        '[[phrase]]\nid = "house.harmless"\nphrase = "harmless"\nreason = "say what it does"\n'
    )
    text = "The traceparent key is inert. The baggage value is harmless."
    checks = wording.lint_text(text, rules)
    assert ids(checks) == ["house.harmless"] and checks[0].reason == "say what it does"
    only = wording.parse_rules('enable = ["wording.not-present-unobserved"]\n')
    assert only.enabled == frozenset({"wording.not-present-unobserved"})
    assert ids(wording.lint_text(text, only)) == []


@pytest.mark.parametrize(
    "text",
    [
        "enable = [",
        'enable = ["wording.nope"]',
        "colour = 1",
        '[[phrase]]\nid = "wording.inert"\nphrase = "x"',
        '[[phrase]]\nid = "house.x"\nphrase = "  "',
        '[[phrase]]\nid = "Bad Id"\nphrase = "x"',
    ],
)
def test_bad_rule_files_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        wording.parse_rules(text)


# --- CLI --------------------------------------------------------------------------------------


def run(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, args, standalone_mode=False)
    if isinstance(result.exception, click.ClickException):  # a usage error, or could not run
        return 2, result.output
    assert result.exception is None, result.exception
    return int(result.return_value or 0), result.stdout


def test_cli_exit_codes_and_formats(tmp_path: Path) -> None:
    clean = tmp_path / "clean.md"
    clean.write_text("The traceparent key is excluded from authority identity.\n")
    dirty = tmp_path / "dirty.md"
    dirty.write_text("The traceparent key is inert.\n")
    assert run(["lint", str(clean)])[0] == 0
    code, out = run(["lint", str(clean), str(dirty), "--format", "json"])
    assert code == 1
    report = json.loads(out)
    assert report["summary"] == {"files": 2, "violations": 1}
    code, out = run(["lint", str(dirty), "--format", "sarif"])
    assert code == 1
    results = json.loads(out)["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["wording.inert"]
    assert run(["lint", str(tmp_path / "missing.md")])[0] == 2
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe")
    assert run(["lint", str(tmp_path / "bad.txt")])[0] == 2
    (tmp_path / "bad.json").write_text('{"a":1,"a":2}')
    assert run(["lint", str(tmp_path / "bad.json")])[0] == 2


def test_cli_rules_file(tmp_path: Path) -> None:
    dirty = tmp_path / "dirty.md"
    dirty.write_text("The traceparent key is inert.\n")
    rules = tmp_path / "rules.toml"
    rules.write_text('disable = ["wording.inert"]\n')
    assert run(["lint", str(dirty), "--rules", str(rules)])[0] == 0
    rules.write_text("disable = 3\n")
    assert run(["lint", str(dirty), "--rules", str(rules)])[0] == 2


def test_cli_receipt_and_directory(tmp_path: Path) -> None:
    (tmp_path / "r.receipt.json").write_text(json.dumps({"reason": "the baggage key is inert"}))
    (tmp_path / "notes.md").write_text("Nothing to see.\n")
    code, out = run(["lint", str(tmp_path), "--format", "json"])
    assert code == 1
    subjects = {Path(s["name"]).name: s for s in json.loads(out)["subjects"]}
    assert subjects["r.receipt.json"]["facts"]["kind"] == "receipt"
    assert subjects["notes.md"]["outcome"] == "CLEAN"


def test_lint_refuses_an_empty_folder_and_expands_a_quoted_glob(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    run = CliRunner().invoke(cli, ["lint", str(empty)])
    assert run.exit_code == 2 and "no files to lint" in run.output
    notes = tmp_path / "notes" / "deep"
    notes.mkdir(parents=True)
    (notes / "a.md").write_text("The traceparent value is inert.\n")
    (notes / "b.txt").write_text("Nothing to see.\n")
    monkeypatch.chdir(tmp_path)
    run = CliRunner().invoke(cli, ["lint", "notes/**/*.md", "--format", "json"])
    assert run.exit_code == 1, run.output
    assert [s["name"] for s in json.loads(run.stdout)["subjects"]] == ["notes/deep/a.md"]
    run = CliRunner().invoke(cli, ["lint", "notes/**/*.rst"])
    assert run.exit_code == 2 and "no file matches this pattern" in run.output
