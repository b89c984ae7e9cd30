"""``--baseline --instructions``: two verifiers compared in instructions, which noise cannot move.

Wall and CPU seconds on a shared machine drift with its load; the instructions a run executes
do not (valgrind's callgrind counts them: the same binary, inputs and environment give the same
count whatever else the machine does). Each verifier runs under callgrind over a small and a
large corpus; the difference gives the instructions per receipt, the rest the start-up
(interpreter, imports, one-time set-up). The ratio at N receipts combines both, as a real run
does. Counts are not seconds: an instruction of C and one of the interpreter's loop cost about
the same, a cache miss more, so the ratio tracks time closely but is not time. A benchmark,
never a test.
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.baseline import FORMATS, Verifier, child_env

__all__ = ["Split", "available", "count", "report", "run_instructions"]

_COLLECTED = re.compile(rb"Collected\s*:\s*(\d+)")


def available() -> str | None:
    """The valgrind executable, or None when it is not installed."""
    return shutil.which("valgrind")


def count(args: Sequence[str]) -> int:
    """Instructions ``args`` executes under callgrind; the run must exit 0 (all VERIFIED).

    With ``--no-rederive`` exit 4 is expected instead (every decision receipt REDUCED), from
    a verifier that holds VERIFIED to a re-derived decision.
    """
    valgrind = available()
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind (Debian: apt-get install valgrind)")
    env = child_env(args[0], PYTHONHASHSEED="0")  # one hash seed: the same work every run
    done = subprocess.run(
        [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tempfile.gettempdir(),
        check=False,
    )
    if done.returncode not in (0, 4 if "--no-rederive" in args else 0):
        sys.stderr.write(done.stderr[-2000:].decode("utf-8", "replace"))
        raise SystemExit(
            f"exit {done.returncode} under callgrind: every receipt of the corpus must be "
            f"VERIFIED ({' '.join(args[:4])} ...)"
        )
    found = _COLLECTED.findall(done.stderr)
    if not found:
        raise SystemExit("callgrind printed no instruction count")
    return int(found[-1])


@dataclass(frozen=True, slots=True)
class Split:
    """One verifier's start-up and per-receipt instructions, from a small and a large run."""

    small: int  # instructions over the small corpus
    large: int  # and over the large one
    receipts: tuple[int, int]  # the receipts in each

    @property
    def per_receipt(self) -> float:
        return (self.large - self.small) / (self.receipts[1] - self.receipts[0])

    @property
    def startup(self) -> float:
        return self.small - self.per_receipt * self.receipts[0]

    def at(self, receipts: int) -> float:
        """The instructions of a run over ``receipts`` receipts."""
        return self.startup + self.per_receipt * receipts


@dataclass(frozen=True, slots=True)
class Row:
    """One case (format, input, re-derivation) and both verifiers' splits."""

    fmt: str
    kind: str
    rederive: bool
    baseline: Split
    current: Split


def run_instructions(
    base: Verifier,
    current: Verifier,
    small: Sequence[tuple[str, Path]],
    large: Sequence[tuple[str, Path]],
    receipts: tuple[int, int],
    formats: Sequence[str] = FORMATS,
) -> list[Row]:
    """Every format, input kind and re-derivation on and off, each command counted once.

    A command that is the same in two cases (the baseline, which has no ``--no-rederive``) is
    counted once and used in both: the count of a command does not change.
    """
    counted: dict[tuple[str, ...], int] = {}

    def counts(who: Verifier, target: Path, fmt: str, rederive: bool) -> int:
        args = tuple(who.command(target, fmt, rederive))
        if args not in counted:
            print(f"counting {who.label}: {fmt}, {target.name}", file=sys.stderr)
            counted[args] = count(args)
        return counted[args]

    rows = []
    for fmt in formats:
        for (kind, little), (_, big) in zip(small, large, strict=True):
            for rederive in (True, False):
                splits = [
                    Split(
                        counts(who, little, fmt, rederive),
                        counts(who, big, fmt, rederive),
                        receipts,
                    )
                    for who in (base, current)
                ]
                rows.append(Row(fmt, kind, rederive, splits[0], splits[1]))
    return rows


def _row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def report(rows: Sequence[Row], base: Verifier, current: Verifier, at: int) -> list[str]:
    """The Markdown table: instructions per receipt and at start-up, and the ratios."""
    receipts = rows[0].baseline.receipts if rows else (0, 0)
    lines = [
        f"baseline: {base.label}; current: {current.label}; instructions counted by valgrind's "
        f"callgrind over {receipts[0]} and {receipts[1]} receipts (--jobs 1, PYTHONHASHSEED=0); "
        "per receipt = the difference over the receipts between, start-up = the rest",
        f"ratio = baseline instructions / current instructions (above 1: the current tree does "
        f"less work); at {at:,} receipts, start-up included, and per receipt (the limit of a "
        "long run)",
        "",
        _row(
            [
                "format",
                "input",
                "re-derivation",
                "baseline M instr / receipt",
                "current M instr / receipt",
                "baseline start-up M",
                "current start-up M",
                "ratio per receipt",
                f"ratio at {at:,}",
            ]
        ),
        _row(["---", "---", "---", *["---:"] * 6]),
    ]
    for r in rows:
        lines.append(
            _row(
                [
                    r.fmt,
                    r.kind,
                    "on" if r.rederive else "off",
                    f"{r.baseline.per_receipt / 1e6:.2f}",
                    f"{r.current.per_receipt / 1e6:.2f}",
                    f"{r.baseline.startup / 1e6:.0f}",
                    f"{r.current.startup / 1e6:.0f}",
                    f"{r.baseline.per_receipt / r.current.per_receipt:.2f}x",
                    f"{r.baseline.at(at) / r.current.at(at):.2f}x",
                ]
            )
        )
    for rederive in (True, False):
        chosen = [r for r in rows if r.rederive == rederive]
        if chosen:
            ratios = [r.baseline.at(at) / r.current.at(at) for r in chosen]
            limits = [r.baseline.per_receipt / r.current.per_receipt for r in chosen]
            # The lowest case to three places: a goal such as 0.95x is met or not by it, and
            # two places would round 0.946x up.
            low = min(chosen, key=lambda r: r.baseline.at(at) / r.current.at(at))
            lines.append(
                f"re-derivation {'on' if rederive else 'off'}: ratio at {at:,} receipts "
                f"{min(ratios):.2f}x-{max(ratios):.2f}x (median {statistics.median(ratios):.2f}x);"
                f" per receipt median {statistics.median(limits):.2f}x; lowest "
                f"{min(ratios):.3f}x ({low.fmt}, {low.kind})"
            )
    return lines
