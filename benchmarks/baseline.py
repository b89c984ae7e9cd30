"""``python -m benchmarks --baseline REV``: this tree against a past revision, interleaved.

The revision is exported with ``git archive`` into a temporary directory and installed in a
virtual environment of its own, so its code and its dependencies' versions are its own. Both
verifiers then run as child processes on one minted corpus (a directory of pretty files and a
JSONL log), one core each (``--jobs 1``), alternately (baseline, current, baseline, ...): the
ratio of each pair is taken, and the minimum and median of those ratios over the rounds are
reported, per output format, input kind and re-derivation on or off. A benchmark, never a test.
"""

from __future__ import annotations

import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sealverify_testkit.mint import CONFIG_KEY, RECEIPT_KEY

__all__ = [
    "DEFAULT_BASELINE",
    "Pair",
    "Verifier",
    "compile_package",
    "install_revision",
    "run_baseline",
]

DEFAULT_BASELINE = "ed84fff"  # version 0.1.0, which re-derives no decision
FORMATS = ("table", "json", "sarif", "junit")
# The bench corpus names the kernel build the fleet deploys, whose guard target leaves the
# call's context pairs out: a version that has the legacy check for that form is told to waive
# it (exactly what a fleet on that build does), so every receipt must still be VERIFIED.
_LEGACY_WAIVER = "legacy.guard-target-omits-meta"


@dataclass(frozen=True, slots=True)
class Verifier:
    """One installed sealverify: its interpreter and the verify flags its version knows."""

    label: str
    python: str
    flags: frozenset[str]
    # the CLI's module: under sealverify/_internal/ since ADR 0009, at the top before it
    cli: str = "sealverify._internal.cli.main"

    def command(self, target: Path, fmt: str, rederive: bool, jobs: int = 1) -> list[str]:
        """``verify`` over ``target`` (one core by default); flags this version lacks are left out.

        The corpus is signed by the testkit keys, which are published keys (allowed, so every
        receipt runs the full path to VERIFIED), and its guard targets are the deployed
        build's form (the legacy check for it is waived, as a fleet on that build does).
        """
        args = [
            self.python,
            "-m",
            self.cli,
            "verify",
            str(target),
            "--config-pubkey",
            CONFIG_KEY.public_hex,
            "--receipt-pubkey",
            RECEIPT_KEY.public_hex,
            "--format",
            fmt,
            "--jobs",
            str(jobs),
        ]
        if "--allow-published-keys" in self.flags:
            args.append("--allow-published-keys")
        if "--waive" in self.flags:
            args += ["--waive", _LEGACY_WAIVER]
        if not rederive and "--no-rederive" in self.flags:
            args.append("--no-rederive")
        return args


_TREE = Path(__file__).resolve().parents[1]  # the checkout this bench belongs to


def child_env(python: str, **extra: str) -> dict[str, str]:
    """The environment a measured verifier runs in: each imports its own sealverify only.

    This tree's interpreter imports the checkout the bench belongs to (``PYTHONPATH``, ahead
    of any installed copy); any other interpreter runs without ``PYTHONPATH``, which would
    otherwise put the current tree in front of the revision installed in its environment.
    """
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if python == sys.executable:
        env["PYTHONPATH"] = str(_TREE)
    env.update(extra)
    return env


# The CLI's module in a revision from before ADR 0009, spelled in parts so that no rewrite of
# this tree's module paths changes it.
_CLI_BEFORE_INTERNAL = ".".join(("sealverify", "cli", "main"))


def _cli(python: str) -> str:
    """The CLI's module in the sealverify behind ``python`` (an older revision has no _internal)."""
    probe = (
        "import importlib.util, sys; "
        "sys.exit(importlib.util.find_spec('sealverify._internal') is None)"
    )
    found = subprocess.run(
        [python, "-c", probe],
        capture_output=True,
        env=child_env(python),
        cwd=tempfile.gettempdir(),  # never import a checkout from the working directory
    )
    return "sealverify._internal.cli.main" if found.returncode == 0 else _CLI_BEFORE_INTERNAL


def _flags(python: str, cli: str) -> frozenset[str]:
    """The long options ``verify --help`` lists for the sealverify behind ``python``."""
    shown = subprocess.run(
        [python, "-m", cli, "verify", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env=child_env(python, COLUMNS="200"),
        cwd=tempfile.gettempdir(),  # never import a checkout from the working directory
    ).stdout
    return frozenset(word.rstrip(",") for word in shown.split() if word.startswith("--"))


# This tree's own verify, which knows every flag the bench gives.
CURRENT = Verifier(
    "this tree", sys.executable, frozenset({"--allow-published-keys", "--waive", "--no-rederive"})
)


def verifier(label: str, python: str) -> Verifier:
    """The verifier behind ``python``, with the flags its ``verify --help`` shows."""
    cli = _cli(python)
    return Verifier(label, python, _flags(python, cli), cli)


def expected_exit(args: Sequence[str]) -> int:
    """The exit code besides 0 a bench run may give: 4 with ``--no-rederive``.

    VERIFIED needs the decision re-derived, so with ``--no-rederive`` every decision receipt is
    REDUCED (a verifier from before that rule still exits 0 there); otherwise 0 only.
    """
    return 4 if "--no-rederive" in args else 0


def compile_package(package: Path) -> None:
    """Write the bytecode of every module under ``package`` (as ``pip install`` does).

    An editable install under ``PYTHONDONTWRITEBYTECODE`` would otherwise compile every module
    from source in every child, a cost the installed baseline never pays.
    """
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)


def install_revision(repo: Path, revision: str, into: Path) -> str:
    """Export ``revision`` of ``repo`` into ``into``/src, install it in ``into``/venv.

    Returns the environment's interpreter. Not editable: the installed package is the
    revision's own files, whatever the working tree holds.
    """
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", revision],
        capture_output=True,
        check=True,
    ).stdout
    source = into / "src"
    source.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(source, filter="data")
    venv = into / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", str(source)], check=True)
    return python


@dataclass(frozen=True, slots=True)
class Timing:
    """One child's wall seconds, CPU seconds (user + system, from wait4) and exit code."""

    wall: float
    cpu: float
    exit_code: int


def _time(args: list[str]) -> Timing:
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            cwd=tempfile.gettempdir(),
            env=child_env(args[0]),
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, expected_exit(args)):  # every minted receipt must verify: say why
            errors.seek(0)
            sys.stderr.write(errors.read()[-2000:].decode("utf-8", "replace"))
    return Timing(wall, usage.ru_utime + usage.ru_stime, code)


@dataclass(frozen=True, slots=True)
class Pair:
    """One case (format, input, re-derivation) and its timings, baseline and current, by round."""

    fmt: str
    kind: str
    rederive: bool
    baseline: tuple[Timing, ...]
    current: tuple[Timing, ...]

    def ratios(self, cpu: bool) -> list[float]:
        """Baseline time over current time, pair by pair (above 1: the current one is faster)."""
        pairs = zip(self.baseline, self.current, strict=True)
        if cpu:
            return [b.cpu / c.cpu for b, c in pairs]
        return [b.wall / c.wall for b, c in pairs]


def run_baseline(
    base: Verifier,
    current: Verifier,
    inputs: Sequence[tuple[str, Path]],
    repeat: int,
    formats: Sequence[str] = FORMATS,
) -> list[Pair]:
    """Every case, ``repeat`` rounds; within a round each case runs baseline then current.

    The order of the cases rotates from round to round, so a slow spell of the machine does not
    always fall on the same case.
    """
    cases = [
        (f, kind, target, r) for f in formats for kind, target in inputs for r in (True, False)
    ]
    timings: dict[int, tuple[list[Timing], list[Timing]]] = {i: ([], []) for i in range(len(cases))}
    for round_ in range(max(1, repeat)):
        shift = round_ % len(cases)
        for index in list(range(shift, len(cases))) + list(range(shift)):
            fmt, _, target, rederive = cases[index]
            b_args, c_args = (
                base.command(target, fmt, rederive),
                current.command(target, fmt, rederive),
            )
            b, c = _time(b_args), _time(c_args)
            for who, timing, args in ((base, b, b_args), (current, c, c_args)):
                if timing.exit_code not in (0, expected_exit(args)):
                    raise SystemExit(
                        f"{who.label} verify exited {timing.exit_code} on {target} ({fmt}): "
                        "every receipt of the corpus must be VERIFIED (REDUCED with "
                        "--no-rederive)"
                    )
            timings[index][0].append(b)
            timings[index][1].append(c)
    return [
        Pair(fmt, kind, rederive, tuple(timings[i][0]), tuple(timings[i][1]))
        for i, (fmt, kind, _, rederive) in enumerate(cases)
    ]


def _row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def report(pairs: Sequence[Pair], base: Verifier, current: Verifier, receipts: int) -> list[str]:
    """The Markdown table of the ratios, with how they were measured."""
    rounds = len(pairs[0].baseline) if pairs else 0
    rederives = "--no-rederive" in current.flags
    lines = [
        f"baseline: {base.label}; current: {current.label}; {receipts} receipts per run, "
        f"--jobs 1, {rounds} interleaved rounds (baseline then current, case order rotated)",
        "ratio = baseline seconds / current seconds, pair by pair (above 1: the current tree "
        "is faster); min and median over the rounds; CPU = user + system of the child",
        "re-derivation off: the current tree with --no-rederive"
        + ("" if rederives else " (this tree has no such flag: same command)")
        + ("" if "--no-rederive" in base.flags else "; the baseline never re-derives"),
        "",
        _row(
            [
                "format",
                "input",
                "re-derivation",
                "baseline s (median)",
                "current s (median)",
                "wall ratio min",
                "wall ratio median",
                "CPU ratio min",
                "CPU ratio median",
            ]
        ),
        _row(["---", "---", "---", "---:", "---:", "---:", "---:", "---:", "---:"]),
    ]
    for pair in pairs:
        wall, cpu = pair.ratios(cpu=False), pair.ratios(cpu=True)
        lines.append(
            _row(
                [
                    pair.fmt,
                    pair.kind,
                    "on" if pair.rederive else "off",
                    f"{statistics.median(t.wall for t in pair.baseline):.2f}",
                    f"{statistics.median(t.wall for t in pair.current):.2f}",
                    f"{min(wall):.2f}x",
                    f"{statistics.median(wall):.2f}x",
                    f"{min(cpu):.2f}x",
                    f"{statistics.median(cpu):.2f}x",
                ]
            )
        )
    on = [r for p in pairs if p.rederive for r in p.ratios(cpu=True)]
    off = [r for p in pairs if not p.rederive for r in p.ratios(cpu=True)]
    if on and off:
        lines += [
            "",
            f"all cases, CPU ratio median: re-derivation on {statistics.median(on):.2f}x, "
            f"off {statistics.median(off):.2f}x",
        ]
    return lines
