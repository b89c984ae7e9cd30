"""``python -m benchmarks.scale``: verify on Dask: workers, partitions, bytes, memory.

Mints a corpus (a JSONL log and a directory), starts a real ``dask scheduler`` and workers on
loopback for each worker count, and times ``sealverify verify --cluster`` children against the
one-process run: throughput by worker count, the overhead of one partition (the difference of
two partition sizes over the difference of their partition counts), the bytes one receipt
moves (read by a worker, its result back to the client, its share of the task), and the
client's peak RSS at N and 2N receipts (flat when the client holds no receipts). Needs the
dask extra. On a shared machine the numbers are noisy; compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import os
import pickle
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

from benchmarks.run import _mint, _row, _run_cli

__all__ = ["main"]


@dataclass(frozen=True, slots=True)
class Timed:
    label: str
    receipts: int
    seconds: float
    max_rss_kib: int

    @property
    def rate(self) -> float:
        return self.receipts / self.seconds


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _cluster(workers: int) -> Iterator[str]:
    """A real scheduler and ``workers`` single-threaded worker processes on loopback."""
    import distributed

    client_class: Any = distributed.Client
    dask = shutil.which("dask", path=os.path.dirname(sys.executable)) or "dask"
    port = _port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen(
        [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        **quiet,  # type: ignore[call-overload]
    )
    nodes = subprocess.Popen(
        [dask, "worker", address, "--nworkers", str(workers), "--nthreads", "1", "--no-dashboard"],
        **quiet,  # type: ignore[call-overload]
    )
    try:
        with client_class(address, timeout=60) as client:
            client.wait_for_workers(workers, timeout=120)
        yield address
    finally:
        for proc in (nodes, scheduler):
            proc.terminate()
            proc.wait(timeout=30)


def _verify(launcher: Pool, label: str, receipts: int, target: Path, *extra: str) -> Timed:
    """One ``sealverify verify`` child (the main bench's launcher), timed with its peak RSS."""
    # The minted corpus includes receipts of a host predating the meta-partition ruling: the
    # legacy check is waived so that every receipt runs the full path and the run exits 0.
    waived = ("--waive", "legacy.guard-target-omits-meta", *extra)
    run = _run_cli(launcher, label, receipts, target, 1, "json", waived)
    if run.exit_code != 0:
        raise SystemExit(f"{label}: exit {run.exit_code}")
    return Timed(label, receipts, run.seconds, run.max_rss_kib)


def _overhead(address: str, tasks: int = 400) -> float:
    """Seconds of scheduling a task costs: empty tasks through the scheduler and a worker.

    Timed pipelined, as the client submits partitions, so the figure is what a partition adds
    beyond its receipts' own work. Far steadier on a busy machine than the difference of two
    whole runs with different partition sizes.
    """
    import distributed

    client_class: Any = distributed.Client
    with client_class(address, timeout=60) as client:
        client.gather(client.map(abs, range(20), pure=False))  # warm the connections
        started = time.perf_counter()
        client.gather(client.map(abs, range(tasks), pure=False))
        return (time.perf_counter() - started) / tasks


def _task_bytes(log: Path, partition: int) -> int:
    """The pickled size of one log partition's task description (name, byte range, line)."""
    spec = (str(log), 0, log.stat().st_size, 1, partition)
    return len(pickle.dumps(spec))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__)
    parser.add_argument("--n", type=int, default=4000, help="receipts (2N are minted)")
    parser.add_argument("--max-workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--partition", type=int, default=512, help="receipts per partition")
    args = parser.parse_args(argv)
    n = args.n
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("the scale section needs the dask extra: pip install 'sealverify[dask]'")
        return 2
    with (
        get_context("forkserver").Pool(1) as launcher,
        tempfile.TemporaryDirectory(prefix="sealverify-scale-") as tmp,
    ):
        root = Path(tmp)
        folder, log = root / "receipts", root / "receipts.jsonl"
        folder.mkdir()
        _mint(folder, log, 2 * n)
        half = root / "half.jsonl"
        with log.open("rb") as inp, half.open("wb") as out:
            for _, line in zip(range(n), inp, strict=False):
                out.write(line)
        load = os.getloadavg()[0]
        one = _verify(launcher, "--jobs 1 (one process)", n, half)
        one_rss = {n: one.max_rss_kib, 2 * n: _verify(launcher, "2N", 2 * n, log).max_rss_kib}
        rows: list[Timed] = []
        overhead = back = 0.0
        rss: dict[int, int] = {}
        for workers in range(1, max(1, args.max_workers) + 1):
            with _cluster(workers) as address:
                flag = ["--cluster", address, "--partition-size", str(args.partition)]
                rows.append(_verify(launcher, f"--cluster, {workers} worker(s)", n, half, *flag))
                if workers == 1:
                    overhead = _overhead(address)
                if workers == max(1, args.max_workers):
                    # Small partitions: both runs go well past the partitions the client holds.
                    held = ["--cluster", address, "--partition-size", "128"]
                    for count, target in ((n, half), (2 * n, log)):
                        report = root / f"report-{count}.json"
                        to_file = ["--output", str(report)]
                        run = _verify(launcher, f"N={count}", count, target, *held, *to_file)
                        rss[count] = run.max_rss_kib
                        back = report.stat().st_size / count
        read, spec = half.stat().st_size / n, _task_bytes(half, args.partition)
    lines = [
        f"## Scale: verify --cluster (N={n}, {args.partition} receipts per partition)",
        "",
        f"machine: {os.cpu_count()} cores, load average {load:.1f} at the start; scheduler and "
        "workers on loopback; numbers are noisy on a shared machine: read the ratios of one run",
        "",
        _row(["run", "seconds", "receipts/s", "vs one process"]),
        _row(["---", "---:", "---:", "---:"]),
        _row([one.label, f"{one.seconds:.2f}", f"{one.rate:,.0f}", "1.00x"]),
    ]
    for row in rows:
        lines.append(
            _row(
                [
                    row.label,
                    f"{row.seconds:.2f}",
                    f"{row.rate:,.0f}",
                    f"{one.seconds / row.seconds:.2f}x",
                ]
            )
        )
    lines += [
        "",
        f"per-partition overhead (empty tasks through the scheduler and 1 worker, pipelined): "
        f"{overhead * 1e3:.2f} ms a partition, {overhead / args.partition * 1e6:.2f} us a "
        f"receipt at {args.partition} receipts a partition; one process verifies a receipt in "
        f"{one.seconds / n * 1e3:.2f} ms here (start-up included)",
        f"bytes per receipt: {read:,.0f} read by a worker (a ranged read of the log), about "
        f"{back:,.0f} back to the client (its JSON report fragment), "
        f"{spec / args.partition:,.2f} of task description ({spec} bytes a partition); the "
        "client also reads the log once to cut it at line ends",
        "client peak RSS with --cluster (128 receipts per partition): "
        f"{rss.get(n, 0) / 1024:.0f} MiB at N={n}, "
        f"{rss.get(2 * n, 0) / 1024:.0f} MiB at 2N={2 * n}; one process: "
        f"{one_rss[n] / 1024:.0f} MiB and {one_rss[2 * n] / 1024:.0f} MiB",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
