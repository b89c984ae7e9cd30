"""The pre-commit hooks (.pre-commit-hooks.yaml), run by pre-commit itself on a sample repository.

The hook repository is a fresh git repository holding this checkout's working tree (the
package, pyproject.toml, README and the hooks file, committed), so the test sees uncommitted
work and does not depend on whether the checkout is a clone, a worktree or a bare copy.
pre-commit builds the hooks' environment from it as it would for a user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

pytest.importorskip("pre_commit", reason="pre-commit (test extra) is not installed")

DEMO = ROOT / "fixtures" / "demo"
_HOOK_FILES = ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml")


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def _commit_all(repo: Path) -> str:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "sample")
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path_factory.mktemp("hooks")
    for name in _HOOK_FILES:
        shutil.copy2(ROOT / name, repo / name)
    shutil.copytree(
        ROOT / "sealverify", repo / "sealverify", ignore=shutil.ignore_patterns("__pycache__")
    )
    _git(repo, "init", "-q")
    return repo, _commit_all(repo)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")  # one hook environment for the module


def _project(tmp_path: Path, files: dict[str, bytes]) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q")
    for name, data in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_bytes(data)
    _commit_all(project)
    return project


def _pre_commit(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("SEALVERIFY_SOURCE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


def _receipt(name: str) -> bytes:
    return (DEMO / "receipts" / name).read_bytes()


def test_try_repo_verify_fails_on_a_failing_receipt_and_lint_on_bad_wording(
    tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    repo, _ = hook_repo
    project = _project(
        tmp_path,
        {
            "evidence/bypass.receipt.json": _receipt("fail-bypass.receipt.json"),
            "evidence/notes.json": b'{"not": "a receipt, and not matched by the hook"}\n',
            "docs/note.md": b"# Note\n\nThe traceparent value is inert.\n",
            "README.md": b"# Project\n\nNothing to say about metadata.\n",
        },
    )
    verify = _pre_commit(project, pre_commit_home, "try-repo", str(repo), "sealverify-verify", "-a")
    assert verify.returncode == 1, verify.stdout + verify.stderr
    assert "sealverify verify (seal receipts)" in verify.stdout and "Failed" in verify.stdout
    assert "bypass.receipt.json" in verify.stdout and "FAIL" in verify.stdout
    assert "notes.json" not in verify.stdout
    lint = _pre_commit(project, pre_commit_home, "try-repo", str(repo), "sealverify-lint", "-a")
    assert lint.returncode == 1, lint.stdout + lint.stderr
    assert "wording.inert" in lint.stdout and "docs/note.md" in lint.stdout


def test_a_configured_verify_hook_with_pins_passes_and_lint_passes_clean_docs(
    tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    repo, rev = hook_repo
    config = {
        "repos": [
            {
                "repo": str(repo),
                "rev": rev,
                "hooks": [
                    {
                        "id": "sealverify-verify",
                        "args": ["--trust", "evidence/trust.json", "--allow-published-keys"],
                    },
                    {"id": "sealverify-lint"},
                ],
            }
        ]
    }
    project = _project(
        tmp_path,
        {
            ".pre-commit-config.yaml": yaml.safe_dump(config).encode(),
            "evidence/trust.json": (DEMO / "trust.json").read_bytes(),
            "evidence/block.receipt.json": _receipt("verified-block.receipt.json"),
            "evidence/allow.receipt.json": _receipt("verified-allow.receipt.json"),
            "docs/note.md": b"# Note\n\nThe traceparent key is excluded from authority identity.\n",
        },
    )
    done = _pre_commit(project, pre_commit_home, "run", "--all-files")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("Passed") == 2
    # the same hook without the published-key allowance: UNPINNED (exit 3) fails the commit
    config["repos"][0]["hooks"][0]["args"] = ["--trust", "evidence/trust.json"]
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    done = _pre_commit(project, pre_commit_home, "run", "--all-files", "sealverify-verify")
    assert done.returncode == 1 and "UNPINNED" in done.stdout, done.stdout


def test_the_hooks_file_names_commands_that_exist() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["sealverify-verify", "sealverify-lint"]
    assert {h["entry"] for h in hooks} == {"sealverify verify", "sealverify lint"}
    assert all(h["language"] == "python" for h in hooks)
