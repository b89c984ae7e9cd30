"""Follow checkpoints in the history store, committed in the same transaction as the history.

``verify --follow`` keeps, beside the history tables (``history/state.py``), six tables of
its own, each row keyed by the follower (a name for one set of followed inputs):

* ``follow_checkpoints``: the follower's checkpoint, one JSON text (each input's fingerprint,
  offset and line, each directory's inputs, the chain's head and carried lines);
* ``follow_subjects``: each receipt judged (where it came from, its name, outcome, the
  digest of its bytes) with how often it was judged: a log line is judged exactly once, a
  directory file once per form;
* ``follow_sessions``: each re-derived session's state (``kernel/session_state.py``), one row
  a session whose size does not grow with its calls, rewritten by each commit that fed it, so
  a restart resumes the session from it without feeding any receipt again;
* ``follow_calls``: what grows with a session's calls, one small entry a call appended once
  (an executed call's position, a call's result for its copies), read with the state;
* ``follow_threads``: the receipts each session pass was fed, in order: a session's first
  receipt, fed to its pass only when the session comes back, and the receipts a session
  is fed again from when one of its operations is contested (its state no longer holds); a
  log line as its locator (``locators.py``), a directory file as its bytes;
* ``follow_operations``: each operation a receipt named, with its session and where the
  receipt sits (its source and subject), so an operation named in a second session, in this
  process or after a restart, fails both halves as in a batch run.

Everything a batch of events teaches (history rows, these rows) is written by ONE commit of
:class:`~sealverify._internal.history.state.HistoryStore` (one transaction), so after a kill the
store holds either all of a batch or none of it. The tables are made (``CREATE TABLE IF NOT
EXISTS``) before the first batch; they are not steps of the history schema, whose version
they leave unchanged, and an older sealverify ignores them.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from sealverify._internal.history.databases import (
    FOLLOW_TABLES as TABLES,
)
from sealverify._internal.history.databases import (
    Database,
    HistoryError,
    Writes,
    is_database_url,
)
from sealverify._internal.history.state import HistoryStore

__all__ = ["TABLES", "FollowStore"]


# One batch's writes; the run number is appended to every row (the last parameter).
_WRITE_CHECKPOINT = (
    "INSERT INTO follow_checkpoints (follower, body, run) VALUES (?, ?, ?)"
    " ON CONFLICT(follower) DO UPDATE SET body = excluded.body, run = excluded.run"
)
_WRITE_SUBJECT = (
    "INSERT INTO follow_subjects (follower, source, subject, outcome, digest, judged, run)"
    " VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT(follower, source, subject) DO UPDATE SET"
    " outcome = excluded.outcome, digest = excluded.digest,"
    " judged = follow_subjects.judged + 1, run = excluded.run"
)
_WRITE_RECEIPT = (
    "INSERT INTO follow_threads (follower, thread, seq, session, location, data, run)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)

_WRITE_SESSION = (
    "INSERT INTO follow_sessions (follower, thread, session, state, run) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT(follower, thread, session) DO UPDATE SET state = excluded.state,"
    " run = excluded.run"
)
_WRITE_CALL = (
    "INSERT INTO follow_calls (follower, thread, session, seq, entry, run)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(follower, thread, session, seq) DO UPDATE SET"
    " entry = excluded.entry, run = excluded.run"
)
# A session whose state no longer holds (an operation of it contested): fed again from its
# receipts. The run number is appended to every row, so each statement reads it and drops it.
_FORGET_SESSION = "DELETE FROM follow_sessions WHERE follower = ? AND session = ? AND ? > 0"
_FORGET_CALLS = "DELETE FROM follow_calls WHERE follower = ? AND session = ? AND ? > 0"

_WRITE_OPERATION = (
    "INSERT INTO follow_operations (follower, operation, session, source, subject, run)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
)
# An earlier receipt judged again (one half of a contested operation): its outcome only.
_WRITE_OUTCOME = (
    "INSERT INTO follow_subjects (follower, source, subject, outcome, digest, judged, run)"
    " VALUES (?, ?, ?, ?, '', 0, ?) ON CONFLICT(follower, source, subject) DO UPDATE SET"
    " outcome = excluded.outcome, run = excluded.run"
)


# A session's state and whether it has receipts stored (key: follower, scope, session twice).
_READ_SESSION = (
    "SELECT (SELECT state FROM follow_sessions WHERE follower = ? AND thread = ?"
    " AND session = ?), EXISTS (SELECT 1 FROM follow_threads WHERE follower = ?"
    " AND thread = ? AND session = ?)"
)
_READ_OPERATION = (
    "SELECT session, source, subject FROM follow_operations WHERE follower = ? AND operation = ?"
)
# A step's receipts read at once (``prefetch``): the operations' rows, the sessions' states
# and the sessions with receipts stored, for so many operations or sessions a statement.
_PREFETCH_OPERATIONS = (
    "SELECT operation, session, source, subject FROM follow_operations WHERE follower = ?"
    " AND operation IN ({})"
)
_PREFETCH_STATES = (
    "SELECT session, state FROM follow_sessions WHERE follower = ? AND thread = ?"
    " AND session IN ({})"
)
_PREFETCH_STORED = (
    "SELECT DISTINCT session FROM follow_threads WHERE follower = ? AND thread = ?"
    " AND session IN ({})"
)
PREFETCH_CHUNK = 400  # keys a statement (SQLite before 3.32 takes 999 parameters at most)
# Both in one statement: the operation's rows, then one row with no session holding the
# session's state and 'y' when it has receipts stored.
_READ_OPERATION_AND_SESSION = (
    _READ_OPERATION + " UNION ALL SELECT NULL, (SELECT state FROM follow_sessions WHERE"
    " follower = ? AND thread = ? AND session = ?), CASE WHEN EXISTS (SELECT 1 FROM"
    " follow_threads WHERE follower = ? AND thread = ? AND session = ?) THEN 'y' ELSE '' END"
)


class _WithCheckpoint:
    """The history database, with the follower's rows added to every commit's writes."""

    def __init__(self, inner: Database, extra: list[tuple[str, list[tuple[Any, ...]]]]) -> None:
        self._inner = inner
        self._extra = extra
        self.where = inner.where

    @property
    def schema_version(self) -> int:
        return self._inner.schema_version

    def one(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
        return self._inner.one(sql, params)

    def begin(self) -> None:
        self._inner.begin()

    def commit(self, run: tuple[str, int], writes: Writes) -> None:
        self._inner.commit(run, [*writes, *((sql, rows) for sql, rows in self._extra if rows)])
        self._extra.clear()

    def close(self) -> None:
        self._inner.close()


class _History(HistoryStore):
    """A history store whose commit also writes what the follower staged."""

    def __init__(self, where: str, tool_version: str) -> None:
        super().__init__(where if is_database_url(where) else Path(where), tool_version)
        self.extra: list[tuple[str, list[tuple[Any, ...]]]] = []
        self._db = _WithCheckpoint(self._db, self.extra)


class FollowStore:
    """The history store of one follower: history checks, its checkpoint, one commit."""

    def __init__(self, where: str, follower: str, tool_version: str = "") -> None:
        self.follower = follower
        self._url = is_database_url(where)
        _make_tables(where, self._url, tool_version)
        self.history = _History(where, tool_version)
        # psycopg takes postgresql://; the history layer also accepts postgresql+psycopg://
        self._path = re.sub(r"^postgres(ql)?\+psycopg://", "postgresql://", where, flags=re.I)
        self._subjects: list[tuple[Any, ...]] = []
        self._receipts: list[tuple[Any, ...]] = []
        self._operations: list[tuple[Any, ...]] = []
        self._outcomes: list[tuple[Any, ...]] = []
        self._forgotten: list[tuple[Any, ...]] = []
        self._sessions: list[tuple[Any, ...]] = []
        self._calls: list[tuple[Any, ...]] = []
        self._body: bytes | None = None
        self._unseen: tuple[str, str] | None = None  # a session with no receipt stored
        # A session's state and whether it has receipts, read with an operation's names for
        # :meth:`session_state` to answer next (``operations(..., session=)``).
        self._peeked: tuple[tuple[str, str], Any, bool] | None = None
        # What :meth:`prefetch` read for a step's receipts, until the next commit: each
        # operation's rows, and each session's state and whether it has receipts stored.
        self._known_operations: dict[str, list[tuple[str, str, str]]] = {}
        self._known_sessions: dict[tuple[str, str], tuple[Any, bool]] = {}
        self._reader: Any = None

    @property
    def where(self) -> str:
        return self.history.where

    # -- reading, at start and when a session's pass is rebuilt ----------------------------

    def _rows(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Rows read on a connection of the follower's own, outside the batch's transaction."""
        try:
            if self._reader is None:
                self._reader = self._connect()
            if self._url:
                return [tuple(r) for r in self._reader.execute(sql.replace("?", "%s"), params)]
            return [tuple(r) for r in self._reader.execute(sql, params).fetchall()]
        except (sqlite3.Error, ImportError) as exc:
            raise HistoryError(f"{self.where}: cannot read the follow checkpoint: {exc}") from None
        except Exception as exc:  # psycopg's errors: the store cannot be used
            raise HistoryError(f"{self.where}: cannot read the follow checkpoint: {exc}") from None

    def _connect(self) -> Any:
        if self._url:
            import psycopg

            return psycopg.connect(self._path, autocommit=True, connect_timeout=10)
        uri = f"{Path(self._path).resolve().as_uri()}?mode=ro"
        return sqlite3.connect(uri, uri=True, timeout=120, isolation_level=None)

    def checkpoint(self) -> dict[str, Any] | None:
        """The committed checkpoint body, or None before the first commit."""
        rows = self._rows(
            "SELECT body FROM follow_checkpoints WHERE follower = ?", (self.follower,)
        )
        if not rows:
            return None
        try:
            body = orjson.loads(rows[0][0])
        except (orjson.JSONDecodeError, TypeError):
            body = None
        if not isinstance(body, dict):
            raise HistoryError(
                f"{self.where}: the follow checkpoint of {self.follower} is not JSON"
            )
        return body

    def digests(self, folder: str) -> dict[str, str]:
        """The digest of each file's last judged bytes in a followed directory."""
        rows = self._rows(
            "SELECT subject, digest FROM follow_subjects WHERE follower = ? AND source = ?",
            (self.follower, folder),
        )
        return {str(name): str(digest) for name, digest in rows}

    def sequences(self) -> dict[str, int]:
        """The next sequence number of each scope's stored receipts."""
        rows = self._rows(
            "SELECT thread, MAX(seq) FROM follow_threads WHERE follower = ? GROUP BY thread",
            (self.follower,),
        )
        return {str(t): int(n) + 1 for t, n in rows}

    def fed_receipts(self, scope: str, session: str) -> list[tuple[str, bytes]]:
        """The receipts a session's pass was fed, in order: where each was read, its bytes."""
        if self._unseen == (scope, session):
            self._unseen = None
            return []  # :meth:`session_state` found none a moment ago
        rows = self._rows(
            "SELECT location, data FROM follow_threads WHERE follower = ? AND thread = ?"
            " AND session = ? ORDER BY seq",
            (self.follower, scope, session),
        )
        return [(str(where), str(data).encode()) for where, data in rows]

    def session_state(self, scope: str, session: str) -> tuple[str, list[str]] | None:
        """A session's committed state and its calls' entries in order, or None.

        Asked before :meth:`fed_receipts` of the same session, and answered in the same
        statement whether it has any receipt stored: a session seen for the first time (most
        receipts) costs one read, not two.
        """
        peeked, self._peeked = self._peeked, None
        known = self._known_sessions.get((scope, session))
        if peeked is not None and peeked[0] == (scope, session):
            state, stored = peeked[1], peeked[2]
        elif known is not None:
            state, stored = known
        else:
            key = (self.follower, scope, session)
            rows = self._rows(_READ_SESSION, (*key, *key))
            state, stored = rows[0][0], bool(rows[0][1])
        self._unseen = None if stored else (scope, session)
        if state is None:
            return None
        entries = self._rows(
            "SELECT entry FROM follow_calls WHERE follower = ? AND thread = ? AND session = ?"
            " ORDER BY seq",
            (self.follower, scope, session),
        )
        return str(state), [str(entry) for (entry,) in entries]

    def operations(
        self, operation: str, session: tuple[str, str] | None = None
    ) -> list[tuple[str, str, str]]:
        """Each (session, source, subject) whose receipt named ``operation`` (its digest).

        With ``session`` (a scope and a session), that session's state is read in the same
        statement and kept for the :meth:`session_state` of it that follows: one read of the
        store a receipt, not two.
        """
        self._peeked = None
        named = self._known_operations.get(operation)
        known = None if session is None else self._known_sessions.get(session)
        if named is not None and (session is None or known is not None):
            if session is not None and known is not None:
                self._peeked = (session, *known)
            return list(named)
        if session is None:
            rows = self._rows(_READ_OPERATION, (self.follower, operation))
            return [(str(s), str(source), str(subject)) for s, source, subject in rows]
        key = (self.follower, *session)
        rows = self._rows(_READ_OPERATION_AND_SESSION, (self.follower, operation, *key, *key))
        named = [(str(s), str(src), str(subject)) for s, src, subject in rows if s is not None]
        peeked = next(row for row in rows if row[0] is None)
        self._peeked = (session, peeked[1], peeked[2] == "y")
        return named

    def prefetch(self, operations: Sequence[str], sessions: Sequence[tuple[str, str]]) -> None:
        """Read what a step's receipts will ask at once: a few statements a step, not one a receipt.

        ``operations`` (digests) and ``sessions`` (scope, session): their rows as
        :meth:`operations` and :meth:`session_state` would read them, kept until the next
        commit (the only writer of these rows), so each answer is the one a read then gives.
        """
        self._known_operations, self._known_sessions = {}, {}
        wanted = sorted(set(operations))
        for at in range(0, len(wanted), PREFETCH_CHUNK):
            chunk = wanted[at : at + PREFETCH_CHUNK]
            sql = _PREFETCH_OPERATIONS.format(", ".join("?" * len(chunk)))
            found: dict[str, list[tuple[str, str, str]]] = {d: [] for d in chunk}
            for digest, named, source, subject in self._rows(sql, (self.follower, *chunk)):
                found[str(digest)].append((str(named), str(source), str(subject)))
            self._known_operations.update(found)
        by_scope: dict[str, set[str]] = {}
        for scope, session in sessions:
            by_scope.setdefault(scope, set()).add(session)
        for scope, names in sorted(by_scope.items()):
            ordered = sorted(names)
            for at in range(0, len(ordered), PREFETCH_CHUNK):
                chunk = ordered[at : at + PREFETCH_CHUNK]
                marks = ", ".join("?" * len(chunk))
                states = dict(
                    self._rows(_PREFETCH_STATES.format(marks), (self.follower, scope, *chunk))
                )
                stored = {
                    s
                    for (s,) in self._rows(
                        _PREFETCH_STORED.format(marks), (self.follower, scope, *chunk)
                    )
                }
                for session in chunk:
                    self._known_sessions[scope, session] = (states.get(session), session in stored)

    def judged(self) -> dict[tuple[str, str], tuple[str, int]]:
        """Each stored subject's outcome and how often it was judged, by (source, subject).

        The source is a followed directory, or a log's path and generation (``PATH#N``: the
        Nth file under the name, so a rotated log's line 1 and the new file's are two).
        """
        rows = self._rows(
            "SELECT source, subject, outcome, judged FROM follow_subjects WHERE follower = ?",
            (self.follower,),
        )
        return {(str(src), str(s)): (str(o), int(n)) for src, s, o, n in rows}

    # -- a store of the previous layout -----------------------------------------------------

    def carry_over(self, scope: str) -> list[str]:
        """Move the session rows an earlier follower keyed by input to ``scope``, in one commit.

        A follower before one scope for every session keyed its rows by input (``log:PATH``,
        one key a followed log, and ``files`` for every directory's files). A session under one
        such key is moved as it is (its receipts renumbered after the ones ``scope``
        holds, in their order). A session under two keys or more was re-derived separately in
        each input, so no stored state is the state of all its calls: its rows are deleted
        (its later calls are then not evaluated, never merged) and it is returned, sorted.
        A store holding only ``scope`` is read, not written.
        """
        probe = " UNION ALL ".join(
            f"SELECT 1 FROM (SELECT 1 FROM {t} WHERE follower = ? AND thread <> ? LIMIT 1) AS {t}"
            for t in _SESSION_TABLES
        )
        if not self._rows(probe, (self.follower, scope) * len(_SESSION_TABLES)):
            return []
        try:
            db = self._connect_writer()
        except (sqlite3.Error, ImportError) as exc:
            raise HistoryError(
                f"{self.where}: cannot carry the follow sessions over: {exc}"
            ) from None
        try:
            return _carry_over(_Writer(db, self._url), self.follower, scope)
        except Exception as exc:  # sqlite3's or psycopg's errors: nothing was changed
            raise HistoryError(
                f"{self.where}: cannot carry the follow sessions over: {exc}"
            ) from None
        finally:
            db.close()

    def _connect_writer(self) -> Any:
        if self._url:
            import psycopg

            return psycopg.connect(self._path, connect_timeout=10)
        return sqlite3.connect(self._path, timeout=120, isolation_level=None)

    # -- staging and the commit -------------------------------------------------------------

    def stage_subject(self, source: str, subject: str, outcome: str, digest: str) -> None:
        self._subjects.append((self.follower, source, subject, outcome, digest))

    def stage_receipt(self, scope: str, seq: int, session: str, where: str, data: bytes) -> None:
        self._receipts.append((self.follower, scope, seq, session, where, data.decode()))

    def stage_session(self, scope: str, session: str, state: bytes) -> None:
        self._sessions.append((self.follower, scope, session, state.decode()))

    def stage_call(self, scope: str, session: str, seq: int, entry: bytes) -> None:
        self._calls.append((self.follower, scope, session, seq, entry.decode()))

    def stage_forget(self, session: str) -> None:
        """A session's states and calls, deleted before this commit's own rows are written."""
        self._forgotten.append((self.follower, session))

    def stage_operation(self, operation: str, session: str, source: str, subject: str) -> None:
        self._operations.append((self.follower, operation, session, source, subject))

    def stage_outcome(self, source: str, subject: str, outcome: str) -> None:
        """A subject judged again (its outcome changed, it was not read again)."""
        self._outcomes.append((self.follower, source, subject, outcome))

    def stage_checkpoint(self, body: dict[str, Any]) -> None:
        self._body = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)

    def commit(self) -> None:
        """Write the history and the follower's rows in one transaction."""
        self._unseen = self._peeked = None
        self._known_operations, self._known_sessions = {}, {}  # rows this commit may change
        extra: list[tuple[str, list[tuple[Any, ...]]]] = [
            (_WRITE_SUBJECT, _last_per_subject(self._subjects)),
            (_WRITE_RECEIPT, list(self._receipts)),
            (_FORGET_SESSION, list(self._forgotten)),
            (_FORGET_CALLS, list(self._forgotten)),
            (_WRITE_CALL, list(self._calls)),
            (_WRITE_SESSION, _last_per_session(self._sessions)),
            (_WRITE_OPERATION, list(self._operations)),
            (_WRITE_OUTCOME, list(self._outcomes)),  # after the subjects it changes
        ]
        if self._body is not None:
            extra.append((_WRITE_CHECKPOINT, [(self.follower, self._body.decode())]))
        self.history.extra[:] = extra
        self.history.commit()
        self._subjects.clear()
        self._receipts.clear()
        self._operations.clear()
        self._outcomes.clear()
        for staged in (self._forgotten, self._sessions, self._calls):
            staged.clear()
        self._body = None

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        self.history.close()


def _last_per_subject(rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """One row per subject (its latest form), so one statement never upserts a row twice."""
    latest: dict[tuple[Any, Any], tuple[Any, ...]] = {}
    for row in rows:
        latest[row[1], row[2]] = row
    return list(latest.values())


def _last_per_session(rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """One row per session (its latest state), so one statement never upserts a row twice."""
    latest: dict[tuple[Any, Any], tuple[Any, ...]] = {}
    for row in rows:
        latest[row[1], row[2]] = row
    return list(latest.values())


def _make_tables(where: str, url: bool, tool_version: str) -> None:
    """Make the follower's tables (and a new SQLite file, by an empty history commit)."""
    if url:
        HistoryStore(where, tool_version).close()  # refuses a database of a newer schema
        try:
            import psycopg
        except ImportError:
            raise HistoryError(
                "a PostgreSQL --state needs the postgres extra: pip install 'sealverify[postgres]'"
            ) from None
        try:
            dsn = re.sub(r"^postgres(ql)?\+psycopg://", "postgresql://", where, flags=re.I)
            with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as db:
                for statement in TABLES:
                    db.execute(statement.format(int="BIGINT"))
        except psycopg.Error as exc:
            raise HistoryError(f"cannot make the follow tables: {exc}") from None
        return
    path = Path(where)
    with HistoryStore(path, tool_version) as first:  # refuses a file of another schema
        if not path.exists():
            first.commit()  # the history's own schema, made as any first run makes it
    try:
        made = sqlite3.connect(str(path), timeout=120, isolation_level=None)
        try:
            for statement in TABLES:
                made.execute(statement.format(int="INTEGER"))
        finally:
            made.close()
    except sqlite3.Error as exc:
        raise HistoryError(f"{path}: not a usable sealverify state database: {exc}") from None


_SESSION_TABLES = ("follow_threads", "follow_sessions", "follow_calls")


class _Writer:
    """One write transaction on a SQLite or PostgreSQL connection, ``?`` for a parameter."""

    def __init__(self, db: Any, url: bool) -> None:
        self._db, self._url = db, url

    def __call__(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        cursor = self._db.execute(sql.replace("?", "%s") if self._url else sql, params)
        return [tuple(r) for r in cursor.fetchall()] if cursor.description else []

    def begin(self) -> None:
        if not self._url:
            self._db.execute("BEGIN IMMEDIATE")  # PostgreSQL's connection begins by itself

    def commit(self) -> None:
        self._db.execute("COMMIT") if not self._url else self._db.commit()

    def rollback(self) -> None:
        self._db.execute("ROLLBACK") if not self._url else self._db.rollback()


def _carry_over(sql: _Writer, follower: str, scope: str) -> list[str]:
    """:meth:`FollowStore.carry_over` in one transaction: the sessions whose rows it deleted."""
    sql.begin()
    try:
        keys: dict[str, set[str]] = {}
        for table in _SESSION_TABLES:
            found = sql(
                f"SELECT DISTINCT thread, session FROM {table} WHERE follower = ?", (follower,)
            )
            for key, session in found:
                keys.setdefault(str(session), set()).add(str(key))
        split = sorted(s for s, held in keys.items() if len(held) > 1)
        for session in split:
            for table in _SESSION_TABLES:
                sql(f"DELETE FROM {table} WHERE follower = ? AND session = ?", (follower, session))
        ends = sql(
            "SELECT thread, MAX(seq) FROM follow_threads WHERE follower = ? GROUP BY thread",
            (follower,),
        )
        following = max((int(end) + 1 for key, end in ends if key == scope), default=0)
        for key, end in sorted((str(k), int(e)) for k, e in ends if k != scope):
            sql(
                "UPDATE follow_threads SET thread = ?, seq = seq + ? WHERE follower = ?"
                " AND thread = ?",
                (scope, following, follower, key),
            )
            following += end + 1
        for table in _SESSION_TABLES[1:]:
            sql(
                f"UPDATE {table} SET thread = ? WHERE follower = ? AND thread <> ?",
                (scope, follower, scope),
            )
    except BaseException:
        sql.rollback()
        raise
    sql.commit()
    return split
