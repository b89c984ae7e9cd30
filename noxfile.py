"""Developer sessions: tests, lint, typecheck, fixtures, catalogue and bench."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint", "typecheck"]
nox.options.reuse_existing_virtualenvs = True


@nox.session
def tests(session: nox.Session) -> None:
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    session.install("-e", ".[dev]")
    session.run("ruff", "check", "sealverify", "tests", "fuzz", "noxfile.py")
    session.run("ruff", "format", "--check", "sealverify", "tests", "fuzz", "noxfile.py")


@nox.session
def typecheck(session: nox.Session) -> None:
    session.install("-e", ".[dev,attest]")  # sealverify.attest imports securesystemslib
    session.run("mypy", "--strict", "sealverify", "fuzz")


@nox.session
def fixtures(session: nox.Session) -> None:
    """Regenerate fixtures/ with the project's own minting code; the tree must stay clean."""
    session.install("-e", ".[attest]")  # fixtures/attest: a summary signed through it
    session.run("python", "-m", "sealverify.testkit.mintfixtures", "fixtures")
    session.run("git", "diff", "--exit-code", "--", "fixtures", external=True)


@nox.session
def catalogue(session: nox.Session) -> None:
    """Regenerate the id table in docs/checks.md from sealverify/catalogue/checks.toml."""
    session.install("-e", ".")
    session.run("python", "-m", "sealverify.catalogue", "docs/checks.md")


@nox.session
def bench(session: nox.Session) -> None:
    session.install("-e", ".[dask]")
    session.run("python", "-m", "sealverify.bench", *session.posargs)
    # The scale section: --cluster on real local Dask workers (docs/scale.md).
    session.run("python", "-m", "sealverify.bench.scale")


@nox.session
def fuzz(session: nox.Session) -> None:
    """The complexity check, then every harness under atheris for its budget (docs/fuzzing.md).

    Arguments go to the harness run: ``nox -s fuzz -- --seconds N HARNESS...``.
    """
    session.install("-e", ".[fuzz,attest]")  # the attestation harness signs its payloads
    session.run("python", "-m", "fuzz", "complexity")
    session.run("python", "-m", "fuzz", "all", *session.posargs)
