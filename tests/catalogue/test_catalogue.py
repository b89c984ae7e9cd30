"""The id catalogue: complete, shipped as package data, the source of docs/checks.md, explained."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal import catalogue
from sealverify._internal.cli.main import cli
from tests.conftest import ROOT
from tests.helpers.docs import emitted_ids


def test_every_id_the_code_can_emit_has_an_entry() -> None:
    found = emitted_ids()
    assert len(found) > 150
    missing = sorted(f"{i} ({where})" for i, where in found.items() if i not in catalogue.entries())
    assert not missing, "add them to sealverify/_internal/catalogue/checks.toml: " + ", ".join(
        missing
    )


def test_every_entry_names_an_id_the_code_holds_and_a_page_that_exists() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "sealverify").rglob("*.py"))
    for entry in catalogue.entries().values():
        if entry.id.endswith(".*"):  # ids made at run time: f"diff.identity.{name}"
            prefix = entry.id.removesuffix(".*")
            held = f'f"{prefix}.{{' in source or f'"{prefix}"' in source
        else:  # a literal, or a literal prefix the leaf is added to (tools.drift + .added)
            parent = entry.id.rpartition(".")[0]
            held = f'"{entry.id}"' in source or f'"{parent}"' in source
        assert held, f"{entry.id}: no code emits it; remove the entry"
        page = entry.page.partition("#")[0]
        assert (ROOT / "docs" / page).is_file(), (entry.id, entry.page)
        assert entry.short.endswith((".", "…")), entry.id


def test_the_checks_md_table_is_generated_from_the_catalogue() -> None:
    text = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    stale = "run: python -m sealverify._internal.catalogue docs/checks.md"
    assert catalogue.replace_table(text) == text, stale
    for check_id in catalogue.entries():
        assert f"| `{check_id}` |" in text


def test_the_regenerating_command_rewrites_a_stale_table(tmp_path: Path) -> None:
    stale = tmp_path / "checks.md"
    stale.write_text(f"# x\n\n{catalogue.TABLE_BEGIN}\n| old |\n{catalogue.TABLE_END}\n")
    command = [sys.executable, "-m", "sealverify._internal.catalogue"]
    assert subprocess.run([*command, "--check", str(stale)], check=False).returncode == 1
    assert subprocess.run([*command, str(stale)], check=False).returncode == 0
    assert "| old |" not in stale.read_text()
    assert subprocess.run([*command, "--check", str(stale)], check=False).returncode == 0
    unmarked = tmp_path / "plain.md"
    unmarked.write_text("# no markers\n")
    assert subprocess.run([*command, str(unmarked)], check=False).returncode == 2


def test_the_catalogue_is_package_data() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["sealverify"]
    data = ROOT / "sealverify"
    assert any((data / "_internal" / "catalogue" / "checks.toml") in data.glob(p) for p in patterns)


def test_a_family_entry_covers_ids_made_at_run_time() -> None:
    family = catalogue.lookup("diff.identity.request-sha256")
    assert family is not None and family.id == "diff.identity.*"
    exact = catalogue.lookup("tools.drift.added")
    assert exact is not None and exact.id == "tools.drift.added"
    assert catalogue.lookup("diff.nothing-like-this") is None
    assert catalogue.lookup("nothing") is None


def test_each_entry_read_from_its_own_table_equals_the_whole_file_reading() -> None:
    """A lookup parses only the tables it needs: each alone must read as the whole file does."""
    whole = catalogue.entries()
    sections = catalogue._sections()
    assert list(sections) == list(whole)  # one header per id, none missed, none extra
    for check_id, section in sections.items():
        alone = tomllib.loads(section)
        assert list(alone) == [check_id]
        assert catalogue._entry(check_id, alone[check_id]) == whole[check_id]


def test_a_lookup_in_a_fresh_process_reads_only_the_tables_it_needs() -> None:
    probe = (
        "from sealverify._internal import catalogue\n"
        "ids = ['binding.args-hash', 'diff.identity.request-sha256', 'tools.drift.added', 'x.y']\n"
        "found = [catalogue.lookup(i) for i in ids]\n"
        "print(catalogue.entries.cache_info().currsize)\n"
        "print([None if e is None else e.id for e in found])\n"
        "whole = catalogue.entries()\n"
        "print(found[0] == whole['binding.args-hash'], found[2] == whole['tools.drift.added'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "0"  # the whole file was not parsed for four lookups
    assert lines[1] == "['binding.args-hash', 'diff.identity.*', 'tools.drift.added', None]"
    assert lines[2] == "True True"


def test_a_malformed_entry_is_refused() -> None:
    with pytest.raises(ValueError, match="severity"):
        catalogue._entry("x.y", {"severity": "fatal", "page": "a.md", "short": "s", "full": "f"})
    with pytest.raises(ValueError, match="exactly"):
        catalogue._entry("x.y", {"severity": "error", "page": "a.md", "short": "s"})


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["explain", *args])
    return result.exit_code, result.stdout, result.stderr


def test_explain_an_exact_id() -> None:
    code, out, _ = _run("log.broken-line")
    assert code == 0
    assert out.startswith("log.broken-line (error)\n")
    assert "not a JSON receipt" in out
    assert "docs/verify.md" in out


def test_explain_a_prefix_lists_the_ids_under_it() -> None:
    code, out, _ = _run("binding.")
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines()]
    assert listed == [e.id for e in catalogue.matching("binding.")]
    assert "binding.request-sha256" in listed and len(listed) > 20


def test_explain_an_unknown_id_exits_2_with_close_matches() -> None:
    code, out, err = _run("bindng.request-sha256")
    assert code == 2 and out == ""
    assert "unknown id 'bindng.request-sha256'" in err
    assert "binding.request-sha256" in err
    code, _, err = _run("zzz")
    assert code == 2 and "did you mean" not in err


def test_explain_list_and_json() -> None:
    code, out, _ = _run("--list")
    assert code == 0 and len(out.splitlines()) == len(catalogue.entries())
    code, out, _ = _run("--list", "--format", "json")
    listed = json.loads(out)
    assert [e["id"] for e in listed] == list(catalogue.entries())
    assert set(listed[0]) == {"id", "severity", "page", "short", "full"}
    code, _, err = _run()
    assert code == 2 and "--list" in err


def test_explain_runs_from_an_installed_copy_outside_the_source_tree(tmp_path: Path) -> None:
    # python -m sealverify from elsewhere: the catalogue comes from the package, not docs/.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-m", "sealverify", "explain", "authority.published-key"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "authority.published-key (" in result.stdout


_DOC_PATH = re.compile(r"docs/|\b[a-z][a-z-]*\.md\b")  # docs/x.md or trust.md; not SKILL.md


def _commands(group: click.Group, ctx: click.Context) -> Iterator[tuple[str, click.Command]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        yield name, command
        if isinstance(command, click.Group):
            for sub, inner in _commands(command, ctx):
                yield f"{name} {sub}", inner


def test_help_texts_never_point_at_files_an_installed_copy_lacks() -> None:
    ctx = click.Context(cli)
    seen = 0
    for name, command in _commands(cli, ctx):
        texts = [command.help or "", command.short_help or "", command.epilog or ""]
        texts += [p.help or "" for p in command.params if isinstance(p, click.Option)]
        for text in texts:
            assert not _DOC_PATH.search(text), (name, text)
        seen += 1
    assert seen >= 15  # every command and subcommand was read


def test_the_catalogue_file_keeps_its_ids_sorted() -> None:
    text = (ROOT / "sealverify" / "_internal" / "catalogue" / "checks.toml").read_text(
        encoding="utf-8"
    )
    ids = re.findall(r'^\["([^"]+)"\]$', text, re.MULTILINE)
    assert ids == sorted(ids) and len(ids) == len(catalogue.entries())


def test_every_id_reported_on_the_bundled_fixtures_has_an_entry() -> None:
    # Ids made at run time are not literals in the code: the reports themselves are read.
    demo = ROOT / "fixtures" / "demo"
    runs = [
        ["verify", str(demo / "receipts"), "--trust", str(demo / "trust.json")],
        ["verify", str(demo / "receipts"), "--allow-published-keys"],
    ]
    runs += [["frame", str(p)] for p in sorted((ROOT / "fixtures" / "frames").glob("*.bin"))]
    frames = sorted((ROOT / "fixtures" / "frames").glob("*.bin"))
    runs.append(["diff", str(frames[0]), str(frames[1])])
    seen: set[str] = set()
    for args in runs:
        result = CliRunner().invoke(cli, [*args, "--format", "json"])
        report = json.loads(result.stdout)
        checks = [*report["findings"], *(c for s in report["subjects"] for c in s["checks"])]
        seen.update(check["id"] for check in checks)
    assert len(seen) > 40
    assert not sorted(i for i in seen if catalogue.lookup(i) is None)


_PIECES = ('["a"]', '["b"]', '["a.b"]', '["a"]x', "\n", "\n\n", "x", '"', "\\", "[", "]", "a")


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=24).map("".join),
    st.sampled_from(["a", "b", "a.b", "c", "", 'a"', "a\\", "a\nb", "x"]),
)
def test_a_section_found_by_its_header_is_the_split_files_section(text: str, check_id: str) -> None:
    # One lookup finds its header line from the end instead of splitting the whole file: the
    # same text as the split's, for repeated, embedded and unterminated headers alike.
    assert catalogue._section(text, check_id) == catalogue._split(text).get(check_id)


def test_every_id_of_the_file_has_the_split_files_section() -> None:
    text = catalogue._checks_text()
    sections = catalogue._split(text)
    for check_id, section in sections.items():
        assert catalogue._section(text, check_id) == section
    for odd in ("", "x.y", "binding", 'binding."', "binding\\x", "binding.\n"):
        assert catalogue._section(text, odd) is None
