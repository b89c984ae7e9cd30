"""The GitHub Action installs from a hash-locked requirements file, never floating versions."""

from __future__ import annotations

import re
import shlex
import tomllib

import yaml

from tests.conftest import ROOT

REQUIREMENTS = ROOT / "requirements" / "action.txt"
PINS = ROOT / "requirements" / "action.in"


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def _locked() -> dict[str, tuple[str, list[str]]]:
    """requirements/action.txt: name -> (version, sha256 hashes), continuation lines joined."""
    text = REQUIREMENTS.read_text(encoding="utf-8").replace("\\\n", " ")
    found: dict[str, tuple[str, list[str]]] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        assert not line.startswith("-"), f"no option lines (an index URL, find-links): {line}"
        spec, *options = line.split()
        name, sep, version = spec.partition("==")
        assert sep, f"every requirement is pinned with ==: {spec}"
        hashes = [o.removeprefix("--hash=sha256:") for o in options]
        assert hashes and all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes), spec
        found[_name(name)] = (version, hashes)
    return found


def _install_step() -> list[list[str]]:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    run = action["runs"]["steps"][0]["run"]
    return [shlex.split(line) for line in run.splitlines() if "pip" in line]


def test_the_install_step_requires_hashes_and_installs_sealverify_without_dependencies() -> None:
    first, second = _install_step()
    assert first[1:5] == ["-m", "pip", "install", "--quiet"]
    assert "--require-hashes" in first
    assert first[first.index("-r") + 1] == "$SEALVERIFY_ACTION_DIR/requirements/action.txt"
    # sealverify itself: from the action's checkout, nothing fetched, nothing resolved.
    assert {"--no-deps", "--no-build-isolation", "--no-index"} <= set(second)
    assert second[-1] == "$SEALVERIFY_ACTION_DIR"


def test_every_dependency_is_locked_at_a_version_pyproject_allows() -> None:
    locked = _locked()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = [*project["project"]["dependencies"], *project["build-system"]["requires"]]
    for requirement in wanted:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", requirement)
        assert match, f"a dependency spelled name>=version: {requirement}"
        name, low = _name(match.group(1)), match.group(2)
        assert name in locked, f"{name} is not in requirements/action.txt"
        version = locked[name][0]
        assert tuple(map(int, version.split("."))) >= tuple(map(int, low.split("."))), name
    # Their own dependencies too (cffi for cryptography and PyNaCl, MarkupSafe for Jinja2,
    # colorama for click and tqdm on Windows runners).
    assert {"cffi", "pycparser", "markupsafe", "colorama"} <= set(locked)


def test_the_lock_is_compiled_from_the_pins_it_says() -> None:
    locked = _locked()
    pins = {}
    for line in PINS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[_name(name)] = version
    assert pins == {name: version for name, (version, _) in locked.items()}
