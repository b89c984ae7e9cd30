"""``verify --cluster``: the runner's tasks verified on a Dask distributed cluster, in order.

The same tasks as ``--jobs`` (``engine.tasks``: receipt files in groups, JSONL logs cut
into byte ranges at line boundaries, the session pass made first) are grouped into partitions and
submitted to the cluster; each worker runs ``engine._run_task`` over them, reading the
bytes itself (local paths it can see, or object storage URLs). The client takes results as
they complete and hands them on in input order, holding at most a bounded number of
partitions, so its memory stays flat; everything across receipts (the report's tally,
``--state`` history) happens after, on the client, exactly as for one process.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

from sealverify._internal.run import engine, storage
from sealverify._internal.run.engine import Result, Settings, Task
from sealverify._internal.run.refused import SourceUnreadable
from sealverify.errors import InputError, OptionError, SealverifyError

__all__ = [
    "ClusterAddress",
    "parse_address",
    "results_on_cluster",
    "run_partition",
    "runner",
]

_LOCAL = re.compile(r"local(?::([1-9][0-9]*))?")
_REMOTE = re.compile(r"(tcp|tls|ucx|inproc|ws|wss)://\S+")
HINT = "--cluster needs the dask extra: pip install 'sealverify[dask]'"
DEFAULT_PARTITION = 512  # receipts per partition: see docs/scale.md for the measurement
Runner = Callable[[Iterator[Task], Settings], Iterator[Result]]


def runner(cluster_text: str | None, jobs: int, partition_size: int) -> Runner:
    """How the tasks are run: this process and ``jobs - 1`` workers, or a Dask cluster."""
    if cluster_text is None:
        return lambda tasks, settings: engine.results(tasks, settings, jobs)
    address = parse_address(cluster_text)
    if jobs != 1:
        raise OptionError("--cluster and --jobs: name one (the cluster has the workers)")
    tasks_per_partition = max(1, -(-partition_size // engine._CHUNK))
    return lambda tasks, settings: results_on_cluster(tasks, settings, address, tasks_per_partition)


class ClusterAddress:
    """A parsed ``--cluster`` value: a scheduler address, or a local cluster of N workers."""

    def __init__(self, scheduler: str | None, workers: int) -> None:
        self.scheduler = scheduler
        self.workers = workers

    def __str__(self) -> str:
        return self.scheduler or f"local:{self.workers}"


def parse_address(text: str) -> ClusterAddress:
    """``tcp://host:port`` (any Dask scheme) or ``local[:N]`` (N worker processes here)."""
    local = _LOCAL.fullmatch(text)
    if local:
        return ClusterAddress(None, int(local.group(1) or os.cpu_count() or 1))
    if _REMOTE.fullmatch(text):
        return ClusterAddress(text, 0)
    raise OptionError(
        f"--cluster {text!r}: expected a scheduler address (tcp://host:8786) or local[:N]"
    )


def run_partition(
    partition: tuple[Task, ...], settings: Settings, options: dict[str, Any]
) -> list[Result]:
    """What a worker runs: a partition's tasks, in order (pure over the bytes it reads)."""
    storage.configure(options)
    return [result for task in partition for result in engine._run_task(task, settings)]


def _partitions(tasks: Iterator[Task], size: int) -> Iterator[tuple[Task, ...]]:
    batch: list[Task] = []
    for task in tasks:
        batch.append(task)
        if len(batch) == size:
            yield tuple(batch)
            batch = []
    if batch:
        yield tuple(batch)


def _distributed() -> Any:
    """The ``distributed`` package, or the one-line hint to install the dask extra."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise InputError(HINT) from None


def _connect(address: ClusterAddress, stack: ExitStack) -> Any:
    """A Dask client for ``address`` (a local cluster is started and closed with the run)."""
    import logging  # a run without a cluster never loads it

    dask = _distributed()
    Client, LocalCluster = dask.Client, dask.LocalCluster
    if address.scheduler is None:
        cluster = stack.enter_context(
            LocalCluster(
                n_workers=address.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address="127.0.0.1:0",  # loopback, any free port: never a clash
                silence_logs=logging.ERROR,
            )
        )
        return stack.enter_context(Client(cluster))
    try:
        client = Client(address.scheduler)
    except (OSError, TimeoutError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SourceUnreadable(
            f"--cluster {address.scheduler}: cannot reach the Dask scheduler ({reason})"
        ) from None
    return stack.enter_context(client)


def _quiet_teardown() -> None:
    """Silence the client's background machinery for a run that is being left early.

    Fetches still in flight when the client closes (Ctrl-C, a failed partition) end with
    "Stream is closed" errors that tornado and distributed log with a traceback; the run's
    own message (``sealverify: interrupted``, or why it stopped) is the one line to show.
    """
    import logging

    # distributed's own configuration gives some children a level of their own (for one,
    # ``tornado.application`` at ERROR), so each logger of either family is raised, not the roots
    families = ("tornado", "distributed")
    names = [*families, *logging.root.manager.loggerDict]
    for name in names:
        if name.split(".", 1)[0] in families:
            logging.getLogger(name).setLevel(logging.CRITICAL)


def results_on_cluster(
    tasks: Iterator[Task], settings: Settings, address: ClusterAddress, partition_size: int
) -> Iterator[Result]:
    """Results in input order, the partitions verified by the cluster's workers.

    At most ``2 x workers + 2`` partitions are submitted and not yet handed on; a worker lost
    mid-run has its partitions run again by the scheduler (the results are pure, so the report
    is the same). Leaving early (Ctrl-C, an error) cancels every partition still on the
    cluster.
    """
    with ExitStack() as stack:
        client = _connect(address, stack)
        as_completed = _distributed().as_completed

        workers = max(1, sum(client.nthreads().values()))
        bound = 2 * workers + 2  # one running and one queued a worker, and two more
        shared = client.scatter(settings, broadcast=True, hash=False)
        options = storage.storage_options()
        run = os.urandom(6).hex()  # names this run's futures on the scheduler
        parts = _partitions(tasks, partition_size)
        index: dict[str, int] = {}  # future key -> partition number
        live: dict[str, Any] = {}  # future key -> the future, until its result is taken
        done: dict[int, list[Result]] = {}  # finished, waiting for an earlier partition
        submitted = emitted = 0
        completed = as_completed(with_results=True, raise_errors=False)

        def submit() -> bool:
            nonlocal submitted
            part = next(parts, None)
            if part is None:
                return False
            future = client.submit(
                run_partition, part, shared, options, key=f"sealverify-{run}-{submitted}"
            )
            index[future.key] = submitted
            live[future.key] = future
            completed.add(future)
            submitted += 1
            return True

        try:
            while submitted - emitted < bound and submit():
                pass
            for future, value in completed:  # results fetched in the background
                number = index.pop(future.key)
                live.pop(future.key, None)
                if future.status != "finished":
                    raise _failed(address, number, value)
                done[number] = value
                future.release()
                while emitted in done:
                    yield from done.pop(emitted)
                    emitted += 1
                while submitted - emitted < bound and submit():
                    pass
        except BaseException:  # Ctrl-C, a failed partition, a reader that stopped early
            _quiet_teardown()
            raise
        finally:
            if live:  # left early: nothing of this run stays on the cluster
                _quiet_teardown()
                client.cancel(list(live.values()), force=True)


def _failed(address: ClusterAddress, number: int, value: object) -> SealverifyError:
    """Why a partition could not be verified: its own error, handed back, or what befell it.

    A task's refusal (an unreadable input) is a value in the partition's results, never a
    failed partition; a partition fails only when its worker did (lost, out of memory).
    """
    if isinstance(value, SealverifyError):
        return value
    return SealverifyError(
        f"--cluster {address}: partition {number} could not be verified "
        f"({type(value).__name__}: {value})"
    )
