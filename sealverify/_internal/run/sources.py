"""``verify_sources``: a run of verify over files, directories, globs, logs and object storage.

The one path every run takes, the command line's and a library caller's: the sources are
expanded (``engine.expand``), cut into tasks with the session pass done first
(``engine.tasks``), verified in this process, in worker processes or on a Dask cluster
(``cluster.runner``), and handed on in input order. A task's error comes back as a value and
is raised here; whatever cannot be run raises a :class:`~sealverify.SealverifyError` kind.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from sealverify._internal.receipts.pin_use import PinUse
from sealverify._internal.receipts.verify import VerifyOptions
from sealverify._internal.results.model import Check, Subject
from sealverify._internal.run import cluster as clusters
from sealverify._internal.run import storage
from sealverify._internal.run.cluster import DEFAULT_PARTITION
from sealverify._internal.run.engine import Result, Settings, Task, expand, tasks
from sealverify._internal.run.reading import DEFAULT_MAX_INPUT_BYTES
from sealverify.errors import InputError, SealverifyError

__all__ = ["DEFAULT_PARTITION", "Jobs", "auto_jobs", "run_results", "verify_sources"]

Jobs = int | Literal["auto"]

# What a run in one process keeps of what the session grouping read, for the tasks: receipt
# bytes and their strict readings (run/handoff.py charges a reading three times its bytes),
# so about 1,000 receipts of 8 KB are read once and parsed once; the rest are read and
# parsed again, and peak memory stays within this much of a run that keeps nothing. A run
# with workers keeps no bytes: the room holds the frames the session pass decoded.
_KEEP = 32 << 20


def verify_sources(
    sources: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    options: VerifyOptions,
    *,
    jobs: Jobs = 1,
    cluster: str | None = None,
    partition_size: int = DEFAULT_PARTITION,
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES,
    storage_options: Mapping[str, Any] | None = None,
) -> Iterator[Subject | Check]:
    """Verify every receipt the ``sources`` name, as ``sealverify verify`` does, in input order.

    A source is a receipt file, a directory (walked for ``*.json``, ``*.jsonl``,
    ``*.ndjson``), a glob, a JSONL log, or a URL read through fsspec (``s3://``, ``file://``;
    ``storage_options`` are fsspec's); one source may be given alone. Each is held to
    ``max_input_bytes`` (a log, per slice of its lines). The receipts of one session are
    re-derived as one session across all of them. ``jobs`` processes verify (``"auto"``: one
    per core, or this one for a run of one task), or a Dask ``cluster`` (``tcp://host:8786``
    or ``local[:N]``, the dask extra).

    Yields each receipt's :class:`Subject` and each run finding (:class:`Check`), then the
    notes on pins that matched nothing: ``build_report(subjects, findings)`` of them is the
    report the command line prints (without ``--state``). Raises a
    :class:`~sealverify.SealverifyError` when the run cannot be done: an unreadable source
    (:class:`~sealverify.SourceError`), a refused one or none that holds a receipt
    (:class:`~sealverify.InputError`). The sources are checked when this is called; the
    receipts are read as the iterator is consumed.
    """
    if isinstance(sources, str | os.PathLike):
        sources = (sources,)
    settings = Settings(options, want_facts=False, fmt="", max_input=max_input_bytes)
    found = run_results(
        tuple(str(os.fspath(source)) for source in sources),
        settings,
        jobs=jobs,
        cluster=cluster,
        partition_size=partition_size,
        storage_options=storage_options,
    )
    return (result for result, _, _ in found)


def run_results(
    sources: Sequence[str],
    settings: Settings,
    *,
    jobs: Jobs,
    cluster: str | None,
    partition_size: int = DEFAULT_PARTITION,
    storage_options: Mapping[str, Any] | None = None,
) -> Iterator[tuple[Subject | Check, bytes | str | tuple[str, ...] | None, Any]]:
    """:func:`verify_sources` with what ``settings`` asks besides: fragments and facts.

    Each result comes with its subject's fragment in ``settings.fmt`` (rendered where it was
    verified, so the caller only spools it) and its history facts when ``settings`` wants
    them (``--state``).
    """
    storage.configure(storage_options or {})
    # One process verifies what the session grouping read and parsed, up to _KEEP, rather
    # than read each file twice; workers and cluster tasks read their own files, with the
    # frames the session pass decoded of a session's receipts (up to _KEEP), so no mode
    # decodes a session's receipt twice.
    here = jobs == 1 and cluster is None
    work: Iterator[Task] = tasks(expand(sources), settings.options, settings.max_input, _KEEP, here)
    if jobs == "auto":
        count, work = (1, work) if cluster is not None else auto_jobs(work, os.cpu_count() or 1)
    else:
        count = jobs
    run = clusters.runner(cluster, count, partition_size)
    return _in_order(run(work, settings), sources, settings.options)


def _in_order(
    results: Iterator[Result], sources: Sequence[str], options: VerifyOptions
) -> Iterator[tuple[Subject | Check, bytes | str | tuple[str, ...] | None, Any]]:
    """The results, a task's error raised; none matched is refused; then the pin notes."""
    pins = PinUse.of(options)  # a pin that matched no receipt is a run note
    matched = False
    skipped: list[str] = []  # JSON files a walk found that hold no receipt member
    for result, fragment, facts in results:
        if isinstance(result, SealverifyError):  # what stopped a task: the run cannot be done
            raise result
        if isinstance(result, Subject):
            matched = True
            pins.add(result)
        elif result.status == "fail":  # a log whose every line is broken: its findings
            matched = True
        elif result.id == "input.not-a-receipt" and not matched:
            skipped.append(result.location)
        yield result, fragment, facts
    if not matched:
        raise InputError(no_receipts(sources, skipped))
    for note in pins.notes():
        yield note, None, None


def no_receipts(sources: Sequence[str], skipped: Sequence[str]) -> str:
    """Why a run found nothing to verify: what was skipped, and the rule a walk reads by.

    "no receipts matched: DIR (2 JSON file(s) skipped, holding no receipt member: a.json,
    b.json; a directory or pattern is read for *.json, *.jsonl and *.ndjson files)".
    """
    named = ", ".join(skipped[:3]) + (f" and {len(skipped) - 3} more" if len(skipped) > 3 else "")
    rule = "a directory or pattern is read for *.json, *.jsonl and *.ndjson files"
    why = (
        f"{len(skipped)} JSON file(s) skipped, holding no receipt member: {named}; {rule}"
        if skipped
        else f"{rule}, and none was found"
    )
    return f"no receipts matched: {' '.join(sources)} ({why})"


def auto_jobs(work: Iterator[Task], cores: int) -> tuple[int, Iterator[Task]]:
    """``jobs="auto"``: one process per core, unless the whole run is one task.

    A task is up to a few dozen receipts (``engine.tasks``); a run that makes only one stays
    in this process, where starting workers would cost more than it saves. The first two
    tasks are looked at and given back in order, so the report is the same either way.
    """
    first = list(itertools.islice(work, 2))
    jobs = cores if len(first) > 1 else 1
    return jobs, itertools.chain(first, work)
