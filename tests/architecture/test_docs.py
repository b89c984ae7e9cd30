"""Docs explain every check and finding id the code can emit, and the README stays true."""

from __future__ import annotations

import re
import shlex

from tests.conftest import ROOT
from tests.helpers.docs import emitted_ids


def _docs() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md"))


def test_every_literal_check_id_is_documented() -> None:
    docs = _docs()
    found = emitted_ids()
    assert len(found) > 150
    missing = sorted(
        f"{i} ({where})" for i, where in found.items() if f"`{i}`" not in docs and i not in docs
    )
    assert not missing, missing


def test_checks_index_links_every_doc() -> None:
    index = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")
    for path in (ROOT / "docs").glob("*.md"):
        if path.name != "checks.md":
            assert f"({path.name})" in index, path.name


def _setup_commands() -> tuple[str, str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.DOTALL)
    assert len(blocks) >= 2
    return blocks[0], blocks[1]


def _steps(command: str) -> list[list[str]]:
    """One line of ``a && b && c`` as its commands' words (each must be one line)."""
    assert "\n" not in command, "each setup command is one line"
    return [shlex.split(step) for step in command.split(" && ")]


def test_readme_setup_commands_make_and_use_a_virtual_environment() -> None:
    # PEP 668: Debian's, Ubuntu's, Fedora's and Homebrew's Python refuse `pip install` outside
    # a virtual environment, so each command makes one with the standard library's venv and
    # runs every later program from it, never from the system's PATH.
    for command in _setup_commands():
        steps = _steps(command)
        assert steps[0] == ["python3", "-m", "venv", ".venv"], command
        for words in steps[1:]:
            assert words[0].startswith(".venv/bin/"), (command, words)
        installs = [w for w in steps[1:] if w[:2] == [".venv/bin/pip", "install"]]
        assert len(installs) == 1, command
    run, test = (_steps(c) for c in _setup_commands())
    assert run[1] == [".venv/bin/pip", "install", "-e", "."]
    assert run[2][:2] == [".venv/bin/sealverify", "verify"] and "fixtures/demo/trust.json" in run[2]
    assert test[1] == [".venv/bin/pip", "install", "-e", ".[test]", "-e", "./testkit"]
    assert test[2] == [".venv/bin/python", "-m", "pytest", "-q"]


def test_ci_runs_the_readme_s_test_command_as_written() -> None:
    _, test = _setup_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test in ci, "the README's test command must be a line of .ci/run, as written"
    # Nothing before it runs the tests another way or installs into another environment.
    before = ci[: ci.index(test)]
    assert not [line for line in before if "pytest" in line or "pip install" in line]


def test_every_module_has_a_one_line_docstring() -> None:
    for path in (ROOT / "sealverify").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert re.match(r'"""[^\n]+', text), path


def test_readme_shows_the_action_pre_commit_and_explain_on_its_first_screen() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_screen = "\n".join(readme.splitlines()[:60])
    assert "uses: OWNER/sealverify@" in first_screen  # the GitHub Action (action.yml)
    assert "id: sealverify-verify" in first_screen and "id: sealverify-lint" in first_screen
    assert "sealverify explain" in first_screen
    assert "(docs/ci.md)" in first_screen
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "id: sealverify-verify" in hooks and "id: sealverify-lint" in hooks
    assert (ROOT / "action.yml").is_file()
