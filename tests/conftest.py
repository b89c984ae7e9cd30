"""Shared test helpers: where ../shared is, and skipping cleanly when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def shared_path(*parts: str) -> Path:
    """Path under ../shared, or skip the test with a clear message when it is not there."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"../shared not available ({path}); real-evidence test skipped")
    return path


@pytest.fixture
def shared() -> Path:
    return shared_path()
