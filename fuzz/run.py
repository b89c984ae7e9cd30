"""Run harnesses: briefly and deterministically (no atheris), or coverage-guided under atheris.

``python -m fuzz quick [--iterations N] [HARNESS...]`` runs a fixed number of pseudo-random
mutations of each seed corpus (the test suite's mode). ``python -m fuzz all --seconds N``
runs every harness under atheris for N seconds each, one process per harness, and prints the
executions and findings of each run (``nox -s fuzz``). ``python -m fuzz atheris HARNESS``
runs one harness in this process. ``python -m fuzz complexity [CASE...]`` times every parser,
scanner and command on growing hostile inputs (:mod:`fuzz.complexity`, also in ``nox -s fuzz``).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from fuzz import rules
from fuzz.harnesses import HARNESSES, Harness
from fuzz.mutate import mutate_bytes, mutate_json
from fuzz.resign import resign
from fuzz.rules import Finding, checked
from sealverify._internal.cli.main import command_modules

__all__ = ["DEFAULT_SECONDS", "Outcome", "main", "mutant", "run_quick"]

DEFAULT_SECONDS = 180  # per harness; docs/fuzzing.md
DEFAULT_ITERATIONS = 200
MAX_LEN = 64 * 1024


def mutant(harness: Harness, base: bytes, rng: random.Random, corpus: list[bytes]) -> bytes:
    """One mutant of ``base``: inside the JSON (structured harnesses) or in its bytes.

    A harness that re-signs gets half of its mutants re-signed with the testkit keys.
    """
    data = None
    if harness.structured and rng.random() < 0.6:
        data = mutate_json(base, rng)
    if data is None:
        data = mutate_bytes(base, rng, corpus)
    if harness.resign and rng.random() < 0.5:
        data = resign(data) or data
    return data[:MAX_LEN]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one deterministic run did: inputs run and the findings (first per kind)."""

    harness: str
    executions: int
    findings: tuple[Finding, ...]


def run_quick(
    harness: Harness,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
    seconds: float = 0,
    max_seconds: float | None = rules.MAX_SECONDS,
) -> Outcome:
    """Run every seed, then ``iterations`` mutants (or mutants for ``seconds``, when given).

    Deterministic for a given ``seed`` and iteration count (the test suite passes
    ``max_seconds=None``: its runs are never timed). Memory is measured on every tenth input
    (tracemalloc slows a run several times).
    """
    rng = random.Random(f"{harness.name}:{seed}")
    corpus = harness.seeds() or [b""]
    findings: dict[str, Finding] = {}
    executions = 0
    deadline = time.monotonic() + seconds
    inputs = iter(corpus)
    while True:
        data = next(inputs, None)
        if data is None:
            if (seconds and time.monotonic() > deadline) or (
                not seconds and executions >= len(corpus) + iterations
            ):
                break
            data = mutant(harness, rng.choice(corpus), rng, corpus)
        try:
            checked(
                harness.target, data, measure_memory=executions % 10 == 0, max_seconds=max_seconds
            )
        except Finding as finding:
            findings.setdefault(finding.kind, finding)
        executions += 1
    return Outcome(harness.name, executions, tuple(findings.values()))


def _atheris(name: str, seconds: int, workdir: Path) -> None:
    """Run one harness under atheris until its budget is spent (never returns)."""
    import atheris  # the `fuzz` extra; only this mode needs it

    harness = HARNESSES[name]
    limit = rules.RSS_LIMIT_MB * 2 * 1024 * 1024  # address space: RSS limit plus headroom
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    corpus_dir = workdir / "corpus" / name
    artifacts = workdir / "artifacts" / name
    corpus_dir.mkdir(parents=True, exist_ok=True)
    artifacts.mkdir(parents=True, exist_ok=True)
    corpus = harness.seeds() or [b""]
    for index, data in enumerate(corpus):
        (corpus_dir / f"seed-{index:04d}").write_bytes(data[:MAX_LEN])

    def one_input(data: bytes) -> None:
        checked(harness.target, data)

    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if rng.random() < 0.5:
            out: bytes = atheris.Mutate(data, max_size)
            return out
        return mutant(harness, data, rng, corpus)[:max_size]

    # The CLI imports each command lazily: import them all first, so all are instrumented.
    for command in command_modules():
        importlib.import_module(f"sealverify._internal.cli.{command}_cmd")
    atheris.instrument_all()
    argv = [
        sys.argv[0],
        str(corpus_dir),
        f"-max_total_time={seconds}",
        f"-rss_limit_mb={rules.RSS_LIMIT_MB}",
        f"-malloc_limit_mb={rules.MALLOC_LIMIT_MB}",
        f"-max_len={MAX_LEN}",
        f"-timeout={rules.UNIT_TIMEOUT_SECONDS}",
        "-print_final_stats=1",
        f"-artifact_prefix={artifacts}/",
    ]
    atheris.Setup(argv, one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()


_EXECUTED = re.compile(rb"stat::number_of_executed_units:\s*(\d+)")
_COVERAGE = re.compile(rb"cov: (\d+)")
_PEAK_RSS = re.compile(rb"stat::peak_rss_mb:\s*(\d+)")


def _last(pattern: re.Pattern[bytes], text: bytes) -> str:
    found = pattern.findall(text)
    return found[-1].decode() if found else "?"


def _all(names: list[str], seconds: int, workdir: Path) -> int:
    """Each harness in its own atheris process; a table of budget, executions and findings."""
    if importlib.util.find_spec("atheris") is None:
        print("atheris is not installed: running the deterministic mode for the same budget")
        return _quick(names, 0, seconds)
    workdir.mkdir(parents=True, exist_ok=True)
    failed = 0
    print(f"{'harness':18} {'budget':>7} {'executions':>11} {'edges':>6} {'RSS MB':>6}  findings")
    for name in names:
        log = workdir / f"{name}.log"
        with log.open("wb") as sink:
            proc = subprocess.run(
                [sys.executable, "-m", "fuzz", "atheris", name, "--seconds", str(seconds),
                 "--workdir", str(workdir)],
                stdout=sink, stderr=subprocess.STDOUT, check=False,
            )  # fmt: skip
        text = log.read_bytes()
        crashes = sorted(p.name for p in (workdir / "artifacts" / name).glob("*"))
        found = ", ".join(crashes) if crashes else ("none" if proc.returncode == 0 else "?")
        failed += proc.returncode != 0 or bool(crashes)
        runs, edges, rss = (_last(p, text) for p in (_EXECUTED, _COVERAGE, _PEAK_RSS))
        print(f"{name:18} {seconds:>6}s {runs:>11} {edges:>6} {rss:>6}  {found}  (log {log})")
        sys.stdout.flush()
    return 1 if failed else 0


def _quick(names: list[str], iterations: int, seconds: float = 0) -> int:
    failed = 0
    for name in names:
        outcome = run_quick(HARNESSES[name], iterations, seconds=seconds)
        print(f"{name:18} {outcome.executions:>7} inputs  findings: {len(outcome.findings)}")
        for finding in outcome.findings:
            failed += 1
            print(f"  {finding}\n  input: {finding.data[:300]!r}")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> None:
    """Command line of ``python -m fuzz`` (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m fuzz")
    sub = parser.add_subparsers(dest="mode", required=True)
    quick = sub.add_parser("quick", help="deterministic mutations, no atheris")
    quick.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    every = sub.add_parser("all", help="every harness under atheris, one process each")
    one = sub.add_parser("atheris", help="one harness under atheris in this process")
    one.add_argument("harness", choices=sorted(HARNESSES))
    growth = sub.add_parser("complexity", help="time and memory over inputs of 1, 2, 4, 8 units")
    growth.add_argument("case", nargs="*", default=[], help="case names (default: all)")
    for mode in (quick, every):
        mode.add_argument("harness", nargs="*", choices=[[], *sorted(HARNESSES)], default=[])
    for mode in (every, one):
        mode.add_argument("--seconds", type=int, default=DEFAULT_SECONDS)
        mode.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.mode == "atheris":
        _atheris(args.harness, args.seconds, args.workdir or Path(tempfile.mkdtemp()))
        return
    if args.mode == "complexity":
        from fuzz.complexity import run_complexity  # builds its inputs only when asked

        sys.exit(run_complexity(args.case))
    names = args.harness or sorted(HARNESSES)
    if args.mode == "quick":
        sys.exit(_quick(names, args.iterations))
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="sealverify-fuzz-runs-"))
    sys.exit(_all(names, args.seconds, workdir))
