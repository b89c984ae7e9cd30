"""``python -m benchmarks.follow``: a writer appends receipts, ``verify --follow`` keeps up.

The writer (this process) appends receipts minted by the testkit to a JSONL log at a fixed
rate; a follower process (``sealverify verify --follow LOG --state DB``) verifies them as they
land. Each event's ``input.line`` names the receipt, so the time from its append to its event
on the follower's stdout is measured for every receipt. The follower's resident memory is
read from ``/proc`` while it runs. Printed as Markdown: offered and achieved rate, latency
percentiles, and memory over the run (docs/performance.md keeps the figures).

``--flat`` measures memory against the count instead: the writer appends as fast as it mints
(no rate), and the follower's resident size is read each time its events pass another tenth
of ``--n``. A least-squares line through the samples after the first fifth gives the growth
per receipt, and the resident size at 10 million receipts is that line extrapolated: a
measured slope, not a measured run. The follower runs through ``benchmarks.follow_probe``,
so each sample also names the Python heap's allocated blocks and the bytes SQLite holds: a
resident size that moves while both stay level is the allocator, not a structure that grows.

``--pair TREE`` runs the same benchmark twice, one run after the other in the same minutes:
the follower of this checkout, then the follower of the source tree TREE (a directory holding
a ``sealverify`` package, e.g. ``git archive main sealverify | tar -x -C TREE``), each run
from its tree with ``PYTHONPATH``, so two versions are compared under one machine's load.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import orjson
from sealverify_testkit.mint import mint_many
from sealverify_testkit.records import parse_record, render_compact

from benchmarks.follow_probe import INTERVAL, Sample, latest


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a process so far (``/proc/PID/stat``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _reader(
    stream: object, arrived: dict[int, float], sample: Callable[[int], None] | None = None
) -> None:
    assert hasattr(stream, "readline")
    for line in iter(stream.readline, b""):
        if line.startswith(b'{"type":"subject"'):
            arrived[int(orjson.loads(line)["input"]["line"])] = time.monotonic()
            if sample is not None:
                sample(len(arrived))


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def _spawn(command: list[str], tree: Path | None) -> subprocess.Popen[bytes]:
    """The follower, run from the source tree ``tree`` (None: as this process imports it)."""
    env, cwd = None, None
    if tree is not None:
        env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
        cwd = tree.resolve()  # ``-m`` puts the working directory first on the path
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd
    )


def run(
    n: int, rate: float, root: Path, extra: Sequence[str], tree: Path | None = None
) -> list[str]:
    """Append ``n`` receipts at ``rate`` per second under ``root``; the report's lines."""
    lines = [render_compact(parse_record(r)) for r in mint_many(n, seed=b"follow-bench")]
    log = root / "receipts.jsonl"
    log.touch()
    command = [
        sys.executable, "-m", "sealverify", "verify", "--follow", str(log),
        "--state", str(root / "state.db"), "--allow-published-keys", *extra,
    ]  # fmt: skip
    follower = _spawn(command, tree)
    arrived: dict[int, float] = {}
    reader = threading.Thread(target=_reader, args=(follower.stdout, arrived), daemon=True)
    reader.start()
    time.sleep(2.0)  # the follower's start-up, not measured
    appended: dict[int, float] = {}
    memory: list[tuple[int, int]] = [(0, _rss_kib(follower.pid))]
    cpu_before = _cpu_seconds(follower.pid)
    start = time.monotonic()
    with log.open("ab") as handle:
        for index, line in enumerate(lines, start=1):
            due = start + (index - 1) / rate
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            handle.write(line + b"\n")
            handle.flush()
            appended[index] = time.monotonic()
            if index % max(1, n // 10) == 0:
                memory.append((index, _rss_kib(follower.pid)))
    written = time.monotonic() - start
    deadline = time.monotonic() + 600
    while len(arrived) < n and time.monotonic() < deadline and follower.poll() is None:
        time.sleep(0.05)
    done = time.monotonic() - start
    cpu = _cpu_seconds(follower.pid) - cpu_before
    memory.append((n, _rss_kib(follower.pid)))
    follower.terminate()
    follower.wait(timeout=60)
    latencies = [arrived[i] - appended[i] for i in appended if i in arrived]
    load = os.getloadavg()[0]
    report = _report(n, rate, written, done, latencies, memory, len(arrived))
    return [
        *report[:1],
        f"follower CPU: {cpu:.1f} s, {1000 * cpu / max(1, len(arrived)):.2f} ms per receipt "
        f"(one core would keep up with {len(arrived) / max(cpu, 1e-9):.0f}/s); "
        f"load average {load:.1f}",
        *report[1:],
    ]


def _report(
    n: int,
    rate: float,
    written: float,
    done: float,
    latencies: Sequence[float],
    memory: Sequence[tuple[int, int]],
    seen: int,
) -> list[str]:
    out = [
        f"receipts: {n}, offered {rate:.0f}/s (written in {written:.1f} s), "
        f"events: {seen}, all verified after {done:.1f} s ({seen / done:.0f}/s)",
        "",
        "| append to event | median | p90 | p99 | max |",
        "|---|---|---|---|---|",
        "| seconds | "
        + " | ".join(
            f"{v:.3f}"
            for v in (
                statistics.median(latencies) if latencies else 0.0,
                _percentile(latencies, 0.9),
                _percentile(latencies, 0.99),
                max(latencies, default=0.0),
            )
        )
        + " |",
        "",
        "| receipts appended | " + " | ".join(str(i) for i, _ in memory) + " |",
        "|---" * (len(memory) + 1) + "|",
        "| follower RSS (MiB) | " + " | ".join(f"{k / 1024:.1f}" for _, k in memory) + " |",
    ]
    return out


def _slope(samples: Sequence[tuple[int, int]]) -> float:
    """The least-squares growth of the resident size, KiB per receipt."""
    xs, ys = [float(n) for n, _ in samples], [float(k) for _, k in samples]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread == 0:
        return 0.0
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread


def flat(n: int, root: Path, extra: Sequence[str]) -> list[str]:
    """Append ``n`` receipts as fast as they are minted; the follower's memory by count."""
    log = root / "receipts.jsonl"
    log.touch()
    probe = root / "probe.txt"
    command = [
        sys.executable, "-m", "benchmarks.follow_probe", "verify", "--follow", str(log),
        "--state", str(root / "state.db"), "--allow-published-keys", *extra,
    ]  # fmt: skip
    here = Path(__file__).resolve().parents[1]
    env = {**os.environ, "SEALVERIFY_PROBE_OUT": str(probe), "PYTHONPATH": str(here)}
    follower = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=here
    )
    samples: list[tuple[int, int]] = []
    inside: list[Sample | None] = []
    step = max(1, n // 10)

    def sample(seen: int) -> None:
        if seen % step == 0:
            samples.append((seen, _rss_kib(follower.pid)))
            inside.append(latest(probe))

    arrived: dict[int, float] = {}
    reader = threading.Thread(target=_reader, args=(follower.stdout, arrived, sample), daemon=True)
    reader.start()
    time.sleep(2.0)  # the follower's start-up, not measured
    samples.append((0, _rss_kib(follower.pid)))
    inside.append(latest(probe))
    cpu_before, start = _cpu_seconds(follower.pid), time.monotonic()
    with log.open("ab") as handle:
        for receipt in mint_many(n, seed=b"follow-flat"):
            handle.write(render_compact(parse_record(receipt)) + b"\n")
        handle.flush()
    written = time.monotonic() - start
    while len(arrived) < n and follower.poll() is None:
        time.sleep(0.2)
    done, cpu = time.monotonic() - start, _cpu_seconds(follower.pid) - cpu_before
    peak = _peak_kib(follower.pid)
    follower.terminate()
    follower.wait(timeout=60)
    reader.join(timeout=10)
    tail = [s for s in samples if s[0] >= n // 5]
    slope = _slope(tail)
    at_10m = samples[-1][1] + slope * (10_000_000 - samples[-1][0])
    return [
        f"receipts: {n}, written in {written:.1f} s as fast as minted, all {len(arrived)} "
        f"events after {done:.1f} s ({len(arrived) / done:.0f}/s); follower CPU {cpu:.1f} s, "
        f"{1000 * cpu / max(1, len(arrived)):.2f} ms per receipt; "
        f"load average {os.getloadavg()[0]:.1f}",
        "",
        "| events | " + " | ".join(str(i) for i, _ in samples) + " |",
        "|---" * (len(samples) + 1) + "|",
        "| follower RSS (MiB) | " + " | ".join(f"{k / 1024:.1f}" for _, k in samples) + " |",
        *_inside_rows(inside),
        "",
        _heap_slope(samples, inside, n),
        f"peak RSS {peak / 1024:.1f} MiB; growth from {n // 5} events on: "
        f"{slope * 1024:.1f} bytes per receipt ({slope * 1000 / 1024:.3f} MiB per 1,000); "
        f"extrapolated to 10,000,000 receipts: {at_10m / 1024:.0f} MiB (a line, not a run)",
        _store_size(root, log, len(arrived)),
    ]


def _inside_rows(inside: Sequence[Sample | None]) -> list[str]:
    """The probe's rows: Python heap blocks and SQLite's bytes at each sample ("-": none yet)."""

    def cells(read: Callable[[Sample], str]) -> str:
        return " | ".join("-" if s is None else read(s) for s in inside)

    return [
        f"| Python heap (thousand blocks) | {cells(lambda s: f'{s.blocks / 1000:.1f}')} |",
        f"| SQLite (MiB) | {cells(lambda s: f'{s.sqlite_bytes / 1048576:.2f}')} |",
    ]


def _heap_slope(samples: Sequence[tuple[int, int]], inside: Sequence[Sample | None], n: int) -> str:
    """The Python heap's growth per 1,000 receipts after the first fifth (a least-squares line)."""
    heap = [(seen, s.blocks) for (seen, _), s in zip(samples, inside, strict=True) if s is not None]
    tail = [(seen, blocks) for seen, blocks in heap if seen >= n // 5]
    if len(tail) < 2:
        return "Python heap: too few samples for a slope"
    return (
        f"Python heap from {n // 5} events on: {_slope(tail) * 1000:+.1f} allocated blocks "
        f"per 1,000 receipts (a sample is at most {INTERVAL:.0f} s old)"
    )


def _store_size(root: Path, log: Path, judged: int) -> str:
    """The ``--state`` file's size after the run, per receipt, beside the log's."""
    files = [root / f"state.db{end}" for end in ("", "-wal", "-shm")]
    size = sum(f.stat().st_size for f in files if f.exists())
    db = sqlite3.connect(f"{(root / 'state.db').resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows, kept = db.execute("SELECT COUNT(*), SUM(LENGTH(data)) FROM follow_threads").fetchone()
    finally:
        db.close()
    per = size / max(1, judged)
    return (
        f"store {size / 1048576:.1f} MiB after {judged} receipts, {per:.0f} bytes per receipt "
        f"(the log: {log.stat().st_size / max(1, judged):.0f} bytes per receipt); "
        f"follow_threads: {rows} rows, {(kept or 0) / max(1, rows):.0f} bytes of data a row"
    )


def _peak_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.follow", description=__doc__)
    parser.add_argument("--n", type=int, default=5000, help="receipts to append")
    parser.add_argument("--rate", type=float, default=1000.0, help="receipts per second")
    parser.add_argument("--dir", type=Path, default=None, help="work here instead of a temp dir")
    parser.add_argument(
        "--flat", action="store_true", help="memory by count: no rate, a slope per receipt"
    )
    parser.add_argument(
        "--pair",
        type=Path,
        default=None,
        metavar="TREE",
        help="also run the follower of the source tree TREE, right after this checkout's",
    )
    parser.add_argument(
        "extra", nargs="*", help="more verify options for the follower (after --), e.g. --poll"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sealverify-follow-", dir=args.dir) as tmp:
        print(f"cpu: {os.cpu_count()} core(s), python {sys.version.split()[0]}")
        if args.flat:
            print("\n".join(flat(args.n, Path(tmp), args.extra)))
        elif args.pair is None:
            print("\n".join(run(args.n, args.rate, Path(tmp), args.extra)))
        else:
            here = Path(__file__).resolve().parents[1]
            for label, tree in (("this checkout", here), (str(args.pair), args.pair)):
                root = Path(tmp) / str(len(os.listdir(tmp)))
                root.mkdir()
                print(f"\n### {label}\n")
                print("\n".join(run(args.n, args.rate, root, args.extra, tree)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
