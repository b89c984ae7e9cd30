"""Shared test helpers: where ../shared is, and skipping cleanly when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests are derandomized: the same examples on every machine, so CI never flakes on a
# new random draw; health checks that depend on machine speed or example size are relaxed.
settings.register_profile(
    "sealverify",
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.large_base_example,
        HealthCheck.data_too_large,
    ],
)
settings.load_profile("sealverify")

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
