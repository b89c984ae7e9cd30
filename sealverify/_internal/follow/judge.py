"""Receipts judged as they land, with the same checks as a batch ``verify``, sessions in order.

A log line is verified by :func:`~sealverify._internal.receipts.verify.verify_log_line`, a
directory file by :func:`~sealverify._internal.receipts.verify.verify_found`, as a batch run
verifies them. A receipt that names a session is fed, as it arrives, to its session's pass
(:class:`~sealverify._internal.receipts.sessions.SessionPasses`), one pass a session whatever
input each receipt sits in (logs, a log's rotated files, directories), as a batch run re-derives
a session in order across all its inputs (``receipts/spanning.py``), so a later call is judged
against the state of the calls before it wherever they sit. As in a batch run, the first receipt
of a session that claims the first call is judged alone; only a session's later calls take the
pass's result. Every receipt of a session is staged for the store (a log line as its locator,
``locators.py``, read again when needed and fed only as it was judged: a line not found so
stops its session's pass, its later calls ``not-evaluated``); a session's pass is made when
its second receipt arrives by feeding it the receipts before, in order, so a session of one call
keeps nothing in memory. From then on the pass's state is staged for the store instead
(``kernel/session_state.py``: one row a session, and one small entry a call for what grows with
its calls), and a pass not in memory (after a restart, or dropped beyond :data:`OPEN_SESSIONS`,
the least recently fed first) resumes from its state: no receipt is fed twice. A session one of
whose operations is contested has its state forgotten and is fed again from its receipts, the
refuted half now ``fail`` in its pass, as in a batch run.

An operation is one call, in one session (``receipts/session_index.py``): each receipt's
operation is staged for the store with its session and place, and a receipt whose operation
another session named before (in this process or before a restart) is ``fail``, and so is
every earlier receipt of it (:meth:`Judge.judged_operation` names them for the follower to
judge again), as a batch run over the same files fails both halves.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import NamedTuple

import orjson

from sealverify._internal.follow.locators import (
    changed_at,
    claim_of,
    is_locator,
    locator,
    reread,
)
from sealverify._internal.follow.tail import Line
from sealverify._internal.kernel import session_state
from sealverify._internal.kernel.receipt_inputs import Frames
from sealverify._internal.kernel.replay import Rederivation
from sealverify._internal.kernel.session_pass import Claim, SessionPass, session_of
from sealverify._internal.receipts.families import ReceiptDocument, read_document
from sealverify._internal.receipts.session_index import contradiction, operation_digest
from sealverify._internal.receipts.sessions import (
    Glance,
    SessionPasses,
    glance,
    glance_document,
    may_name_session,
    refuted_by,
)
from sealverify._internal.receipts.verify import (
    VerifyOptions,
    log_line_body,
    verify_found,
    verify_log_line,
)
from sealverify._internal.receipts.view import ReceiptView, read_view
from sealverify._internal.results.model import Check, Subject, fail
from sealverify._internal.wire.strictjson import DEFAULT_LIMITS, JsonError, JsonValue, parse_bytes

__all__ = [
    "FILES",
    "OPEN_SESSIONS",
    "SESSIONS",
    "UNPLACED",
    "Judge",
    "Reading",
    "Staged",
    "StagedState",
]

FILES = "files"  # the input of every followed directory's files, as a batch run has one
# The scope of every session (the store's ``thread`` column): one pass a session across every
# followed input, as a batch run re-derives a session whose receipts span its inputs in order.
SESSIONS = "sessions"
UNPLACED = 1 << 62  # the place :meth:`Judge.placed` gives a receipt that claims no position

# What the judge stages for the store: (scope, seq, session, where, bytes), the bytes a log
# line's locator (``locators.py``) and a directory file's own bytes.
Staged = tuple[str, int, str, str, bytes]
# A stored session's receipts in order, (where, bytes or locator), read when it comes back.
Stored = Callable[[str, str], list[tuple[str, bytes]]]
# Each (session, source, subject) that named an operation (by its digest's hex), stored; with
# a (scope, session), whose state the :data:`States` asked next may answer from the same read.
Operations = Callable[[str, "tuple[str, str] | None"], list[tuple[str, str, str]]]
# What the judge stages for the store of an operation: (digest, session, source, subject).
StagedOperation = tuple[str, str, str, str]
# A session's committed state and its calls' entries in order (JSON texts), or None.
States = Callable[[str, str], "tuple[str, list[str]] | None"]
# Read at once what a look's receipts will ask: operations (digests), sessions (scope, name).
Prefetch = Callable[[Sequence[str], Sequence[tuple[str, str]]], None]
# What the judge stages of session states: states (scope, session, state), calls' entries
# (scope, session, seq, entry), and the sessions whose state is forgotten in every input.
StagedState = tuple[list[tuple[str, str, bytes]], list[tuple[str, str, int, bytes]], list[str]]

# Session passes held in memory; the least recently fed beyond this is rebuilt from the store
# when its session comes back (a pass holds the model's state and its calls' digests).
OPEN_SESSIONS = 4096

_LOG_ORDER = "log order"
_FILE_ORDER = "the order of the positions its receipts claim"
# A pass's order is the one of the input whose receipt made it; a state says which.
_ORDERS = (_LOG_ORDER, _FILE_ORDER)
# Why a session's pass stops at a stored log line not found again as it was judged: it is
# never fed, so the state after it is unknown (the wording of ``SessionPass._stop``).
_LOST = (
    "its line is no longer in the followed log as it was judged (the log was rewritten under"
    " the follower, or the file holding the line is gone)"
)


class _Parked(NamedTuple):
    """A session's pass out of :class:`SessionPasses`: dropped until the commit, or loaded."""

    session_pass: SessionPass
    calls: dict[bytes, Rederivation]
    alone: str | None  # where its first call, judged alone, was read
    entries: int  # how many calls' entries the store holds of it

    def dump(self) -> bytes:
        """The row the session is checkpointed as: its pass's flat state, and these.

        The member ``thread`` holds that state: its name is kept for stores already written.
        """
        row = {
            "thread": session_state.dump(self.session_pass),
            "alone": self.alone,
            "entries": self.entries,
        }
        return orjson.dumps(row, option=orjson.OPT_SORT_KEYS)


def _load(state: str, entries: list[str], session: str, order: str) -> _Parked:
    """A session's stored row and calls' entries, read back or refused (``StateError``).

    The state's order is ``order``, or the other order a follower re-derives in: a session
    re-derived from a log that comes back in a directory (or the reverse) keeps its pass's.
    """
    try:
        row = orjson.loads(state)
        parsed = [orjson.loads(entry) for entry in entries]
    except orjson.JSONDecodeError as exc:
        raise session_state.StateError(f"not JSON: {exc}") from None
    if not isinstance(row, dict) or set(row) != {"thread", "alone", "entries"}:
        raise session_state.StateError("a row of thread, alone and entries expected")
    alone, count = row["alone"], row["entries"]
    if not (alone is None or isinstance(alone, str)) or not isinstance(count, int):
        raise session_state.StateError("alone: a location, entries: a count expected")
    if len(parsed) != count:
        raise session_state.StateError(f"{len(parsed)} calls' entries stored of {count}")
    stored = row["thread"].get("order") if isinstance(row["thread"], dict) else None
    order = stored if stored in _ORDERS else order  # any other order is refused by load
    positions = [e for e in parsed if isinstance(e, dict) and "position" in e]
    calls = [e for e in parsed if not (isinstance(e, dict) and "position" in e)]
    session_pass, results = session_state.load(row["thread"], session, order, positions, calls)
    return _Parked(session_pass, results, alone, count)


def _lost(passes: SessionPasses, session: str, where: str, claim: Claim | None) -> None:
    """A stored receipt of ``session`` not found again: its pass stops there, never fed it.

    The position it claimed executed when it was judged is still held against the receipts
    after it, as when it was fed; every later call is ``not-evaluated``, named.
    """
    session_pass = passes.by_session.get(session)
    if session_pass is None:
        session_pass = passes.by_session[session] = SessionPass(session, passes.order)
    passes.calls.setdefault(session, {})
    session_pass.count += 1  # a receipt of the session, counted as fed (its claim is held)
    if session_pass.stopped is None:
        session_pass.stopped = (
            f"an earlier receipt of the session ({where}) was not re-derived: {_LOST}"
        )
    if claim is not None and claim.executed and claim.position is not None:
        session_pass.executed.setdefault(claim.position, where)


def _rewritten(path: str, offset: int, where: str) -> Check:
    """``follow.rewritten``: a judged log line's bytes changed in place under the follower."""
    return fail(
        "follow.rewritten",
        f"the receipt judged at {where} (byte {offset} of {path}) is no longer there as it was"
        " judged, in the same file: the log was rewritten under the follower; its session's"
        " later calls are not evaluated",
        path,
    )


def _later(claim: Claim | None) -> bool:
    """A claim that needs the calls before it (why a batch run passes a lone receipt)."""
    return claim is not None and (claim.position is None or claim.position > 1)


class Reading(NamedTuple):
    """One receipt read once: the verifier's reading and view, the session pass's document."""

    read: ReceiptDocument
    view: ReceiptView | None
    strict: dict[str, JsonValue] | None  # the strict document (None: refused, or too large)
    frames: Frames | None  # the frames the view decoded, when of ``strict``


def _document(data: bytes) -> dict[str, JsonValue] | None:
    try:
        value = parse_bytes(data[:-1] if data.endswith(b"\r") else data)
    except JsonError:
        return None
    return value if isinstance(value, dict) else None


class Judge:
    """Verifies receipts one at a time, each session's pass carried across them."""

    def __init__(
        self,
        options: VerifyOptions,
        stored: Stored,
        sequences: dict[str, int],
        operations: Operations | None = None,
        states: States | None = None,
        prefetch: Prefetch | None = None,
    ) -> None:
        self.options = options
        self._prefetch = prefetch or (lambda _o, _s: None)
        self._stored = stored
        self._states = states or (lambda _k, _s: None)
        # How many calls' entries each session in memory has (the next entry's number), the
        # entries and sessions staged since the last commit, the states of passes dropped
        # since (read before the store's), and the sessions whose state was forgotten since.
        self._entries: dict[tuple[str, str], int] = {}
        self._staged_calls: list[tuple[str, str, int, bytes]] = []
        self._fed: set[tuple[str, str]] = set()
        self._parked: dict[tuple[str, str], _Parked] = {}
        self._forgotten: set[str] = set()
        self._operations = operations or (lambda _o, _s: [])
        # The operations staged since the last commit, by digest: (session, source, subject).
        self._staged_operations: dict[str, list[tuple[str, str, str]]] = {}
        # The receipt judged last: its operation (text, digest), session, and who named the
        # operation before it (read once: :meth:`judged_operation` needs them again).
        self.operation: tuple[str, str, str, list[tuple[str, str, str]]] | None = None
        self._seq = dict(sequences)  # the next sequence number of each scope's receipts
        self._scopes: dict[str, SessionPasses] = {}
        # The receipt each re-derived session's first call was judged alone as: a rewritten
        # form of it (a new release status, same name) is judged alone again, as in a batch.
        self._alone: dict[tuple[str, str], str] = {}
        # The sessions with a pass in memory, the most recently fed last.
        self._open: OrderedDict[tuple[str, str], None] = OrderedDict()
        self.open_sessions = OPEN_SESSIONS
        # Whether a log line's place names its log (``r.jsonl line 7``, as a batch run names
        # the receipts of a session spanning inputs): when more than one input is followed.
        self.names_inputs = False
        self.staged: list[Staged] = []
        # The staged receipts of each session, until the commit takes them (:meth:`take`).
        self._pending: dict[tuple[str, str], list[tuple[str, bytes]]] = {}
        # The last receipt read strictly here, so its history facts need no second parse.
        self.last: tuple[bytes, dict[str, JsonValue]] | None = None
        # A stored log line found rewritten when its session came back: ``follow.rewritten``.
        self.rewritten: list[Check] = []
        # The log line judged now (its followed name and line), stored as its locator.
        self._line: tuple[str, Line, str | None] | None = None  # and its digest, if made

    def _passes_of(self, key: str, order: str) -> SessionPasses:
        """The passes of scope ``key``, a pass made now to be in ``order`` (its input's)."""
        passes = self._scopes.get(key)
        if passes is None:
            passes = SessionPasses(self.options.raw_lines, order, self._contradiction)
            self._scopes[key] = passes
        passes.order = order
        return passes

    def _named(self, digest: str, session: str | None = None) -> list[tuple[str, str, str]]:
        """Each (session, source, subject) that named the operation: stored, then staged.

        With ``session``, whose state is asked next, the store may read both at once.
        """
        stored = self._operations(digest, None if session is None else (SESSIONS, session))
        return [*stored, *self._staged_operations.get(digest, ())]

    def _contradiction(self, session: str, operation: str | None) -> str | None:
        """Why a receipt of ``session`` naming ``operation`` is refuted: another session's."""
        if operation is None:
            return None
        named = self._named(operation_digest(operation).hex())
        return contradiction(operation, session, (s for s, _, _ in named))

    def judged_operation(self, source: str, subject: str) -> list[tuple[str, str, str]]:
        """Record where the receipt judged last sits; the earlier receipts it now refutes.

        When its operation was named in exactly one other session before, each receipt of
        that session naming it is returned (source, subject, why) to be judged ``fail``
        again: a batch run over the same files fails both halves. The session's pass is
        dropped, so its next receipt rebuilds it from the store with the half refuted.
        """
        if self.operation is None:
            return []
        operation, digest, session, named = self.operation
        self.operation = None
        self._staged_operations.setdefault(digest, []).append((session, source, subject))
        before = {s for s, _, _ in named}
        if session in before or len(before) != 1:
            return []  # copies of one call, or a contest already judged
        (other,) = before
        for key, passes in self._scopes.items():
            passes.drop(other)  # a copy must not be handed a result made before
            self._alone.pop((key, other), None)
            self._open.pop((key, other), None)
        self._forget(other)
        why = contradiction(operation, other, [session])
        assert why is not None
        return [(src, name, why) for _, src, name in named]

    def take_operations(self) -> list[StagedOperation]:
        """The operations staged since the last call, for the commit that stores them."""
        staged = [(d, *row) for d, rows in self._staged_operations.items() for row in rows]
        self._staged_operations.clear()
        return staged

    def _forget(self, session: str) -> None:
        """The session's state no longer holds, in any input: it is fed again from its receipts."""
        for place in [p for p in (*self._entries, *self._parked) if p[1] == session]:
            self._entries.pop(place, None)
            self._parked.pop(place, None)
        self._fed = {p for p in self._fed if p[1] != session}
        self._staged_calls = [c for c in self._staged_calls if c[1] != session]
        self._forgotten.add(session)

    def _feed(
        self,
        source: str,
        doc: dict[str, JsonValue],
        facts: Glance,
        where: str,
        data: bytes,
        frames: Frames | None = None,
        claim: Claim | None = None,
    ) -> Rederivation | None:
        """Feed a receipt of input ``source`` to its session's pass, one for every input.

        ``claim``: the place the receipt claims (``facts.claim``, read once by the caller).

        A batch run re-derives a session whose receipts sit in two inputs or more across them
        all (``receipts/spanning.py``): a later call is judged against the earlier ones and
        two receipts claiming one position are ``fail``, wherever each sits. A pass is in
        the order of the input whose receipt makes it (a log's, or the claimed positions').
        """
        key = SESSIONS
        passes = self._passes_of(key, _FILE_ORDER if source == FILES else _LOG_ORDER)
        seq = self._seq.get(key, 0)
        self._seq[key] = seq + 1
        session = facts.session
        if session not in passes.by_session and not self._resume(passes, key, session):
            before = self._before(key, session)
            if not before and not _later(claim):
                # The session's first call, judged alone; its pass is made (from the store)
                # only if the session comes back, so a session of one call costs one row.
                self._stage(key, seq, session, where, data, claim)
                return None
            for earlier, raw in before:
                self._replay(passes, key, earlier, raw, session)
            self._entries[key, session] = 0  # every entry of the pass written anew
            self._new_entries(passes, key, session, 0, 0)
        calls, executed = self._sizes(passes, session)
        result = passes.feed(doc, facts, where, frames)
        self._new_entries(passes, key, session, calls, executed)
        self._opened(key, session)
        self._stage(key, seq, session, where, data, claim)
        if source == FILES and self._alone.get((key, facts.session)) == where:
            return None  # another form of the call judged alone: judged alone again
        return result

    def _opened(self, key: str, session: str) -> None:
        """Mark a session's pass the most recently fed; beyond the bound, drop the oldest.

        A dropped pass is rebuilt from the store when its session's next receipt arrives,
        as after a restart: memory holds :attr:`open_sessions` passes at most, however
        many sessions the host ran.
        """
        self._open[key, session] = None
        self._open.move_to_end((key, session))
        while len(self._open) > self.open_sessions:
            (old_key, old), _ = self._open.popitem(last=False)
            passes = self._scopes[old_key]
            if (old_key, old) in self._fed:  # checkpointed by the next commit, as it is now
                self._parked[old_key, old] = _Parked(
                    passes.by_session[old],
                    passes.calls.get(old, {}),
                    self._alone.get((old_key, old)),
                    self._entries.get((old_key, old), 0),
                )
                self._fed.discard((old_key, old))
            passes.drop(old)
            self._alone.pop((old_key, old), None)
            self._entries.pop((old_key, old), None)

    # -- session states: staged, and resumed instead of fed again ----------------------------

    @staticmethod
    def _sizes(passes: SessionPasses, session: str) -> tuple[int, int]:
        session_pass = passes.by_session.get(session)
        return len(passes.calls.get(session, ())), len(session_pass.executed) if session_pass else 0

    def _new_entries(
        self, passes: SessionPasses, key: str, session: str, calls: int, executed: int
    ) -> None:
        """Stage the calls' entries the pass gained since it held ``calls`` and ``executed``.

        A pass only ever adds entries (a new call's result, a new executed position), in
        order, so the ones past the counts are the new ones.
        """
        self._fed.add((key, session))
        session_pass = passes.by_session.get(session)
        new = [
            session_state.dump_position(p, w)
            for p, w in list(session_pass.executed.items() if session_pass else ())[executed:]
        ] + [
            session_state.dump_call(c, r)
            for c, r in list(passes.calls.get(session, {}).items())[calls:]
        ]
        number = self._entries.get((key, session), 0)
        for entry in new:
            self._staged_calls.append((key, session, number, orjson.dumps(entry)))
            number += 1
        self._entries[key, session] = number

    def _held(self, key: str, session: str) -> _Parked:
        passes = self._scopes[key]
        return _Parked(
            passes.by_session[session],
            passes.calls.get(session, {}),
            self._alone.get((key, session)),
            self._entries.get((key, session), 0),
        )

    def _resume(self, passes: SessionPasses, key: str, session: str) -> bool:
        """Make a session's pass from its checkpointed state, if it has one.

        A state that does not load is refused (:class:`~sealverify._internal.kernel.session_state.
        StateError`): the store was changed by something other than a follower.
        """
        parked = self._parked.pop((key, session), None)
        if parked is None and session not in self._forgotten:
            stored = self._states(key, session)
            try:
                parked = None if stored is None else _load(*stored, session, passes.order)
            except session_state.StateError as exc:
                raise session_state.StateError(f"session {session!r} of {key}: {exc}") from None
        if parked is None:
            return False
        passes.by_session[session], passes.calls[session] = parked.session_pass, parked.calls
        if parked.alone is not None:
            self._alone[key, session] = parked.alone
        self._entries[key, session] = parked.entries
        self._fed.add((key, session))
        return True

    def _before(self, key: str, session: str) -> list[tuple[str, bytes]]:
        """A session's receipts fed before: committed, then staged in this batch."""
        return [*self._stored(key, session), *self._pending.get((key, session), ())]

    def _stage(
        self, key: str, seq: int, session: str, where: str, data: bytes, claim: Claim | None
    ) -> None:
        """Stage a fed receipt: a log line as its locator, a directory file as its bytes.

        A directory file is kept whole: seal-host rewrites it as its release status moves, so
        its bytes could not be found again as they were judged.
        """
        located = None
        if self._line is not None:
            path, line, digest = self._line
            located = locator(path, line, claim, digest)
        self.staged.append((key, seq, session, where, located or data))
        self._pending.setdefault((key, session), []).append((where, data))

    def take(self) -> list[Staged]:
        """The receipts staged since the last call, for the commit that stores them."""
        staged, self.staged = self.staged, []
        self._pending.clear()
        return staged

    def take_states(self) -> StagedState:
        """The session states, calls' entries and forgotten sessions staged since the last call.

        Every session fed since is checkpointed as it is now (one row, rewritten), so the
        store's state of a session is always the one its committed receipts left.
        """
        held = [(k, s, p) for (k, s), p in self._parked.items()]
        held += [(k, s, self._held(k, s)) for k, s in self._fed]
        states = [(k, s, p.dump()) for k, s, p in held]
        staged = (states, self._staged_calls, sorted(self._forgotten))
        self._parked, self._staged_calls = {}, []
        self._fed, self._forgotten = set(), set()
        return staged

    def _replay(
        self, passes: SessionPasses, key: str, where: str, raw: bytes, session: str
    ) -> None:
        if is_locator(raw):
            line = reread(raw)
            if line is None:
                _lost(passes, session, where, claim_of(raw))
                if (at := changed_at(raw)) is not None:
                    self.rewritten.append(_rewritten(*at, where))
                return
            raw = line
        doc = _document(raw)
        facts = glance_document(doc) if doc is not None else None
        if doc is None or facts is None:
            return  # only receipts read as strict JSON naming a session were stored
        if facts.session not in passes.by_session and not _later(facts.claim):
            self._alone[key, facts.session] = where
        passes.feed(doc, facts, where)

    def _session_receipt(
        self, data: bytes, reading: Reading, key: str, where: str, placed: bool
    ) -> Rederivation | None:
        if not self.options.rederive or not may_name_session(data):
            return None
        # Read strictly once (the verifier's reading): the session's facts, the pass and the
        # history facts (:attr:`last`) read this; bytes the strict parser refuses are glanced
        # as a batch run glances them (their operation is still held to the other sessions').
        doc = reading.strict
        facts = glance_document(doc) if doc is not None else glance(data)
        if facts is None:
            return None
        refuted = None
        if facts.operation is not None:
            digest = operation_digest(facts.operation).hex()
            passes = self._scopes.get(SESSIONS)
            held = passes is not None and facts.session in passes.by_session
            named = self._named(digest, None if held else facts.session)
            self.operation = (facts.operation, digest, facts.session, named)
            refuted = contradiction(facts.operation, facts.session, (s for s, _, _ in named))
        result = self._placed_receipt(data, reading, facts, key, where, placed)
        if refuted is not None and (result is None or result.status != "fail"):
            return refuted_by(refuted)  # judged alone or in no pass: refuted all the same
        return result

    def _placed_receipt(
        self,
        data: bytes,
        reading: Reading,
        facts: Glance,
        key: str,
        where: str,
        placed: bool,
    ) -> Rederivation | None:
        claim = facts.claim
        if placed and (claim is None or claim.position is None):
            return None  # a batch run places separate files by their claimed positions only
        doc = reading.strict
        if doc is None or session_of(doc) != facts.session:
            return None  # not strict JSON, or read differently: the receipt fails on its own
        return self._feed(key, doc, facts, where, data, reading.frames, claim)

    @staticmethod
    def placed(data: bytes) -> tuple[int, bool]:
        """Where a batch run places a receipt file among its session's files.

        By the claimed position (files claiming none last), a blocked call before the
        executed one at the same position.
        """
        claim = facts.claim if (facts := glance(data)) is not None else None
        if claim is None or claim.position is None:
            return (UNPLACED, False)
        return (claim.position, claim.executed)

    @staticmethod
    def claimed(data: bytes) -> tuple[str, int, bool] | None:
        """The session a receipt names, the position it claims and whether it executed."""
        facts = glance(data)
        claim = facts.claim if facts is not None else None
        if facts is None or claim is None or claim.position is None:
            return None
        return facts.session, claim.position, claim.executed

    def read_line(self, line: bytes) -> Reading:
        """A log line's one reading, made before its turn (:meth:`prefetch`, :meth:`log_line`)."""
        return self._read(log_line_body(line), line)

    def prefetch(self, lines: Sequence[tuple[bytes, Reading]]) -> None:
        """Have the store read at once what judging these log lines will ask of it.

        Each line's operation and session, as :meth:`_session_receipt` reads them: a few
        statements for the lines of a look rather than one a receipt. A line read otherwise
        (not strict JSON) is asked about on its own, as before.
        """
        if not self.options.rederive:
            return
        passes = self._scopes.get(SESSIONS)
        digests: list[str] = []
        sessions: list[tuple[str, str]] = []
        for data, reading in lines:
            doc = reading.strict
            facts = glance_document(doc) if doc is not None and may_name_session(data) else None
            if facts is None:
                continue
            if facts.operation is not None:
                digests.append(operation_digest(facts.operation).hex())
            if passes is None or facts.session not in passes.by_session:
                sessions.append((SESSIONS, facts.session))
        self._prefetch(digests, sessions)

    def log_line(
        self,
        line: bytes,
        number: int,
        name: str,
        key: str,
        found: tuple[str, Line] | None = None,
        digest: str | None = None,
        reading: Reading | None = None,
    ) -> Subject | Check:
        """Line ``number`` of the log ``name`` (input ``key``), as a batch run verifies it.

        ``found``: the followed name and the line as read there, so the store keeps where to
        find it again rather than its bytes (``locators.py``); without it, its bytes.
        ``digest``: the sha256 hex of the line's bytes, when the caller already made it.
        ``reading``: the line's reading when made before (:meth:`read_line`).
        """
        self.operation = None
        if reading is None:
            reading = self.read_line(line)
        self.last = (line, reading.strict) if reading.strict is not None else None
        where = f"{name} line {number}" if self.names_inputs else f"line {number}"
        self._line = None if found is None else (*found, digest)
        try:
            session_rederivation = self._session_receipt(line, reading, key, where, placed=False)
        finally:
            self._line = None
        return verify_log_line(
            line,
            number,
            name,
            self.options,
            session_rederivation,
            read=reading.read,
            view=reading.view,
        )

    def file(self, data: bytes, name: str, attestation: JsonValue | None) -> Subject | None:
        """A directory file (None: not a receipt, skipped), as a batch walk verifies it."""
        self.operation = None
        reading = self._read(data, data[:-1] if data.endswith(b"\r") else data)
        self.last = (data, reading.strict) if reading.strict is not None else None
        rederivation = self._session_receipt(data, reading, FILES, name, placed=True)
        return verify_found(
            data, name, self.options, attestation, rederivation, reading.read, reading.view
        )

    @staticmethod
    def _read(verified: bytes, strict: bytes) -> Reading:
        """The one reading of a receipt, for the verifier and the session pass.

        ``verified`` as the verifier reads it; the strict document of ``strict`` (the bytes
        less a final CR) the session pass reads, the same reading when they are the same bytes.
        """
        read = read_document(verified)
        view = read_view(read.document, read.family) if read.document is not None else None
        doc = read.document if strict is verified or strict == verified else _document(strict)
        if doc is not None and len(strict) > DEFAULT_LIMITS.max_document_bytes:
            doc = None  # the strict parser refuses it: it is never in a pass
        frames = view.frames if view is not None and doc is read.document else None
        return Reading(read, view, doc, frames)
