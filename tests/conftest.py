"""Shared test helpers: where the upstream data is, and skipping cleanly when it is absent."""

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
# The upstream data files the real-evidence tests read (seal receipts and configs, MCP SDK frames,
# published vectors), carried in the project with their provenance and licences
# (tests/data/upstream/PROVENANCE.md), laid out as the sibling ../shared folder lays them out.
UPSTREAM = ROOT / "tests" / "data" / "upstream"
# The sibling folder, read only for what is not carried: upstream prose and code (seal's seed
# texts, seal-host's JavaScript and Rust conformance modules); README.md lists those tests.
SIBLING = ROOT.parent / "shared"
# Kept for the tests that walk a whole upstream folder: the carried copy.
SHARED = UPSTREAM


def shared_path(*parts: str) -> Path:
    """Path of upstream data: the carried copy, else ../shared, else skip the test saying why."""
    carried = UPSTREAM.joinpath(*parts)
    if carried.exists():
        return carried
    path = SIBLING.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"{'/'.join(parts)} is upstream code or prose, not carried in tests/data/upstream;"
            " it needs a ../shared folder beside the checkout (README.md, Tests)"
        )
    return path


@pytest.fixture
def shared() -> Path:
    return shared_path()


def run_main(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """``sealverify ARGS`` through the installed entry point's ``main``: exit code and stderr."""
    import sys

    from sealverify._internal.cli import main as cli_main

    monkeypatch.setattr(sys, "argv", ["sealverify", *args])
    monkeypatch.setattr(cli_main, "_debug_flag", False)
    with pytest.raises(SystemExit) as exited:
        cli_main.main()
    code = exited.value.code
    return (code if isinstance(code, int) else 0), capsys.readouterr().err
