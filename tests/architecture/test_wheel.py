"""What ``pip install .`` ships: the package alone, never the testkit, the bench or tests."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

# What a wheel of sealverify must never carry: evidence minting under keys whose secrets are
# public, the headless-Chromium driver, the benchmark, and the tests with their helpers.
TEST_CODE = ("sealverify_testkit/", "sealverify/testkit/", "benchmarks/", "sealverify/bench/")
TEST_CODE += ("tests/",)


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 and "Could not find a version" in done.stderr:
        pytest.skip("pip cannot fetch the build backend here (offline): " + done.stderr[-200:])
    assert done.returncode == 0, done.stderr
    (wheel,) = sorted(Path(out).glob("sealverify-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def test_the_wheel_ships_the_package(wheel_names: list[str]) -> None:
    assert "sealverify/__init__.py" in wheel_names
    assert "sealverify/_internal/catalogue/checks.toml" in wheel_names  # package data still travels
    assert "sealverify/py.typed" in wheel_names


def test_the_wheel_ships_no_test_code(wheel_names: list[str]) -> None:
    shipped = [n for n in wheel_names if n.startswith(TEST_CODE)]
    assert shipped == []
    # The browser driver by its name, wherever it might land.
    assert not [n for n in wheel_names if n.endswith("browser.py")]
    tops = {n.partition("/")[0] for n in wheel_names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"sealverify"}
