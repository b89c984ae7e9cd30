"""The follower: each look at the inputs verifies what landed and commits a checkpoint with it.

:meth:`Follower.step` reads what was appended to each followed log and chain and what is new
or changed in each followed directory (``tail``, ``folders``), verifies each receipt as a
batch run would (``judge``), runs the history checks over the receipts whose own outcome is
not FAIL (``history/state.py``, as ``verify --state``), and returns the batch's events.
:meth:`Follower.commit` then writes the history, each judged subject, the session passes'
new receipts and the checkpoint in one transaction (``store``). A follower killed between
the two re-reads the batch after its restart, from the last committed checkpoint: no
receipt is judged into the store twice, and none is skipped. Nothing here sleeps, forks or
handles signals: ``loop`` does.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sealverify._internal.follow.chain import ChainFollow
from sealverify._internal.follow.events import Event, finding_event, subject_event
from sealverify._internal.follow.folders import Folder, Found
from sealverify._internal.follow.judge import SESSIONS, Judge, Reading
from sealverify._internal.follow.remote import RemoteFolder
from sealverify._internal.follow.store import FollowStore
from sealverify._internal.follow.tail import HEAD_BYTES, Fingerprint, Line, Position, look
from sealverify._internal.history.facts import ReceiptFacts, receipt_facts
from sealverify._internal.history.facts import established as history_established
from sealverify._internal.history.state import HistoryError
from sealverify._internal.kernel.session_state import StateError
from sealverify._internal.receipts.verify import VerifyOptions, log_line_body
from sealverify._internal.reports.filenames import report_name
from sealverify._internal.results.model import Check, Status, Subject, fail
from sealverify._internal.results.outcomes import Outcome
from sealverify._internal.wire.spelling import HEX64
from sealverify._internal.wire.strictjson import JsonError, parse_bytes

_PASS = Status.PASS

__all__ = ["CHECKPOINT_VERSION", "FollowConfig", "Follower", "follower_name"]

CHECKPOINT_VERSION = 1
# Directory files held while a log catches up, per directory: at most so many, and so many
# bytes (beyond either, they are judged).
HELD_FILES = 4096
HELD_BYTES = 64 << 20
# Log lines read ahead of their turn, so the store is asked at once what judging them needs
# (``Judge.prefetch``): a few statements so many lines, and so many readings held at most.
READ_AHEAD = 128


@dataclass(frozen=True, slots=True)
class FollowConfig:
    """What to follow and how: logs, directories, chains, the verify options, the store."""

    logs: tuple[str, ...]
    folders: tuple[str, ...]
    chains: tuple[str, ...]
    options: VerifyOptions
    state: str
    name: str = ""  # the follower's name in the store; made from the inputs when empty
    batch_bytes: int = 1 << 20  # bytes of new lines read per input per step
    batch_files: int = 128  # new or changed directory files read per step
    max_input: int = 256 << 20  # the longest line, the largest file (--max-input-bytes)
    tool_version: str = ""
    remote: tuple[str, ...] = ()  # object-storage prefixes, polled (follow/remote.py)
    storage_options: Mapping[str, Any] = field(default_factory=dict)  # fsspec's, for remote


def follower_name(config: FollowConfig) -> str:
    """The store's name for a set of inputs: ``config.name``, or a digest of the inputs."""
    if config.name:
        return config.name
    named = "\n".join([*config.logs, "", *config.folders, "", *config.chains, *config.remote])
    return "inputs:" + hashlib.sha256(named.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _position_value(position: Position) -> dict[str, Any]:
    return asdict(position)


def _is_digest(value: object) -> bool:
    return isinstance(value, str) and HEX64.fullmatch(value) is not None


def _position_of(value: Any, path: str) -> Position:
    """A checkpointed position; ValueError when it is not the shape written."""
    if not isinstance(value, dict) or value.get("path") != path:
        raise ValueError(f"no position for {path}")
    fp = value.get("fingerprint")
    fingerprint = None
    if fp is not None:
        if not isinstance(fp, dict) or set(fp) != {"dev", "ino", "head_len", "head_sha256"}:
            raise ValueError(
                f"the fingerprint of {path} is not {{dev, ino, head_len, head_sha256}}"
            )
        fingerprint = Fingerprint(**fp)
        counts_ok = all(
            type(n := getattr(fingerprint, k)) is int and n >= 0 for k in ("dev", "ino", "head_len")
        )
        if not counts_ok or fingerprint.head_len > HEAD_BYTES or not _is_digest(fp["head_sha256"]):
            raise ValueError(f"the fingerprint of {path} is not a device, inode, length and digest")
    numbers = [value.get(k) for k in ("offset", "line", "size", "generation")]
    counts = [n for n in numbers if isinstance(n, int) and not isinstance(n, bool) and n >= 0]
    if len(counts) != len(numbers):
        raise ValueError(f"the offset, line, size or generation of {path} is not a count")
    last = value.get("last_sha256")
    if not isinstance(last, str) or not (last == "" or _is_digest(last)):
        raise ValueError(f"the last line's digest of {path} is not a sha256")
    mtime = value.get("mtime")
    if not isinstance(mtime, int | float):
        raise ValueError(f"the mtime of {path} is not a number")
    return Position(
        path, fingerprint, counts[0], counts[1], float(mtime), counts[2], counts[3], last
    )


@dataclass(slots=True)
class _State:
    logs: dict[str, Position] = field(default_factory=dict)
    chains: dict[str, Position] = field(default_factory=dict)
    chain: ChainFollow = field(default_factory=ChainFollow)


class Follower:
    """Follows the inputs of ``config``; one :meth:`step` and one :meth:`commit` per batch."""

    def __init__(self, config: FollowConfig, clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.clock = clock
        self.name = follower_name(config)
        self.store = FollowStore(config.state, self.name, config.tool_version)
        try:
            self._state = self._load(self.store.checkpoint())
            split = self.store.carry_over(SESSIONS)
        except HistoryError:
            self.store.close()
            raise
        except ValueError as exc:
            self.store.close()
            raise HistoryError(
                f"{self.store.where}: the follow checkpoint of {self.name} is not usable: {exc}"
            ) from None
        # Notes for the operator (stderr): sessions an earlier sealverify re-derived apart in
        # two inputs, whose states were dropped rather than merged (``carry_over``).
        self.notes = [_split_note(split)] if split else []
        self.folders: list[Folder | RemoteFolder] = [
            Folder(root, self.store.digests(root)) for root in config.folders
        ]
        for root in config.remote:
            options = dict(config.storage_options)
            self.folders.append(RemoteFolder(root, self.store.digests(root), options))
        self.judge = Judge(
            config.options,
            self.store.fed_receipts,
            self.store.sequences(),
            self.store.operations,
            self.store.session_state,
            self.store.prefetch,
        )
        self.judge.names_inputs = len(config.logs) + len(config.folders) + len(config.remote) > 1
        self._changes = 0
        self.last_commit: float | None = None
        # Directory files looked at but not judged yet, by folder: held while a log is
        # read on from further back than one step reads (:meth:`_landed`).
        self._held: dict[int, list[Found]] = {}
        self._names: dict[str, str] = {}

    def _load(self, body: dict[str, Any] | None) -> _State:
        state = _State()
        for path in self.config.logs:
            state.logs[path] = Position(path)
        for path in self.config.chains:
            state.chains[path] = Position(path)
        if body is None:
            return state
        if body.get("version") != CHECKPOINT_VERSION:
            raise ValueError(f"version {body.get('version')!r}, not {CHECKPOINT_VERSION}")
        for kind, into in (("logs", state.logs), ("chains", state.chains)):
            stored = body.get(kind)
            if not isinstance(stored, dict):
                raise ValueError(f"{kind} is not an object")
            for path in into:
                if path in stored:
                    into[path] = _position_of(stored[path], path)
        state.chain = ChainFollow.from_value(body.get("chain"))
        return state

    def checkpoint_body(self) -> dict[str, Any]:
        """The checkpoint as committed: positions, the chain's state, the format version."""
        return {
            "version": CHECKPOINT_VERSION,
            "logs": {p: _position_value(x) for p, x in self._state.logs.items()},
            "chains": {p: _position_value(x) for p, x in self._state.chains.items()},
            "chain": self._state.chain.to_value(),
        }

    @property
    def positions(self) -> dict[str, Position]:
        """Every followed file's position (lag metrics read them)."""
        return {**self._state.logs, **self._state.chains}

    # -- one batch ---------------------------------------------------------------------------

    def step(self) -> list[Event]:
        """Read, verify and check what landed since the last step; stage it for the commit.

        A stored session state that does not load stops the follower (``HistoryError``):
        the store was changed by something other than a follower, and no receipt of that
        session can be judged against it.
        """
        try:
            return self._step()
        except StateError as exc:
            raise HistoryError(
                f"{self.store.where}: a follow session state is refused, as no follower"
                f" wrote it: {exc}"
            ) from None

    def _step(self) -> list[Event]:
        """Look at every input, then judge what landed in the order :func:`_in_order` gives."""
        now = self.clock()
        events: list[Event] = []
        facts: list[tuple[ReceiptFacts, dict[str, Any]]] = []
        streams: list[list[tuple[int, Line | Found]]] = []
        paths = list(self._state.logs)
        behind = False
        for index, path in enumerate(paths):
            position = self._state.logs[path]
            found = look(position, self.config.batch_bytes, self.config.max_input)
            self._state.logs[path] = found.position
            self._changes += found.position != position
            behind = behind or found.more
            events.extend(finding_event(c, now, {"path": path}) for c in found.findings)
            streams.append([(index, line) for line in found.lines])
        for index, folder in enumerate(self.folders, start=len(paths)):
            landed = self._landed(index, folder, behind)
            streams.append([(index, item) for item in landed])
        ordered = _in_order(streams, self.judge.claimed)
        while chunk := list(itertools.islice(ordered, READ_AHEAD)):
            read = [
                (item, self.judge.read_line(item.data))
                for _, item in chunk
                if isinstance(item, Line)
            ]
            self.judge.prefetch([(line.data, reading) for line, reading in read])
            readings = iter(reading for _, reading in read)
            for index, item in chunk:
                if isinstance(item, Line):
                    line_events = self._log_line(paths[index], item, now, facts, next(readings))
                    events.extend(line_events)
                else:
                    events.extend(self._file(self.folders[index - len(paths)], item, now, facts))
        events.extend(self._chains(now))
        events.extend(self._history(facts, now))
        return events

    def _landed(self, index: int, folder: Folder | RemoteFolder, behind: bool) -> list[Found]:
        """A directory's files to judge at this look, in the order a batch run places them.

        Files that landed together are judged as a batch run orders a session's files: by
        the positions they claim (stable: otherwise in the order written). While a log is
        further behind than one look reads (``behind``: catching up after a restart), the
        files are held for the next look (up to :data:`HELD_FILES` and :data:`HELD_BYTES`):
        a file may be the next call of a session whose earlier call sits in the log's unread
        part.
        """
        latest = {item.name: item for item in self._held.pop(index, [])}
        for item in folder.look(self.config.batch_files, self.config.max_input):
            latest.pop(item.name, None)  # a newer form of a held file: only it is judged
            latest[item.name] = item
        landed = list(latest.values())
        if behind and len(landed) < HELD_FILES and sum(len(f.data) for f in landed) < HELD_BYTES:
            self._held[index] = landed
            return []
        landed.sort(key=lambda item: self.judge.placed(item.data))
        return landed

    def _log_line(
        self,
        path: str,
        line: Line,
        now: float,
        facts: list[tuple[ReceiptFacts, dict[str, Any]]],
        reading: Reading | None = None,
    ) -> list[Event]:
        where = {
            "path": path,
            "generation": line.generation,
            "offset": line.offset,
            "line": line.number,
        }
        name = self._names.get(line.source)
        if name is None:  # one name a followed log (its lines are named NAME:LINE)
            name = self._names[line.source] = report_name(Path(line.source).as_posix())
        body = log_line_body(line.data)
        digest = hashlib.sha256(body).hexdigest()  # the line's too when no CR ends it
        same = digest if body is line.data else None
        result = self.judge.log_line(
            line.data, line.number, name, "log:" + path, (path, line), same, reading
        )
        rewritten = self._rewritten(now)
        if isinstance(result, Check):
            return [*rewritten, finding_event(result, now, where)]
        again = self._judged(result, f"{path}#{line.generation}", digest, body, where, facts)
        return [
            *rewritten,
            subject_event(result, now, where),
            *(finding_event(c, now, w) for c, w in again),
        ]

    def _rewritten(self, now: float) -> list[Event]:
        """The judge's findings of stored log lines rewritten in place, as events (then none)."""
        found, self.judge.rewritten = self.judge.rewritten, []
        return [finding_event(c, now, {"path": c.location}) for c in found]

    def _file(
        self,
        folder: Folder | RemoteFolder,
        item: Found,
        now: float,
        facts: list[tuple[ReceiptFacts, dict[str, Any]]],
    ) -> list[Event]:
        where = {"path": folder.root, "file": item.name, "sha256": item.digest}
        name = report_name(item.name)
        attestation, problem = folder.side_attestation(item)
        folder.judged(item)
        self._changes += 1
        if problem:
            check = fail("follow.side-file", problem, name)
            self.store.stage_subject(folder.root, item.name, "unreadable", item.digest)
            return [finding_event(check, now, where)]
        subject = self.judge.file(item.data, name, attestation)
        if subject is None:
            self.store.stage_subject(folder.root, item.name, "skipped", item.digest)
            return self._rewritten(now)
        again = self._judged(subject, folder.root, item.digest, item.data, where, facts, item.name)
        return [
            *self._rewritten(now),
            subject_event(subject, now, where),
            *(finding_event(c, now, w) for c, w in again),
        ]

    def _judged(
        self,
        subject: Subject,
        source: str,
        digest: str,
        data: bytes,
        where: dict[str, Any],
        facts: list[tuple[ReceiptFacts, dict[str, Any]]],
        key: str | None = None,
    ) -> list[tuple[Check, dict[str, Any]]]:
        """Stage a judged receipt; the earlier receipts it refutes, judged ``fail`` again.

        One operation in two sessions fails both halves, as in a batch run: the earlier
        half's stored outcome becomes FAIL and a ``replay.decision`` finding names it.
        """
        self.store.stage_subject(source, key or subject.name, subject.outcome, digest)
        again: list[tuple[Check, dict[str, Any]]] = []
        for src, name, why in self.judge.judged_operation(source, key or subject.name):
            self.store.stage_outcome(src, name, Outcome.FAIL)
            check = fail("replay.decision", why, report_name(name))
            again.append((check, {"path": src, "subject": name}))
        if subject.outcome != Outcome.FAIL:  # a forged receipt must not teach the history
            last = self.judge.last
            established = history_established(subject)  # as a batch run: only these teach
            found = (
                receipt_facts(last[1], subject.name, established=established)
                if last is not None and log_line_body(last[0]) == data
                else _facts(data, subject.name, established)
            )
            if found is not None:
                facts.append((found, where))
        return again

    def _chains(self, now: float) -> list[Event]:
        events: list[Event] = []
        for path, position in list(self._state.chains.items()):
            found = self._look_chain(path, position)
            events.extend(finding_event(c, now, {"path": path}) for c in found[0])
            for check in self._state.chain.judge(found[1]):
                events.append(finding_event(check, now, {"path": path}))
        return events

    def _look_chain(self, path: str, position: Position) -> tuple[list[Check], list[Line]]:
        found = look(position, self.config.batch_bytes, self.config.max_input)
        self._state.chains[path] = found.position
        self._changes += found.position != position
        return found.findings, found.lines

    def _history(self, facts: list[tuple[ReceiptFacts, dict[str, Any]]], now: float) -> list[Event]:
        if not facts:
            return []
        checks = self.store.history.check_and_stage([f for f, _ in facts])
        where = {f.location: w for f, w in facts}
        return [
            finding_event(c, now, where.get(c.location, {})) for c in checks if c.status != _PASS
        ]

    @property
    def changes(self) -> int:
        """How many changes the steps since the last commit staged (0: nothing to commit)."""
        return self._changes

    def commit(self) -> bool:
        """Commit what the last steps staged with the checkpoint; False when nothing changed."""
        for item in self.judge.take():
            self.store.stage_receipt(*item)
        for row in self.judge.take_operations():
            self.store.stage_operation(*row)
        states, calls, forgotten = self.judge.take_states()
        for session in forgotten:
            self.store.stage_forget(session)
        for entry in calls:
            self.store.stage_call(*entry)
        for state in states:
            self.store.stage_session(*state)
        if not self._changes:
            return False
        self.store.stage_checkpoint(self.checkpoint_body())
        self.store.commit()
        self._changes = 0
        self.last_commit = self.clock()
        return True

    def reopen(self) -> None:
        """Look at every input afresh (SIGHUP): directory files are read again if changed."""
        for folder in self.folders:
            folder.forget_looks()

    def close(self) -> None:
        self.store.close()


def _split_note(sessions: list[str]) -> str:
    """One line saying which sessions of an earlier follower's store were not carried over.

    Operator text as released: it keeps the word "threaded" (output others may match).
    """
    shown = ", ".join(repr(s) for s in sessions[:5])
    more = f" and {len(sessions) - 5} more" if len(sessions) > 5 else ""
    return (
        f"sealverify verify --follow: {len(sessions)} session(s) of the store were threaded"
        f" apart in two inputs by an earlier sealverify; their states were dropped, not"
        f" merged, so their later calls are not evaluated: {shown}{more}"
    )


def _in_order(
    streams: list[list[tuple[int, Line | Found]]],
    claimed: Callable[[bytes], tuple[str, int, bool] | None],
) -> Iterator[tuple[int, Line | Found]]:
    """What landed in several inputs at one look, each input's receipts in their own order.

    A batch run re-derives a session whose receipts sit in several inputs in the order of the
    positions they claim (``receipts/spanning.py``); a follower that finds a session's call
    in a log and its next call in a directory at one look (catching up after a restart)
    must not judge the later one first. So the inputs are taken in their order, each input's
    receipts in theirs, but a receipt waits while another input still holds a receipt of
    its session claiming an earlier place (``claimed``: the session, the position, whether
    executed); when every input's next receipt waits (claims that cross), the first input's
    goes. One input's receipts are judged as they are, unread here.
    """
    busy = [stream for stream in streams if stream]
    if len(busy) < 2:
        yield from (busy[0] if busy else [])
        return
    places = [[claimed(item.data) for _, item in stream] for stream in busy]
    # Per session and input, the least place still to come from each of its receipts on
    # (suffix minima), and how many of them were judged: a look-up a receipt, not a scan.
    least: dict[str, list[list[tuple[int, bool]]]] = {}
    for number, stream_places in enumerate(places):
        for place in stream_places:
            if place is not None:
                least.setdefault(place[0], [[] for _ in busy])[number].append(place[1:])
    for lists in least.values():
        for rest in lists:
            for at in range(len(rest) - 2, -1, -1):
                rest[at] = min(rest[at], rest[at + 1])
    judged = {session: [0] * len(busy) for session in least}
    heads = [0] * len(busy)

    def free(number: int) -> bool:
        place = places[number][heads[number]]
        if place is None:
            return True
        lists, done = least[place[0]], judged[place[0]]
        return not any(
            other != number and done[other] < len(rest) and rest[done[other]] < place[1:]
            for other, rest in enumerate(lists)
        )

    while True:
        open_ = [n for n in range(len(busy)) if heads[n] < len(busy[n])]
        if not open_:
            return
        number = next((n for n in open_ if free(n)), open_[0])
        place = places[number][heads[number]]
        if place is not None:
            judged[place[0]][number] += 1
        yield busy[number][heads[number]]
        heads[number] += 1


def _facts(data: bytes, name: str, established: bool) -> ReceiptFacts | None:
    try:
        doc = parse_bytes(data)
    except JsonError:
        return None
    return receipt_facts(doc, name, established=established) if isinstance(doc, dict) else None
