"""User-facing text names the product and public sources, never internal planning documents."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Internal planning names: numbered seeds, issues and stops, and a seed file's path.
PLANNING = re.compile(r"\bseeds?[ _/]?\d{3}\b|\bseeds/|\bissue \d+\b|\bstop \d+\b", re.IGNORECASE)
# Machine-specific paths that must not reach a user (or a test) either: any absolute path into
# the folder that holds this checkout (its siblings: ../shared, fetched mirrors, worktrees),
# taken from where the checkout is at run time rather than spelled here.
WORKSPACE = ROOT.parent.as_posix().rstrip("/")
# A checkout at the filesystem root has no such folder to guard: the pattern matches nothing.
MACHINE = re.compile(re.escape(WORKSPACE) + r"/[\w.+-]" if WORKSPACE else r"(?!)")


def _public_files() -> list[Path]:
    files = [ROOT / "README.md"]
    files += sorted((ROOT / "sealverify").rglob("*.py"))
    # the code beside the package that mints the published samples and measures the runs
    files += [*sorted((ROOT / "testkit").rglob("*.py")), ROOT / "testkit" / "README.md"]
    files += sorted((ROOT / "benchmarks").rglob("*.py"))
    files += sorted((ROOT / "docs").rglob("*.md"))
    files += sorted(p for p in (ROOT / "fixtures").rglob("*") if p.suffix in (".md", ".json"))
    return [p for p in files if p.is_file()]


def test_the_pattern_catches_planning_names() -> None:
    for text in (
        "see seed 004 §3",
        "Seed 000",
        "(issue 8)",
        "stop 12",
        "../shared/seeds/000_1.txt",
    ):
        assert PLANNING.search(text), text
    for text in ("the meta-partition ruling §3", "SEP-2640", "seal-host file@099be66"):
        assert not PLANNING.search(text), text


@pytest.mark.parametrize("path", _public_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_internal_planning_reference(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    found = [
        f"{n}: {line.strip()}"
        for n, line in enumerate(text.splitlines(), 1)
        if PLANNING.search(line) or MACHINE.search(line)
    ]
    assert not found, "\n".join(found)


def test_tests_read_no_machine_specific_path() -> None:
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name == "test_public_text.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert not MACHINE.search(text), path.name


def test_the_machine_pattern_catches_paths_beside_the_checkout() -> None:
    for sibling in ("shared/fixtures/x.json", ".hidden/owner+name/repo", ROOT.name):
        assert MACHINE.search(f'Path("{WORKSPACE}/{sibling}")'), sibling
    assert not MACHINE.search('Path(__file__).parents[2] / "shared"')
