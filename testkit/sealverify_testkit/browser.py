"""Headless Chromium as the html report tests and the docs' screenshots run it: offline."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

__all__ = ["FLAGS", "chromium_path", "run_chromium"]

# Everything that could reach the network, sync a profile or update a component is off.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def chromium_path() -> str | None:
    """Debian's ``chromium`` (or ``chromium-browser``) on PATH, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def run_chromium(
    browser: str, args: list[str], profile: Path, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    """Run ``browser`` once with :data:`FLAGS`, a fresh profile directory and ``args``."""
    command = [browser, *FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(command, capture_output=True, timeout=timeout, check=False)
