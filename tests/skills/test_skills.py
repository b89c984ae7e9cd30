"""SEP-2640 skill identity: seed 001's four cases, the pinned YAML typing rule, names, digests."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.skills.identity import (
    ResourceFile,
    check_name,
    parse_frontmatter,
    verify_skill,
)
from sealverify._internal.wire.strictjson import parse_bytes

NAME = "namespace-detection-demo"
DESCRIPTION = "Demonstrates transport of MCP-reserved Agent Skills metadata."


def _md(extra: str = "") -> bytes:
    return f"---\nname: {NAME}\ndescription: {DESCRIPTION}\n{extra}---\n# Body\n".encode()


def _entry(frontmatter: dict[str, Any], resources: list[dict[str, str]] | None = None) -> Any:
    # Without resources the entry omits the member (a generated skill under SEP-2640): these
    # tests are about the frontmatter, and no digest is claimed.
    doc: dict[str, Any] = {"uri": f"skill://{NAME}/SKILL.md", "frontmatter": frontmatter}
    if resources is not None:
        doc["resources"] = resources
    return parse_bytes(json.dumps(doc).encode())


def _base(**more: Any) -> dict[str, Any]:
    return {"name": NAME, "description": DESCRIPTION, **more}


def _ids(report: Any, status: str | None = None) -> set[str]:
    return {c.id for s in report.subjects for c in s.checks if status in (None, c.status)}


# --- seed 001: the four cases, each must load (verification passes) ----------------------------

FOUR_CASES = [
    (
        "io.modelcontextprotocol/test-marker present",
        '  io.modelcontextprotocol/test-marker: "detected-by-vscode"\n',
        {"io.modelcontextprotocol/test-marker": "detected-by-vscode"},
    ),
    (
        "only com.example/test-marker",
        '  com.example/test-marker: "detected-by-vscode"\n',
        {"com.example/test-marker": "detected-by-vscode"},
    ),
    (
        "io.modelcontextprotocol/unknown-test-key",
        '  io.modelcontextprotocol/unknown-test-key: "some-value"\n',
        {"io.modelcontextprotocol/unknown-test-key": "some-value"},
    ),
    ("no metadata", None, None),
]


@pytest.mark.parametrize(
    ("case", "yaml_meta", "json_meta"), FOUR_CASES, ids=[c[0] for c in FOUR_CASES]
)
def test_seed001_four_cases_pass(
    case: str, yaml_meta: str | None, json_meta: dict[str, str] | None
) -> None:
    md = _md("metadata:\n" + yaml_meta if yaml_meta else "")
    front = _base(metadata=json_meta) if json_meta else _base()
    report = verify_skill(_entry(front), md, [])
    assert report.exit_code == 0, [c for s in report.subjects for c in s.checks]
    reserved = [
        c
        for s in report.subjects
        for c in s.checks
        if c.id == "skill.metadata.reserved-unrecognized"
    ]
    # Reserved keys are preserved and named, never acted on; other prefixes are just compared.
    expected = 1 if yaml_meta and "io.modelcontextprotocol/" in yaml_meta else 0
    assert len(reserved) == expected
    assert all(c.status == "info" for c in reserved)


def test_seed001_reserved_key_value_differs_fails() -> None:
    md = _md('metadata:\n  io.modelcontextprotocol/unknown-test-key: "a"\n')
    report = verify_skill(
        _entry(_base(metadata={"io.modelcontextprotocol/unknown-test-key": "b"})), md, []
    )
    assert report.exit_code == 1
    failing = [c for s in report.subjects for c in s.checks if c.status == "fail"]
    assert [c.location for c in failing] == [
        "/frontmatter/metadata/io.modelcontextprotocol~1unknown-test-key"
    ]


def test_seed001_reserved_key_missing_from_listing_fails() -> None:
    md = _md('metadata:\n  io.modelcontextprotocol/test-marker: "x"\n')
    report = verify_skill(_entry(_base(metadata={})), md, [])
    assert report.exit_code == 1
    assert "skill.frontmatter.mismatch" in _ids(report, "fail")


# --- the pinned YAML -> JSON typing rule --------------------------------------------------------


def test_typing_rule_values() -> None:
    fm = parse_frontmatter(
        b"---\na: 1.0\nb: 2024-01-15\nc: yes\nd: off\ne: 0x1F\nf: ~\n"
        b"g: True\nh: '1.0'\non: x\n---\n"
    ).value
    assert fm == {
        "a": Decimal("1.0"),
        "b": "2024-01-15",
        "c": "yes",
        "d": "off",
        "e": "0x1F",
        "f": None,
        "g": True,
        "h": "1.0",
        "on": "x",
    }


def test_number_compares_by_value_not_spelling() -> None:
    report = verify_skill(_entry(_base(version=1)), _md("version: 1.0\n"), [])
    assert report.exit_code == 0


def test_unquoted_number_against_listed_string_fails_with_hint() -> None:
    report = verify_skill(_entry(_base(version="1.0")), _md("version: 1.0\n"), [])
    assert report.exit_code == 1
    reason = next(c.reason for s in report.subjects for c in s.checks if c.status == "fail")
    assert "quote the value" in reason


def test_dates_and_yes_stay_strings_and_match_listing() -> None:
    md = _md("released: 2024-01-15\nenabled: yes\n")
    report = verify_skill(_entry(_base(released="2024-01-15", enabled="yes")), md, [])
    assert report.exit_code == 0


def test_anchors_reported_and_expanded() -> None:
    report = verify_skill(_entry(_base(a="v", b="v")), _md("a: &x v\nb: *x\n"), [])
    assert report.exit_code == 0
    assert "skill.yaml.alias" in _ids(report, "info")


def test_merge_key_is_ambiguous() -> None:
    md = _md("base: &b {k: v}\nother:\n  <<: *b\n")
    report = verify_skill(_entry(_base(base={"k": "v"}, other={"<<": {"k": "v"}})), md, [])
    assert "skill.yaml.merge-key" in _ids(report, "fail")


def test_duplicate_yaml_key_fails() -> None:
    report = verify_skill(_entry(_base()), _md(f"name: {NAME}\n"), [])
    assert "skill.yaml.duplicate-key" in _ids(report, "fail")


def test_non_string_metadata_value_fails() -> None:
    md = _md("metadata:\n  version: 1.0\n")
    report = verify_skill(_entry(_base(metadata={"version": 1.0})), md, [])
    assert "skill.metadata.not-a-string" in _ids(report, "fail")


def test_missing_frontmatter_is_a_finding() -> None:
    report = verify_skill(_entry(_base()), b"# no frontmatter\n", [])
    assert report.exit_code == 1 and "skill.frontmatter.unreadable" in _ids(report, "fail")


# --- Agent Skills name rules and the entry uri --------------------------------------------------


@pytest.mark.parametrize("name", ["a", "pdf-processing", "x1-2y", "a" * 64])
def test_valid_names(name: str) -> None:
    assert check_name(name) is None


@pytest.mark.parametrize("name", ["", "-a", "a-", "a--b", "A", "a_b", "a" * 65, "é"])
def test_invalid_names(name: str) -> None:
    assert check_name(name) is not None


def test_uri_must_name_the_skill() -> None:
    doc = {"uri": "skill://other-skill/SKILL.md", "frontmatter": _base(), "resources": []}
    report = verify_skill(parse_bytes(json.dumps(doc).encode()), _md(), [])
    assert "skill.uri.name-mismatch" in _ids(report, "fail")


# --- resource digests ---------------------------------------------------------------------------


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def test_resource_digests_match_raw_bytes() -> None:
    md, ref = _md(), b"line\r\nCRLF kept\r\n"
    entry = _entry(
        _base(),
        [
            {"uri": f"skill://{NAME}/SKILL.md", "digest": _digest(md)},
            {"uri": f"skill://{NAME}/references/GUIDE.md", "digest": _digest(ref)},
        ],
    )
    report = verify_skill(entry, md, [ResourceFile("references/GUIDE.md", ref)])
    assert report.exit_code == 0
    # A single changed byte (line endings normalized) is a mismatch.
    bad = verify_skill(entry, md, [ResourceFile("references/GUIDE.md", ref.replace(b"\r", b""))])
    assert "skill.resource.digest-mismatch" in _ids(bad, "fail")


def test_unlisted_file_is_a_mismatch() -> None:
    report = verify_skill(_entry(_base(), []), _md(), [ResourceFile("scripts/x.py", b"print(1)\n")])
    assert "skill.resource.unlisted" in _ids(report, "fail")


def test_bad_digest_format_and_unfetched_file() -> None:
    entry = _entry(_base(), [{"uri": f"skill://{NAME}/a.txt", "digest": "SHA256:ABC"}])
    report = verify_skill(entry, _md(), [])
    assert "skill.resource.digest-format" in _ids(report, "fail")
    assert "skill.resource.not-fetched" in _ids(report, "not-evaluated")


@pytest.mark.parametrize(
    "resource",
    [
        # RFC 3986 §2.3 and §6.2.2: %2e%2e is "..", so a normalising host loads another file.
        "notes/%2e%2e/secret/RUNBOOK.md",
        "notes/%2E%2E/secret/RUNBOOK.md",
        "notes/.%2e/secret/RUNBOOK.md",
        "%2e%2e/other-skill/SKILL.md",
        # A percent-encoded "/", "\\" or NUL splits or truncates a segment once decoded.
        "notes%2F..%2F..%2Fsecret.md",
        "notes%5c..%5csecret.md",
        "RUNBOOK.md%00.txt",
        # Any other difference from the normal form (unreserved decoded, hex case).
        "%52UNBOOK.md",
        "caf%c3%a9.md",
    ],
)
def test_resource_uri_not_in_normal_form_is_outside(resource: str) -> None:
    md = _md()
    entry = _entry(
        _base(),
        [
            {"uri": f"skill://{NAME}/SKILL.md", "digest": _digest(md)},
            {"uri": f"skill://{NAME}/{resource}", "digest": _digest(b"x")},
        ],
    )
    report = verify_skill(entry, md, [])
    assert report.exit_code == 1
    (outside,) = [c for s in report.subjects for c in s.checks if c.id == "skill.resource.outside"]
    assert outside.status == "fail" and outside.location == "/resources/1"


def test_resource_uri_with_a_differently_cased_host_is_outside() -> None:
    md = _md()
    entry = _entry(
        _base(),
        [
            {"uri": f"skill://{NAME}/SKILL.md", "digest": _digest(md)},
            {"uri": f"SKILL://{NAME.upper()}/x.md", "digest": _digest(b"x")},
        ],
    )
    assert "skill.resource.outside" in _ids(verify_skill(entry, md, []), "fail")


def test_entry_uri_not_in_normal_form_fails() -> None:
    md = _md()
    uri = f"skill://other/%2e%2e/{NAME}/SKILL.md"
    doc = {
        "uri": uri,
        "frontmatter": _base(),
        "resources": [{"uri": uri, "digest": _digest(md)}],
    }
    report = verify_skill(parse_bytes(json.dumps(doc).encode()), md, [])
    failed = _ids(report, "fail")
    assert {"skill.uri.not-normal", "skill.resource.outside"} <= failed


def test_normal_percent_encoded_resource_is_inside() -> None:
    md, data = _md(), b"caf\xc3\xa9\n"
    entry = _entry(
        _base(),
        [
            {"uri": f"skill://{NAME}/SKILL.md", "digest": _digest(md)},
            {"uri": f"skill://{NAME}/caf%C3%A9.md", "digest": _digest(data)},
        ],
    )
    report = verify_skill(entry, md, [ResourceFile("caf%C3%A9.md", data)])
    assert report.exit_code == 0, [c for s in report.subjects for c in s.checks]


# --- CLI ----------------------------------------------------------------------------------------


def _skill_dir(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / NAME
    (root / "references").mkdir(parents=True)
    md = root / "SKILL.md"
    md.write_bytes(_md())
    ref = root / "references" / "GUIDE.md"
    ref.write_bytes(b"guide\n")
    entry = tmp_path / "entry.json"
    entry.write_text(
        json.dumps(
            {
                "uri": f"skill://{NAME}/SKILL.md",
                "frontmatter": _base(),
                "resources": [
                    {"uri": f"skill://{NAME}/SKILL.md", "digest": _digest(_md())},
                    {"uri": f"skill://{NAME}/references/GUIDE.md", "digest": _digest(b"guide\n")},
                ],
            }
        )
    )
    return entry, md, ref


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_verify_table_and_json(tmp_path: Path) -> None:
    entry, md, ref = _skill_dir(tmp_path)
    table = _run("skill", "verify", "--listing", str(entry), str(md), str(ref))
    assert table.exit_code == 0, table.output
    assert "skill.frontmatter.identical" in table.stdout
    js = _run("skill", "verify", "--listing", str(entry), str(md), str(ref), "--format", "json")
    report = json.loads(js.stdout)
    assert report["summary"]["outcome"] == "pass"


def test_cli_verify_mismatch_exits_1(tmp_path: Path) -> None:
    entry, md, ref = _skill_dir(tmp_path)
    ref.write_bytes(b"guide, edited\n")
    result = _run("skill", "verify", "--listing", str(entry), str(md), str(ref), "--format", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["summary"]["failed_checks"] == 1


def test_cli_verify_unreadable_exits_2(tmp_path: Path) -> None:
    entry, md, _ = _skill_dir(tmp_path)
    assert _run("skill", "verify", "--listing", str(tmp_path / "no.json"), str(md)).exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert _run("skill", "verify", "--listing", str(bad), str(md)).exit_code == 2
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    assert _run("skill", "verify", "--listing", str(entry), str(md), str(outside)).exit_code == 2


def test_cli_the_encoded_dot_dot_resource_fails(tmp_path: Path) -> None:
    # The uri of the report: %2e%2e resolves to "..", so the listed file is another skill's.
    md = b"---\nname: notes\ndescription: Team notes\n---\n# Notes\n"
    runbook = b"restart the service\n"
    skill = tmp_path / "notes"
    (skill / "%2e%2e" / "secret").mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(md)
    (skill / "%2e%2e" / "secret" / "RUNBOOK.md").write_bytes(runbook)
    entry = tmp_path / "entry.json"
    entry.write_text(
        json.dumps(
            {
                "uri": "skill://org/notes/SKILL.md",
                "frontmatter": {"name": "notes", "description": "Team notes"},
                "resources": [
                    {"uri": "skill://org/notes/SKILL.md", "digest": _digest(md)},
                    {
                        "uri": "skill://org/notes/%2e%2e/secret/RUNBOOK.md",
                        "digest": _digest(runbook),
                    },
                ],
            }
        )
    )
    args = ["skill", "verify", "--listing", str(entry), str(skill / "SKILL.md")]
    result = _run(*args, str(skill / "%2e%2e" / "secret" / "RUNBOOK.md"), "--format", "json")
    assert result.exit_code == 1, result.output
    checks = json.loads(result.stdout)["subjects"][0]["checks"]
    (outside,) = [c for c in checks if c["id"] == "skill.resource.outside"]
    assert outside["status"] == "fail" and outside["location"] == "/resources/1"
    assert '"skill://org/secret/RUNBOOK.md"' in outside["reason"]


def test_a_digest_with_a_trailing_newline_is_not_a_digest() -> None:
    """One spelling rule for ``sha256:<hex>`` (wire.spelling): ``$`` let a final newline pass."""
    ref = b"x\n"
    digest = _digest(ref) + "\n"
    entry = _entry(_base(), [{"uri": f"skill://{NAME}/a.txt", "digest": digest}])
    report = verify_skill(entry, _md(), [ResourceFile("a.txt", ref)])
    assert "skill.resource.digest-format" in _ids(report, "fail")
