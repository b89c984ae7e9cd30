"""Running verify over inputs: walking paths, cutting tasks, workers, results in order."""

from __future__ import annotations

import dataclasses
import errno
import functools
import os
import re
import signal
import stat
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sealverify._internal.receipts import pin_use
from sealverify._internal.receipts.families import ReceiptDocument
from sealverify._internal.receipts.session_index import FILES, SessionIndex
from sealverify._internal.receipts.sessions import (
    FileFact,
    LogSessions,
    SessionRederivation,
    file_facts,
    glance,
    may_need_session_pass,
    session_rederivations_of_facts,
    session_rederivations_of_log,
)
from sealverify._internal.receipts.verify import (
    VerifyOptions,
    is_receipt_like,
    log_line_body,
    verify_found,
    verify_log_line,
    verify_receipt,
)
from sealverify._internal.receipts.view import ReceiptView
from sealverify._internal.reports.filenames import report_name
from sealverify._internal.reports.formats.protocol import Context
from sealverify._internal.results.model import Check, Subject, info
from sealverify._internal.results.outcomes import Outcome
from sealverify._internal.run import storage
from sealverify._internal.run.handoff import Handoff
from sealverify._internal.run.reading import DEFAULT_MAX_INPUT_BYTES, read_file, too_large
from sealverify._internal.run.refused import InputRefused, SourceUnreadable
from sealverify._internal.run.walk import glob_matches, walk_tree
from sealverify._internal.wire.strictjson import JsonError, JsonValue, parse_bytes
from sealverify.errors import SealverifyError, SourceError
from sealverify.formats import STREAMS

if TYPE_CHECKING:
    from multiprocessing.pool import AsyncResult

    from sealverify._internal.history import facts as history

__all__ = [
    "LOG_SUFFIXES",
    "Result",
    "Settings",
    "Task",
    "expand",
    "history_facts",
    "results",
    "tasks",
]


_SUFFIXES = (".json", ".jsonl", ".ndjson")
_SIDE_SUFFIX = ".partition.json"
LOG_SUFFIXES = (".jsonl", ".ndjson")  # a log: one receipt per line
_GLOB = re.compile(r"[*?\[]")


def _wanted(path: Path) -> bool:
    name = path.name
    dot = name.rfind(".")  # path.suffix, from the name read once: after a dot not leading it
    return 0 < dot < len(name) - 1 and name[dot:] in _SUFFIXES and not name.endswith(_SIDE_SUFFIX)


def _walk(directory: Path) -> Iterator[Path]:
    """Receipt files under ``directory`` in sorted path order, fail-closed (run/walk.py)."""
    return walk_tree(directory, _wanted)


def _side_attestation(path: storage.Location) -> tuple[JsonValue | None, SourceUnreadable | None]:
    """A partition attestation beside a receipt: ``<receipt file>.partition.json``.

    Returns ``(attestation, None)``, or ``(None, problem)`` when the side file exists but
    cannot be read; the problem stops the run once the file is known to be a receipt.
    """
    if isinstance(path, Path) and _absent(os.fspath(path) + _SIDE_SUFFIX):
        return None, None  # the usual case, asked of the system directly (one stat)
    side = path.with_name(path.name + _SIDE_SUFFIX)
    try:
        if not side.is_file():  # a store that cannot say is an OSError: a problem, not absent
            return None, None
        return parse_bytes(_read(side)), None
    except (OSError, JsonError) as exc:
        return None, SourceUnreadable(f"cannot read partition attestation {side}: {exc}")


# The errors for which Path.is_file says False rather than raising (pathlib's _IGNORED_ERRNOS).
_NOT_THERE = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


def _absent(name: str) -> bool:
    """Whether ``Path(name).is_file()`` is False without raising, asked with one ``os.stat``.

    True for no such file or not a regular file. Any other answer (a file, or an error to
    report) is False, and the caller asks pathlib, so what a report says is unchanged.
    """
    try:
        return not stat.S_ISREG(os.stat(name).st_mode)
    except OSError as exc:
        return exc.errno in _NOT_THERE
    except ValueError:  # an embedded NUL: Path.is_file says False
        return True


def history_facts(raw: bytes, name: str, established: bool = True) -> history.ReceiptFacts | None:
    from sealverify._internal.history import facts as history  # a run with --state only

    try:
        doc = parse_bytes(raw)
    except JsonError:
        return None
    if not isinstance(doc, dict):
        return None
    return history.receipt_facts(doc, name, established=established)


def expand(paths: Iterable[str]) -> Iterator[tuple[storage.Location, bool]]:
    """Files to read, each with whether it was found by a walk (then non-receipts are skipped).

    Arguments are checked up front (a bad one stops the run before any work); directory
    walks are lazy. A file named twice is read once. A URL (``s3://``, ``file://``, ...) is
    listed and read through fsspec by the same rules (``run/storage.py``).
    """
    sources: list[tuple[storage.Location, bool]] = []
    for arg in paths:
        if storage.is_url(arg):
            sources.extend(storage.expand_url(arg))
            continue
        path = Path(arg)
        if path.is_dir():
            sources.append((path, True))
        elif path.is_file():
            sources.append((path, False))
        elif _GLOB.search(arg):
            # Expanded by the tree walker (run/walk.py), in sorted order: a pattern over a
            # tree with link loops is refused by name instead of following them forever.
            matches = list(glob_matches(arg))
            if not matches:
                raise InputRefused(f"{arg}: no file matches this pattern")
            sources.extend((m, True) for m in map(Path, matches) if m.is_dir() or m.is_file())
        else:
            raise SourceUnreadable(f"{arg}: no such file or directory")
    return _unique(sources)


def _walk_any(source: storage.Location) -> Iterator[storage.Location]:
    if isinstance(source, storage.Remote):
        return storage.walk(source, _kept)
    return _walk(source)


def _kept(name: str) -> bool:
    return name.endswith(_SUFFIXES) and not name.endswith(_SIDE_SUFFIX)


def _unique(
    sources: list[tuple[storage.Location, bool]],
) -> Iterator[tuple[storage.Location, bool]]:
    # One source never names a file twice: remember names only when there are several.
    seen: set[str] | None = set() if len(sources) > 1 else None
    for source, walked in sources:
        found = (
            ((p, True) for p in _walk_any(source)) if source.is_dir() else iter([(source, walked)])
        )
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
    # Re-derivations of these files made in their session's order, by file name, each bound
    # to the bytes it was made of (the task uses it only for those bytes).
    session_rederivations: tuple[tuple[str, SessionRederivation], ...] = ()
    # Bytes the session grouping already read, by file name, for a run in one process
    # (``tasks(..., keep=...)``): verified as read then, so each file is read once; and the
    # strict readings it made of them (``run/handoff.py``), so each is parsed once.
    read: tuple[tuple[str, bytes], ...] = ()
    readings: tuple[tuple[str, ReceiptDocument], ...] = ()
    # The views the session pass made of those readings (``receipts/view.py``): decoded once.
    views: tuple[tuple[str, ReceiptView], ...] = ()


@dataclass(frozen=True, slots=True)
class _LogSlice:
    """A task: lines ``first``.. of a JSONL log, the bytes ``[start, end)`` of the file."""

    name: str
    start: int
    end: int
    first: int
    # Re-derivations of this slice's lines made in their session's log order, by line number,
    # each bound to the line's bytes it was made of.
    session_rederivations: tuple[tuple[int, SessionRederivation], ...] = ()
    # A run in one process: the log's session pass, fed in log order by the verifier's own
    # reading of each line its ``session_rederivations`` leave out (never sent to a worker).
    live: LogSessions | None = None


@dataclass(frozen=True, slots=True)
class Settings:
    """What every task needs: the authority, whether history wants facts, the report format."""

    options: VerifyOptions
    want_facts: bool
    fmt: str
    # --max-input-bytes, carried to workers (a Dask worker has not parsed the command line).
    max_input: int = DEFAULT_MAX_INPUT_BYTES


Task = _Files | _LogSlice

# A subject or a finding (or the error that stops the run, met in a worker and handed back
# as a value for the parent to raise), the subject's text fragment when the format is
# spooled as text (json: already UTF-8; sarif, junit), and history facts.
Result = tuple[
    Subject | Check | SealverifyError,
    bytes | str | tuple[str, ...] | None,
    "history.ReceiptFacts | None",  # loaded by a run with --state only
]
_BLOCK = 1 << 20  # bytes of a log read at a time to find line ends
# What a log slice carries to its worker of the frames the session pass decoded (a few KB
# a receipt): the receipts it read are viewed with those frames, not decoded again; beyond
# it the worker decodes them itself, so what a task carries stays bounded.
_SHIP = 1 << 20
_CHUNK = 64  # receipts per task: enough to amortise inter-process traffic, small to balance


def tasks(
    files: Iterable[tuple[storage.Location, bool]],
    options: VerifyOptions | None = None,
    max_input: int = DEFAULT_MAX_INPUT_BYTES,
    keep: int = 0,
    in_process: bool = False,
) -> Iterator[_Files | _LogSlice]:
    """Cut the inputs into tasks lazily; receipt bytes are read by whoever runs the task.

    A log whose sessions need their receipts re-derived in log order (``replay.decision`` of
    a session's later calls) has its session pass here first, in log order; its slices carry
    the results.
    So are the sessions among separate receipt files, in the order their claims give: every
    file is read once here first (``receipts/sessions.py``, held to ``max_input``), and each
    task carries its files' results, so workers and cluster tasks need no other task's
    receipts. Up to ``keep`` bytes of what is read here are handed to the tasks
    (:class:`Handoff`) with the readings and views the session pass made, so those files
    are read, parsed and decoded once: every file, for a run whose tasks are all verified
    in this process, in order (``in_process``); else the session files only. A run in one
    process has a log's slices carry its session pass itself (:class:`LogSessions`), fed by
    each line's one reading as it is verified; otherwise the pass is made here and its
    results, with the readings they were made from (up to ``_SHIP`` a task), are handed on
    slice by slice.
    """
    by_file: dict[str, SessionRederivation] = {}
    by_log: dict[str, dict[int, SessionRederivation]] = {}
    spanning: frozenset[str] = frozenset()
    index: SessionIndex | None = None  # the run's sessions, when more than one log's
    read = Handoff(max_input, keep, every=in_process)
    if options is not None and options.rederive:
        listed = list(files)
        index, spanning, by_file, by_log = _session_files(listed, read, options)
        listed.reverse()
        files = _taken(listed)  # each path let go as its task is cut
    batch: list[tuple[str, bool]] = []

    def cut() -> _Files:
        # A file's result is let go as its task takes it (the room its frames held with it).
        rows = tuple((name, by_file.pop(name)) for name, _ in batch if name in by_file)
        read.refund(sum(bound.weight for _, bound in rows))
        return _Files(tuple(batch), rows, *read.hand_over(name for name, _ in batch))

    for path, walked in files:
        if path.suffix in LOG_SUFFIXES:
            if batch:
                yield cut()
                batch = []
            spans = by_log.pop(path.as_posix(), {})  # its lines of sessions spanning inputs
            if in_process and options is not None:
                yield from _live_slices(path, _live(path, options, spanning, index), spans, read)
            else:
                made = _session_pass(path, options, spanning, index) if options else iter(())
                yield from _slices_with_results(path, made, spans, read)
            continue
        batch.append((path.as_posix(), walked))
        if len(batch) == _CHUNK:
            yield cut()
            batch = []
    if batch:
        yield cut()


def _session_files(
    listed: list[tuple[storage.Location, bool]], read: Handoff, options: VerifyOptions
) -> tuple[
    SessionIndex | None,
    frozenset[str],
    dict[str, SessionRederivation],
    dict[str, dict[int, SessionRederivation]],
]:
    """The session pass over the run's separate files and its sessions spanning inputs.

    Each separate file is read for its session facts (held only until this pass is done);
    the sessions among the files are re-derived in the order their claims give, and those
    spanning inputs across them all (:func:`_spanning`). Returns the run's index (when the
    run has one; it keeps only its contested operations afterwards), the sessions spanning
    inputs, and the results by file and by log line.
    """
    names = [p.as_posix() for p, _ in listed if p.suffix not in LOG_SUFFIXES]
    facts = file_facts(names, read, read.look) if names else []
    index, by_file, by_log = _spanning(listed, facts, read, options)
    spanning = index.spanning() if index is not None else frozenset()
    contested = index.contradiction if index is not None and index.contested else None
    by_file.update(
        session_rederivations_of_facts(
            facts, read, options.raw_lines, spanning, contested, read.view, read.grant
        )
    )
    if index is not None:
        index.close()  # its contested operations are held; the records on disk go
    return index, spanning, by_file, by_log


def _taken(
    backwards: list[tuple[storage.Location, bool]],
) -> Iterator[tuple[storage.Location, bool]]:
    """The items of a reversed list in their first order, each let go as it is taken."""
    while backwards:
        yield backwards.pop()


def _live_slices(
    path: storage.Location,
    live: LogSessions | None,
    spans: dict[int, SessionRederivation],
    read: Handoff,
) -> Iterator[_LogSlice]:
    """A log's slices for this process, each carrying the log's session pass ``live``."""
    for piece in _log_slices(path):
        rows = _rows(spans, piece.first, read) if spans else ()
        yield (
            dataclasses.replace(piece, session_rederivations=rows, live=live)
            if live or rows
            else piece
        )


def _slices_with_results(
    path: storage.Location,
    made: Iterator[tuple[int, SessionRederivation]],
    spans: dict[int, SessionRederivation],
    read: Handoff,
) -> Iterator[_LogSlice]:
    """A log's slices, each with its lines' results, taken from ``made`` as it goes.

    ``made`` yields in line order: each slice takes the results up to its last line, so
    no more than one slice's results are held, however long the log.
    """
    ahead = next(made, None)
    for piece in _log_slices(path):
        last = piece.first + _CHUNK
        taken: dict[int, SessionRederivation] = {}
        room = _SHIP
        while ahead is not None and ahead[0] < last:
            number, bound = ahead
            room -= bound.weight  # the session pass's readings travel within the task's room
            taken[number] = bound if room >= 0 else bound.lean()
            ahead = next(made, None)
        if spans:
            taken.update(_rows(spans, piece.first, read))  # their sessions span the run's inputs
        yield (
            dataclasses.replace(piece, session_rederivations=tuple(taken.items()))
            if taken
            else piece
        )


def _rows(
    spans: dict[int, SessionRederivation], first: int, read: Handoff
) -> tuple[tuple[int, SessionRederivation], ...]:
    """The spanning sessions' results of a slice's lines, taken out of ``spans``.

    The readings they carry leave the hand-over budget they were granted from with them.
    """
    last = first + _CHUNK
    rows = tuple((n, spans.pop(n)) for n in [n for n in spans if first <= n < last])
    read.refund(sum(bound.weight for _, bound in rows))
    return rows


def _log_slices(path: storage.Location) -> Iterator[_LogSlice]:
    """Slices of ``_CHUNK`` lines; only line boundaries are kept, never the log's bytes.

    The log is read a block at a time and line ends are found with ``bytes.find`` (C speed):
    the parent only cuts, the workers read and verify.
    """
    name = path.as_posix()
    start = offset = count = 0  # slice start; bytes before the current block; lines so far
    first = 1
    try:
        with path.open("rb") as log:
            while block := log.read(_BLOCK):
                at = 0
                while (end := block.find(b"\n", at)) >= 0:
                    at = end + 1
                    count += 1
                    if count == _CHUNK:
                        yield _LogSlice(name, start, offset + at, first)
                        start, first, count = offset + at, first + count, 0
                offset += len(block)  # a line cut by the block's end goes on in the next
    except OSError as exc:
        raise SourceUnreadable.of(path, exc) from None
    if start < offset:  # the last lines: fewer than a chunk, or an unterminated last line
        yield _LogSlice(name, start, offset, first)


def _unreadable(path: storage.Location, exc: OSError) -> SourceError:
    return SourceUnreadable.of(path, exc)


def _blocks(path: storage.Location) -> Iterator[bytes]:
    try:
        with path.open("rb") as log:
            while block := log.read(_BLOCK):
                yield block
    except OSError as exc:
        raise _unreadable(path, exc) from None


def _lines(path: storage.Location) -> Iterator[bytes]:
    try:
        with path.open("rb") as log:
            for line in log:
                yield line[:-1] if line.endswith(b"\n") else line
    except OSError as exc:
        raise _unreadable(path, exc) from None


def _placed_lines(path: storage.Location) -> Iterator[tuple[int, bytes]]:
    """A log's lines, each with the offset of its first byte in the log."""
    offset = 0
    try:
        with path.open("rb") as log:
            for line in log:
                yield offset, line[:-1] if line.endswith(b"\n") else line
                offset += len(line)
    except OSError as exc:
        raise _unreadable(path, exc) from None


def _read_range(name: str, start: int, end: int) -> bytes:
    try:
        return storage.read_range(name, start, end)
    except OSError as exc:
        raise SourceUnreadable.of(name, exc) from None


def _session_pass(
    path: storage.Location,
    options: VerifyOptions,
    skip: frozenset[str] = frozenset(),
    index: SessionIndex | None = None,
) -> Iterator[tuple[int, SessionRederivation]]:
    """A log's session re-derivations in log order; sessions in ``skip`` span inputs.

    ``index`` is the run's, when it has more inputs than this log; a run of this one log
    indexes its sessions and operations on the log's own first pass. The results come by
    line as the log is read, for tasks that read the log again (workers, a cluster).
    """
    if not options.rederive or not may_need_session_pass(_blocks(path)):
        return iter(())
    lines = functools.partial(_lines, path)
    if index is None:
        return session_rederivations_of_log(
            lines, options.raw_lines, index=SessionIndex(), hand_on=True
        )
    contested = index.contradiction if index.contested else None
    return session_rederivations_of_log(
        lines, options.raw_lines, skip, contested, copies=index.repeated, hand_on=True
    )


def _live(
    path: storage.Location,
    options: VerifyOptions,
    skip: frozenset[str] = frozenset(),
    index: SessionIndex | None = None,
) -> LogSessions | None:
    """A log's session pass for this process, its sessions found (:func:`_session_pass`'s rules).

    The pass is fed as each line is verified, from the line's one reading; None when
    nothing in the log is re-derived in a session.
    """
    if not options.rederive or not may_need_session_pass(_blocks(path)):
        return None
    if index is None:
        log = LogSessions(_lines(path), options.raw_lines, index=SessionIndex())
    else:
        contested = index.contradiction if index.contested else None
        log = LogSessions(_lines(path), options.raw_lines, skip, contested, copies=index.repeated)
    return None if log.idle else log


def _spanning(
    listed: list[tuple[storage.Location, bool]],
    facts: list[FileFact],
    read: Handoff,
    options: VerifyOptions,
) -> tuple[
    SessionIndex | None, dict[str, SessionRederivation], dict[str, dict[int, SessionRederivation]]
]:
    """The run's session index, and the re-derivations of the sessions spanning inputs.

    Every separate file is one input here (they are ordered together by claimed position
    already), each log another. The index holds every session and operation the separate
    files name, and the logs' when there is more than one input with a log (each log that
    may name a session is then glanced once more, ``receipts/spanning.py``); a run of one
    log indexes it on the log's own pass instead (None here).
    """
    logs = [(i, p) for i, (p, _) in enumerate(listed) if p.suffix in LOG_SUFFIXES]
    if len(logs) == 1 and not facts:
        return None, {}, {}
    index = SessionIndex()
    for fact in facts:
        index.see(fact.session, FILES, fact.operation)
    logs = [(i, p) for i, p in logs if may_need_session_pass(_blocks(p))]
    for source, path in logs:
        for item in map(glance, _lines(path)):
            if item is not None:
                index.see(item.session, source, item.operation)
    spanning = index.spanning()
    if not spanning:
        return index, {}, {}
    order = {p.as_posix(): i for i, (p, _) in enumerate(listed)}
    placed = [(order[f.name], f) for f in facts]
    lines = ((i, p.as_posix(), _placed_lines(p)) for i, p in logs)
    contested = index.contradiction if index.contested else None
    # loaded when a session spans inputs: most runs have none
    from sealverify._internal.receipts.spanning import session_rederivations_spanning

    span_files, span_logs = session_rederivations_spanning(
        spanning,
        placed,
        lines,
        read,
        _read_range,
        options.raw_lines,
        contested,
        read.view,
        read.grant,
    )
    return index, span_files, span_logs


def _skipped(name: str) -> Check:
    return info("input.not-a-receipt", "skipped: JSON without any receipt member", name)


def _finish(result: Subject | Check, raw: bytes, settings: Settings) -> Result:
    """What the parent receives of one result; it counts the pins used (receipts/pin_use.py)."""
    slim, fragment, facts = _slim(result, raw, settings)
    return pin_use.carry(result, slim), fragment, facts


def _slim(
    result: Subject | Check, raw: bytes, settings: Settings
) -> tuple[Subject | Check, bytes | str | tuple[str, ...] | None, history.ReceiptFacts | None]:
    if not isinstance(result, Subject):
        return result, None, None
    # Receipts whose own checks held are checked against history; only established ones
    # teach it: a forged or unpinned receipt must not mark a real nonce as spent.
    facts = None
    if settings.want_facts and result.outcome != Outcome.FAIL:
        from sealverify._internal.history import facts as history

        facts = history_facts(raw, result.name, history.established(result))
    made = STREAMS.get(settings.fmt)  # "": a library run, no report written
    if made is None:
        return result, None, facts
    # The subject's fragment, rendered here (a worker), spooled by the parent: flat memory.
    slim, fragment = made.fragment(result, _RECEIPTS)
    return slim, fragment, facts


_RECEIPTS = Context("verify", "receipts")


def _read(path: storage.Location, limit: int | None = None) -> bytes:
    """A file's bytes, held to ``--max-input-bytes`` (a local file; a stored object as is)."""
    return read_file(path, limit=limit) if isinstance(path, Path) else path.read_bytes()


def _verify_file(
    path: storage.Location | str,
    walked: bool,
    settings: Settings,
    bound: SessionRederivation | None = None,
    read: bytes | None = None,
    reading: ReceiptDocument | None = None,
    view: ReceiptView | None = None,
) -> Result:
    """One receipt file verified; ``path`` may be a local file's POSIX name (a task's name).

    A file whose bytes the grouping pass handed over (``read``, with its strict ``reading``
    and its ``view`` when they were kept) and that has no partition attestation beside it
    needs no path object; anything else is read through one.
    """
    if isinstance(path, str):
        if read is not None and _absent(path + _SIDE_SUFFIX):
            name = report_name(path)
            return _verified(read, name, walked, settings, bound, None, None, reading, view)
        path = Path(path)
    try:
        data = _read(path, settings.max_input) if read is None else read
    except OSError as exc:
        return SourceUnreadable.of(path, exc), None, None
    except InputRefused as exc:  # larger than --max-input-bytes: could not run
        return exc, None, None
    attestation, problem = _side_attestation(path)
    name = report_name(path.as_posix())  # where the name enters the report: any bytes shown
    return _verified(data, name, walked, settings, bound, attestation, problem, reading, view)


def _verified(
    data: bytes,
    name: str,
    walked: bool,
    settings: Settings,
    bound: SessionRederivation | None,
    attestation: JsonValue | None,
    problem: SourceUnreadable | None,
    reading: ReceiptDocument | None = None,
    view: ReceiptView | None = None,
) -> Result:
    # A session's result holds only for the bytes it was made of: these, read again, may not be.
    rederivation = None
    if bound is not None and reading is not None:  # read already: the result alone
        rederivation = bound.lean().for_bytes(data)[0]
    elif bound is not None:  # viewed with the frames the pass decoded
        rederivation, reading, view = bound.for_bytes(data)
    if walked:
        if problem is not None:
            return (problem if is_receipt_like(data) else _skipped(name)), None, None
        found = verify_found(data, name, settings.options, attestation, rederivation, reading, view)
        return _finish(_skipped(name) if found is None else found, data, settings)
    if problem is not None:
        return problem, None, None
    subject = verify_receipt(data, name, settings.options, attestation, rederivation, reading, view)
    return _finish(subject, data, settings)


def _run_task(task: _Files | _LogSlice, settings: Settings) -> list[Result]:
    """Verify one task; pure over the files, so a worker gives the same results as the parent."""
    if isinstance(task, _Files):
        by_name = dict(task.session_rederivations)
        read = dict(task.read)
        readings = dict(task.readings)
        views = dict(task.views)
        return [
            _verify_file(
                name if _POSIX and not storage.is_url(name) else storage.locate(name),
                walked,
                settings,
                by_name.get(name),
                read.get(name),
                readings.get(name),
                views.get(name),
            )
            for name, walked in task.files
        ]
    if task.end - task.start > settings.max_input:  # lines read whole: held to the cap
        refused = str(too_large(task.name, settings.max_input))
        return [(InputRefused(f"{refused} (lines {task.first}..)"), None, None)]
    try:
        data = storage.read_range(task.name, task.start, task.end)
    except OSError as exc:
        return [(SourceUnreadable.of(task.name, exc), None, None)]
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # the slice ends at a line terminator (or at the end of the file)
    made = dict(task.session_rederivations)
    name = report_name(task.name)  # the log's name as its lines' subjects show it
    return [
        _finish(_verify_line(line, number, name, settings.options, made, task.live), body, settings)
        for number, line in enumerate(lines, start=task.first)
        for body in (log_line_body(line),)
    ]


def _verify_line(
    line: bytes,
    number: int,
    name: str,
    options: VerifyOptions,
    made: dict[int, SessionRederivation],
    live: LogSessions | None,
) -> Subject | Check:
    """One line: with its handed result when it has one, else fed to the log's ``live`` pass."""
    bound = made.get(number)
    if bound is not None:  # the session pass's result, and its reading when it travelled
        rederivation, read, view = bound.for_bytes(line, log_line_body(line))
        return verify_log_line(line, number, name, options, rederivation, read, view=view)
    if live is None:
        return verify_log_line(line, number, name, options)
    feed = live.line(number, len(log_line_body(line)))
    return verify_log_line(line, number, name, options, session_feed=feed)


_WORKER: Settings | None = None
# A task names local files as POSIX paths: where the system's separator is "/", that name
# is the path itself (no path object needed to open it or to name it in a message).
_POSIX = os.sep == "/"


def _init_worker(settings: Settings) -> None:
    global _WORKER
    _WORKER = settings
    # Ctrl-C reaches the whole process group: only the parent handles it (one clean message,
    # exit 130) and ends the pool; a worker that took it too would print its own traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_task_in_worker(task: _Files | _LogSlice) -> list[Result]:
    assert _WORKER is not None
    return _run_task(task, _WORKER)


def results(tasks: Iterator[_Files | _LogSlice], settings: Settings, jobs: int) -> Iterator[Result]:
    """Results in input order; with ``jobs > 1``, ``jobs`` processes verify.

    They are ``jobs - 1`` workers and this process: it keeps each worker fed with a few tasks
    and verifies the next task itself rather than wait, so on N cores N processes work and
    none only coordinates. Results are yielded in task order as soon as every earlier task is
    done; at most ``4 * jobs`` tasks are held, so memory does not grow with the input.
    """
    if jobs == 1:
        for task in tasks:
            yield from _run_task(task, settings)
        return
    workers = jobs - 1
    from sealverify._internal.run.worker_pool import (
        worker_pool,  # only a run with workers pays for it
    )

    with worker_pool(workers, _init_worker, (settings,)) as pool:
        pending: deque[AsyncResult[list[Result]] | list[Result]] = deque()
        queued = 0  # tasks handed to the workers and not yet taken back

        def take_oldest() -> list[Result]:
            nonlocal queued
            done = pending.popleft()
            if isinstance(done, list):  # verified here
                return done
            queued -= 1
            return done.get()

        for task in tasks:
            if queued < 2 * workers:
                pending.append(pool.apply_async(_run_task_in_worker, (task,)))
                queued += 1
            else:
                pending.append(_run_task(task, settings))
            while pending and (isinstance(pending[0], list) or pending[0].ready()):
                yield from take_oldest()
            if len(pending) >= 4 * jobs:  # bound what is held: wait for the oldest task
                yield from take_oldest()
        while pending:
            yield from take_oldest()
