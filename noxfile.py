"""Developer sessions: tests, lint, typecheck, fixtures, catalogue and bench."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint", "typecheck"]
nox.options.reuse_existing_virtualenvs = True

# Every CPython the project supports (pyproject.toml: requires-python >= 3.11); CI runs the
# oldest and the newest (.ci/run). `nox -s tests-3.13` picks one.
PYTHONS = ["3.11", "3.12", "3.13"]
# The newest Python's run in CI: the byte rules, the receipt, frame and report paths, the
# fast/reference switch and the --jobs workers, a few minutes where the whole suite takes ten.
QUICK = [
    "tests/wire/test_strictjson.py",
    "tests/receipts/test_verify.py",
    "tests/receipts/test_verify_bindings.py",
    "tests/receipts/test_verify_document.py",
    "tests/cli/test_verify_cli.py",
    "tests/receipts/test_adversarial_receipts.py",
    "tests/mcp/test_frame_core.py",
    "tests/reports/test_jsonl.py",
    "tests/reports/test_sarif_schema.py",
    "tests/reports/test_junit_wellformed.py",
    "tests/reports/test_streamed_reports.py",
    "tests/perf/test_fast_switch.py",
    "tests/run/test_worker_pool.py",
    "tests/perf/test_verify_perf.py",
]


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The whole suite; ``nox -s tests-3.13 -- --quick`` runs the QUICK modules only."""
    session.install("-e", ".[test]", "-e", "./testkit")
    args = list(session.posargs)
    if "--quick" in args:
        args.remove("--quick")
        args = [*QUICK, *args]
    session.run("python", "-m", "pytest", *args)


@nox.session
def lint(session: nox.Session) -> None:
    session.install("-e", ".[dev]")
    session.run(
        "ruff", "check", "sealverify", "tests", "fuzz", "benchmarks", "testkit", "noxfile.py"
    )
    session.run(
        "ruff",
        "format",
        "--check",
        "sealverify",
        "tests",
        "fuzz",
        "benchmarks",
        "testkit",
        "noxfile.py",
    )


@nox.session
def typecheck(session: nox.Session) -> None:
    session.install(
        "-e", ".[dev,attest]", "-e", "./testkit"
    )  # sealverify._internal.attest imports securesystemslib
    session.run(
        "mypy", "--strict", "sealverify", "fuzz", "benchmarks", "testkit/sealverify_testkit"
    )


@nox.session
def fixtures(session: nox.Session) -> None:
    """Regenerate fixtures/ with the project's own minting code; the tree must stay clean."""
    session.install(
        "-e", ".[attest]", "-e", "./testkit"
    )  # fixtures/attest: a summary signed through it
    session.run("python", "-m", "sealverify_testkit.mintfixtures", "fixtures")
    session.run("git", "diff", "--exit-code", "--", "fixtures", external=True)


@nox.session
def catalogue(session: nox.Session) -> None:
    """Regenerate the id table in docs/checks.md from sealverify/_internal/catalogue/checks.toml.

    The tree must stay clean: a catalogue entry without its row in docs/checks.md fails.
    """
    session.install("-e", ".")
    session.run("python", "-m", "sealverify._internal.catalogue", "docs/checks.md")
    session.run("git", "diff", "--exit-code", "--", "docs/checks.md", external=True)


@nox.session
def bench(session: nox.Session) -> None:
    session.install("-e", ".[dask]", "-e", "./testkit")
    session.run("python", "-m", "benchmarks", *session.posargs)
    # The scale section: --cluster on real local Dask workers (docs/scale.md).
    session.run("python", "-m", "benchmarks.scale")
    # verify --follow: a writer at 300/s, then memory by count (docs/performance.md).
    session.run("python", "-m", "benchmarks.follow", "--n", "4000", "--rate", "300")
    session.run("python", "-m", "benchmarks.follow", "--flat", "--n", "20000")


@nox.session
def fuzz(session: nox.Session) -> None:
    """The complexity check, then every harness under atheris for its budget (docs/fuzzing.md).

    Arguments go to the harness run: ``nox -s fuzz -- --seconds N HARNESS...``.
    """
    session.install(
        "-e", ".[fuzz,attest]", "-e", "./testkit"
    )  # the attestation harness signs its payloads
    session.run("python", "-m", "fuzz", "complexity")
    session.run("python", "-m", "fuzz", "all", *session.posargs)
