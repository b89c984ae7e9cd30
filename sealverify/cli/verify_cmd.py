"""``sealverify verify``: verify seal decision receipts in files, directories, globs and logs."""

from __future__ import annotations

import glob
import itertools
import os
import re
import sys
import tempfile
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.pool import AsyncResult
from pathlib import Path
from typing import IO

import click

from sealverify import __version__, approvals, history
from sealverify.cli.common import emit, format_option, output_option
from sealverify.formats import jsonfmt
from sealverify.formats.table import receipt_row_subject
from sealverify.outcome import FAIL
from sealverify.report import Check, Report, Subject, info
from sealverify.strictjson import JsonError, JsonValue, parse_bytes
from sealverify.trust import TrustStore, load_trust_file
from sealverify.verify import (
    DEFAULT_KERNEL_SHA256,
    VerifyOptions,
    build_report_from_tally,
    is_receipt_like,
    log_line_body,
    verify_found,
    verify_log_line,
    verify_receipt,
)

__all__ = ["COMMANDS", "verify"]

_SUFFIXES = (".json", ".jsonl", ".ndjson")
_SIDE_SUFFIX = ".partition.json"
_LOG_SUFFIXES = (".jsonl", ".ndjson")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_GLOB = re.compile(r"[*?\[]")


def _walk(directory: Path) -> Iterator[Path]:
    """Receipt files under ``directory``, lazily, in sorted path order.

    Each directory's entries are sorted by name and subdirectories are entered in place,
    which is the order ``sorted(directory.rglob("*"))`` gives (paths compare part by part)
    without holding the whole tree's paths at once.
    """
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        if entry.is_dir():
            yield from _walk(path)
        elif entry.is_file() and path.suffix in _SUFFIXES and not entry.name.endswith(_SIDE_SUFFIX):
            yield path


def _side_attestation(path: Path) -> tuple[JsonValue | None, str]:
    """A partition attestation beside a receipt: ``<receipt file>.partition.json``.

    Returns ``(attestation, "")``, or ``(None, problem)`` when the side file exists but cannot
    be read; the problem is a usage error once the file is known to be a receipt.
    """
    side = path.with_name(path.name + _SIDE_SUFFIX)
    if not side.is_file():
        return None, ""
    try:
        return parse_bytes(side.read_bytes()), ""
    except (OSError, JsonError) as exc:
        return None, f"cannot read partition attestation {side}: {exc}"


def _load_approvals(path: Path | None) -> tuple[tuple[str, bytes], ...] | None:
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise click.UsageError(f"--approvals {path}: {exc.strerror or exc}") from None
    return tuple(approvals.split_tokens(data, path.name))


def _history_facts(raw: bytes, name: str) -> history.ReceiptFacts | None:
    try:
        doc = parse_bytes(raw)
    except JsonError:
        return None
    return history.receipt_facts(doc, name) if isinstance(doc, dict) else None


def _expand(paths: Iterable[str]) -> Iterator[tuple[Path, bool]]:
    """Files to read, each with whether it was found by a walk (then non-receipts are skipped).

    Arguments are checked up front (a bad one is a usage error before any work); directory
    walks are lazy. A file named twice is read once.
    """
    sources: list[tuple[Path, bool]] = []
    for arg in paths:
        path = Path(arg)
        if path.is_dir():
            sources.append((path, True))
        elif path.is_file():
            sources.append((path, False))
        elif _GLOB.search(arg):
            matches = sorted(glob.glob(arg, recursive=True))
            if not matches:
                raise click.UsageError(f"{arg}: no file matches this pattern")
            sources.extend((m, True) for m in map(Path, matches) if m.is_dir() or m.is_file())
        else:
            raise click.UsageError(f"{arg}: no such file or directory")
    return _unique(sources)


def _unique(sources: list[tuple[Path, bool]]) -> Iterator[tuple[Path, bool]]:
    # One source never names a file twice: remember names only when there are several.
    seen: set[str] | None = set() if len(sources) > 1 else None
    for source, walked in sources:
        found = ((p, True) for p in _walk(source)) if source.is_dir() else iter([(source, walked)])
        for path, from_walk in found:
            if seen is None:
                yield path, from_walk
            elif (key := str(path)) not in seen:
                seen.add(key)
                yield path, from_walk


@dataclass(frozen=True, slots=True)
class _Files:
    """A task: up to ``_CHUNK`` receipt files, each with whether a walk found it."""

    files: tuple[tuple[str, bool], ...]


@dataclass(frozen=True, slots=True)
class _LogSlice:
    """A task: lines ``first``.. of a JSONL log, the bytes ``[start, end)`` of the file."""

    name: str
    start: int
    end: int
    first: int


@dataclass(frozen=True, slots=True)
class _Settings:
    """What every task needs: the authority, whether history wants facts, the report format."""

    options: VerifyOptions
    want_facts: bool
    fmt: str


# A subject or a finding (a str is a usage problem met in a worker), the subject's JSON
# fragment when the format is json, and history facts.
_Result = tuple[Subject | Check | str, str | None, history.ReceiptFacts | None]
_CHUNK = 64  # receipts per task: enough to amortise inter-process traffic, small to balance


def _tasks(files: Iterable[tuple[Path, bool]]) -> Iterator[_Files | _LogSlice]:
    """Cut the inputs into tasks lazily; receipt bytes are read by whoever runs the task."""
    batch: list[tuple[str, bool]] = []
    for path, walked in files:
        if path.suffix in _LOG_SUFFIXES:
            if batch:
                yield _Files(tuple(batch))
                batch = []
            yield from _log_slices(path)
            continue
        batch.append((path.as_posix(), walked))
        if len(batch) == _CHUNK:
            yield _Files(tuple(batch))
            batch = []
    if batch:
        yield _Files(tuple(batch))


def _log_slices(path: Path) -> Iterator[_LogSlice]:
    """Slices of ``_CHUNK`` lines; only line boundaries are kept, never the log's bytes."""
    name = path.as_posix()
    start = offset = count = 0
    first = 1
    try:
        with path.open("rb") as log:
            for line in log:
                offset += len(line)
                count += 1
                if count == _CHUNK:
                    yield _LogSlice(name, start, offset, first)
                    start, first, count = offset, first + count, 0
    except OSError as exc:
        raise click.UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if count:
        yield _LogSlice(name, start, offset, first)


def _skipped(name: str) -> Check:
    return info("input.not-a-receipt", "skipped: JSON without any receipt member", name)


def _finish(result: Subject | Check, raw: bytes, settings: _Settings) -> _Result:
    if not isinstance(result, Subject):
        return result, None, None
    # Only receipts whose own checks held may teach history: a forged receipt must not mark
    # a real nonce as spent.
    facts = None
    if settings.want_facts and result.outcome != FAIL:
        facts = _history_facts(raw, result.name)
    if settings.fmt == "json":  # rendered here, spooled by the parent: flat memory
        return receipt_row_subject(result), jsonfmt.subject_text(result), facts
    if settings.fmt == "table":  # the table shows a few strings of each receipt
        return receipt_row_subject(result), None, facts
    return result, None, facts


def _verify_file(path: Path, walked: bool, settings: _Settings) -> _Result:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}", None, None
    attestation, problem = _side_attestation(path)
    name = path.as_posix()
    if walked:
        if problem:
            return (problem if is_receipt_like(data) else _skipped(name)), None, None
        found = verify_found(data, name, settings.options, attestation)
        return _finish(_skipped(name) if found is None else found, data, settings)
    if problem:
        return problem, None, None
    return _finish(verify_receipt(data, name, settings.options, attestation), data, settings)


def _run_task(task: _Files | _LogSlice, settings: _Settings) -> list[_Result]:
    """Verify one task; pure over the files, so a worker gives the same results as the parent."""
    if isinstance(task, _Files):
        return [_verify_file(Path(name), walked, settings) for name, walked in task.files]
    try:
        with open(task.name, "rb") as log:
            log.seek(task.start)
            data = log.read(task.end - task.start)
    except OSError as exc:
        return [(f"cannot read {task.name}: {exc.strerror or exc}", None, None)]
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # the slice ends at a line terminator (or at the end of the file)
    return [
        _finish(
            verify_log_line(line, task.first + index, task.name, settings.options),
            log_line_body(line),
            settings,
        )
        for index, line in enumerate(lines)
    ]


_WORKER: _Settings | None = None


def _init_worker(settings: _Settings) -> None:
    global _WORKER
    _WORKER = settings


def _run_task_in_worker(task: _Files | _LogSlice) -> list[_Result]:
    assert _WORKER is not None
    return _run_task(task, _WORKER)


def _results(
    tasks: Iterator[_Files | _LogSlice], settings: _Settings, jobs: int
) -> Iterator[_Result]:
    """Results in input order; with ``jobs > 1`` tasks run in worker processes.

    At most ``4 * jobs`` tasks are in flight, so memory does not grow with the input.
    """
    if jobs == 1:
        for task in tasks:
            yield from _run_task(task, settings)
        return
    context = get_context("fork" if sys.platform == "linux" else "spawn")
    with context.Pool(jobs, _init_worker, (settings,)) as pool:
        pending: deque[AsyncResult[list[_Result]]] = deque()
        for task in tasks:
            pending.append(pool.apply_async(_run_task_in_worker, (task,)))
            if len(pending) >= 4 * jobs:
                yield from pending.popleft().get()
        while pending:
            yield from pending.popleft().get()


def _jobs(value: str) -> int:
    if value == "auto":
        return os.cpu_count() or 1
    if value.isdigit() and int(value) >= 1:
        return int(value)
    raise click.UsageError(f"--jobs {value!r}: expected a positive integer or 'auto'")


def _trust(
    config: tuple[str, ...],
    receipt: tuple[str, ...],
    approval: tuple[str, ...],
    trust_file: Path | None,
) -> TrustStore:
    try:
        store = TrustStore.from_pins(config=config, receipt=receipt, approval=approval)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if trust_file is None:
        return store
    try:
        data = trust_file.read_bytes()
    except OSError as exc:
        raise click.UsageError(f"--trust {trust_file}: {exc.strerror or exc}") from None
    try:
        return store.merge(load_trust_file(data))
    except ValueError as exc:
        raise click.UsageError(f"--trust {trust_file}: {exc}") from None


@contextmanager
def _progress(results: Iterator[_Result]) -> Iterator[Iterable[_Result]]:
    """A progress counter on stderr, only when stderr is a terminal (never in captured output)."""
    if sys.stderr.isatty():
        with click.progressbar(results, label="verifying", file=sys.stderr) as bar:
            yield bar
    else:
        yield results


@click.command()
@click.argument("paths", metavar="PATH...", nargs=-1, required=True)
@click.option(
    "--config-pubkey",
    "config_pins",
    multiple=True,
    metavar="HEX",
    help="Pin a config signer (64 lowercase hex Ed25519 key); repeatable.",
)
@click.option(
    "--receipt-pubkey",
    "receipt_pins",
    multiple=True,
    metavar="HEX",
    help="Pin a receipt (Object B) signing key; repeatable.",
)
@click.option(
    "--approval-pubkey",
    "approval_pins",
    multiple=True,
    metavar="HEX",
    help="Pin an approver key (matched to an ed25519 approval's key_id); repeatable.",
)
@click.option(
    "--trust",
    "--trust-file",
    "trust_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="A trust file of pinned keys, roles and validity windows (docs/trust.md).",
)
@click.option(
    "--kernel-sha256",
    "kernel_pins",
    multiple=True,
    metavar="HEX",
    help="Also accept this kernel wasm build (the fleet build "
    f"{DEFAULT_KERNEL_SHA256[:8]}… is always pinned); repeatable.",
)
@click.option(
    "--approvals",
    "approvals_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="ApprovalRecord v2 tokens (NDJSON) to bind each consumed ed25519 approval to "
    "(docs/approvals.md).",
)
@click.option(
    "--state",
    "state_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="PATH",
    help="SQLite history across runs: single-use nonces, operation ids, config epochs "
    "(docs/history.md). Written only when the run completes.",
)
@click.option(
    "--jobs",
    "-j",
    "jobs_text",
    default="1",
    show_default=True,
    metavar="N|auto",
    help="Verify with N worker processes ('auto': one per core); the report is identical.",
)
@format_option()
@output_option
def verify(
    paths: tuple[str, ...],
    config_pins: tuple[str, ...],
    receipt_pins: tuple[str, ...],
    approval_pins: tuple[str, ...],
    trust_file: Path | None,
    kernel_pins: tuple[str, ...],
    approvals_file: Path | None,
    state_path: Path | None,
    jobs_text: str,
    fmt: str,
    output: Path | None,
) -> int:
    """Verify seal decision receipts: signatures, bindings, pins and the P-ENFORCE outcome.

    PATH may be a receipt file, a directory (searched recursively for *.json, *.jsonl and
    *.ndjson), a glob, or a JSONL log (one receipt per line). Authority comes only from pins.
    Exit 0 all VERIFIED, 1 any FAIL, 4 any REDUCED (no FAIL), 3 any UNPINNED (nothing worse),
    2 could not run (bad flag, unreadable path, no receipt found). Decision replay is never
    performed and every report says so.
    """
    for pin in kernel_pins:
        if not _HEX64.fullmatch(pin):
            raise click.UsageError(f"--kernel-sha256 {pin!r}: expected 64 lowercase hex digits")
    options = VerifyOptions(
        trust=_trust(config_pins, receipt_pins, approval_pins, trust_file),
        kernel_pins=(DEFAULT_KERNEL_SHA256, *kernel_pins),
        approval_tokens=_load_approvals(approvals_file),
    )
    jobs = _jobs(jobs_text)
    store: history.HistoryStore | None = None
    if state_path is not None:
        try:
            store = history.HistoryStore(state_path, tool_version=__version__)
        except history.HistoryError as exc:
            raise click.UsageError(f"--state: {exc}") from None
    facts: list[history.ReceiptFacts] = []
    subjects: list[Subject] = []  # kept for formats that need them all at the end
    tally: Counter[tuple[str, str]] = Counter()  # (outcome, label) -> receipts
    findings: list[Check] = []
    settings = _Settings(options, store is not None, fmt)
    # A JSON report's subjects are spooled as they complete (flat memory); closed at exit.
    spool = _spool() if fmt == "json" else None
    with _progress(_results(_tasks(_expand(paths)), settings, jobs)) as results:
        for result, fragment, found in results:
            if isinstance(result, str):
                raise click.UsageError(result)
            if isinstance(result, Subject):
                if spool is not None and fragment is not None:
                    spool.write(jsonfmt.SUBJECT_SEPARATOR if tally else "")
                    spool.write(fragment)
                else:
                    subjects.append(result)
                tally[result.outcome, result.label] += 1
            else:
                findings.append(result)
            if found is not None:
                facts.append(found)
    if not tally:
        raise click.UsageError("no receipts matched: " + " ".join(paths))
    if store is not None:
        for check in store.check_and_stage(facts):
            findings.append(check if check.location else _located(check, state_path))
    report = build_report_from_tally(tally, findings, tuple(subjects))
    summary = report.summary
    line = (
        f"sealverify verify: {summary['receipts']} receipt(s): {summary['VERIFIED']} VERIFIED, "
        f"{summary['REDUCED']} REDUCED, {summary['UNPINNED']} UNPINNED, {summary['FAIL']} FAIL "
        f"({summary['not_mediated']} NOT MEDIATED); decision replay: not evaluated"
    )
    if spool is None:
        emit(report, fmt, output, line)
    else:
        with spool:
            _emit_spooled(report, spool, output, line)
    if store is not None:
        store.commit()  # only now: the whole run completed and its report was written
        store.close()
    return report.exit_code


def _spool() -> IO[str]:
    return tempfile.TemporaryFile("w+", encoding="utf-8")


def _emit_spooled(report: Report, spool: IO[str], output: Path | None, summary: str) -> None:
    """:func:`emit` for a JSON report whose subjects were spooled as they completed."""
    head, tail = jsonfmt.render_around_subjects(report)
    spool.seek(0)
    pieces = itertools.chain([head], iter(lambda: spool.read(1 << 20), ""), [tail])
    if output is None:
        for piece in pieces:
            click.echo(piece, nl=False)
    else:
        tmp = output.with_name(output.name + ".partial")
        with tmp.open("w", encoding="utf-8") as out:
            out.writelines(pieces)
        tmp.replace(output)
    click.echo(summary, err=True)


def _located(check: Check, state: Path | None) -> Check:
    return Check(check.id, check.status, check.reason, f"history:{state}", check.data)


COMMANDS = [verify]
