"""What a user installs: the licence pyproject declares, and ``python -m sealverify``."""

from __future__ import annotations

import subprocess
import sys
import tomllib

from tests.conftest import ROOT


def test_the_license_file_is_the_license_pyproject_declares() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["license"] == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text  # the whole text, not a pointer to it


def test_python_dash_m_sealverify_is_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sealverify", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("sealverify, version ")
    bad = subprocess.run(
        [sys.executable, "-m", "sealverify", "verify", "no-such-path"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "no such file or directory" in bad.stderr
