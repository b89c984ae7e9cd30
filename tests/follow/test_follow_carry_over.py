"""A store written by the follower before one scope for every session is carried over, fail-closed.

That follower keyed a session's rows by input: ``log:PATH`` for each followed log, ``files``
for every directory's files, each key's receipts numbered from 0, a log line's place
``line N``. A follower resuming such a store must judge a session's later calls against the
state the earlier follower committed, as one batch run over the final files does; a
session that follower re-derived apart in two inputs is dropped, not merged: its later calls
are not evaluated (never a pass), and the follower says so in one line.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sealverify._internal.follow.engine import FollowConfig, Follower
from sealverify._internal.follow.loop import LoopOptions, run
from sealverify._internal.history.state import HistoryError
from tests.helpers.fleet_services import pg_database, pg_url
from tests.helpers.follow_support import (
    LONG,
    OPTIONS,
    append,
    batch_outcomes,
    replay_status,
    session_call,
)

__all__ = ["pg_database", "pg_url"]  # the fixtures, imported for their tests

_PLACE = re.compile(r"^\S+ (line \d+)$")  # a log line's place when several inputs are followed


def _state(root: Path) -> str:
    """The store of the follower of ``root``: a SQLite file, or the database named there."""
    named = root / "database"
    return named.read_text() if named.exists() else str(root / "state.db")


def _config(root: Path) -> FollowConfig:
    logs, folders = (str(root / "r.jsonl"),), (str(root / "receipts"),)
    return FollowConfig(logs, folders, (), OPTIONS, _state(root))


def _look(root: Path) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """One follower started, one step and commit: its subject events by name, its notes."""
    follower = Follower(_config(root))
    try:
        events = [json.loads(e.line) for e in follower.step()]
        follower.commit()
        return {e["name"]: e for e in events if e["type"] == "subject"}, follower.notes
    finally:
        follower.close()


def _sql(root: Path, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    where = _state(root)
    if where.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(where, autocommit=True) as pg:
            cursor = pg.execute(statement.replace("?", "%s"), params)
            return [tuple(r) for r in cursor.fetchall()] if cursor.description else []
    db = sqlite3.connect(where, isolation_level=None)
    try:
        return list(db.execute(statement, params).fetchall())
    finally:
        db.close()


def _old_key(root: Path, location: str) -> tuple[str, str]:
    """The scope key and place the earlier follower gave a receipt read at ``location``."""
    line = _PLACE.match(location)
    return (f"log:{root / 'r.jsonl'}", line.group(1)) if line else ("files", location)


def _to_previous_layout(root: Path) -> None:
    """Rewrite the store's session rows as the follower at 83cf1f9 wrote them.

    Receipts under their input's key, numbered from 0 per key in their order; a log line's
    place (and a state's first call judged alone) ``line N``; a session's state and calls'
    entries under the key of its last receipt (the input whose receipt fed its pass).
    """
    rows = _sql(root, "SELECT seq, session, location, data, run FROM follow_threads ORDER BY seq")
    _sql(root, "DELETE FROM follow_threads")
    numbers: dict[str, int] = {}
    last: dict[str, str] = {}
    for _, session, location, data, number in rows:
        key, place = _old_key(root, location)
        numbers[key] = numbers.get(key, -1) + 1
        last[session] = key
        _sql(
            root,
            "INSERT INTO follow_threads (follower, thread, seq, session, location, data, run)"
            " SELECT follower, ?, ?, ?, ?, ?, ? FROM follow_checkpoints",
            (key, numbers[key], session, place, data, number),
        )
    for session, state in _sql(root, "SELECT session, state FROM follow_sessions"):
        row = json.loads(state)
        if row["alone"] is not None:
            row["alone"] = _old_key(root, row["alone"])[1]
        _sql(
            root,
            "UPDATE follow_sessions SET thread = ?, state = ? WHERE session = ?",
            (last[session], json.dumps(row), session),
        )
        _sql(root, "UPDATE follow_calls SET thread = ? WHERE session = ?", (last[session], session))
    assert {k for (k,) in _sql(root, "SELECT thread FROM follow_threads")} <= {
        f"log:{root / 'r.jsonl'}",
        "files",
    }


def _setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    folder = tmp_path / "receipts"
    folder.mkdir()
    return tmp_path, tmp_path / "r.jsonl", folder


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_sessions_of_the_previous_layout_resume_as_one_batch_run(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    root, log, folder = _setup(tmp_path)
    if store == "postgresql":
        (root / "database").write_text(request.getfixturevalue("pg_database"))
    # Before the upgrade: a log session of two calls (a pass and state), a directory
    # session of two, and a log session of one call (its receipt only, no state).
    append(log, session_call(1, 1, 1, config=LONG) + b"\n" + session_call(1, 2, 2, config=LONG))
    append(log, b"\n" + session_call(3, 1, 1) + b"\n")
    (folder / "a.json").write_bytes(session_call(2, 1, 1, config=LONG))
    (folder / "b.json").write_bytes(session_call(2, 2, 2, config=LONG))
    _look(root)
    _to_previous_layout(root)
    # After it: each session's next call; the attacker's over-budget second call of session 3
    # and a second call 2 of session 1, re-signed: refuted only against the calls before.
    append(log, session_call(1, 3, 3, config=LONG) + b"\n" + session_call(1, 4, 2, config=LONG))
    append(log, b"\n" + session_call(3, 2, 2) + b"\n")
    (folder / "c.json").write_bytes(session_call(2, 3, 3, config=LONG))
    events, notes = _look(root)
    assert notes == []
    assert [replay_status(e) for e in events.values()] == ["pass", "fail", "fail", "pass"]
    stored = {s: o for s, o in _sql(root, "SELECT subject, outcome FROM follow_subjects")}
    batch = batch_outcomes(str(log), str(folder))
    assert stored == batch
    assert batch[f"{log}:5"] == batch[f"{log}:6"] == "FAIL"
    assert {k for (k,) in _sql(root, "SELECT thread FROM follow_threads")} == {"sessions"}
    # The carried rows are the new layout's: a third look reads the store as written.
    (folder / "d.json").write_bytes(session_call(2, 4, 4, config=LONG))
    events, _ = _look(root)
    assert [replay_status(e) for e in events.values()] == ["pass"]
    stored = {s: o for s, o in _sql(root, "SELECT subject, outcome FROM follow_subjects")}
    assert stored == batch_outcomes(str(log), str(folder))


def test_a_session_the_previous_follower_passed_apart_is_dropped_not_merged(
    tmp_path: Path,
) -> None:
    # Session 4's first call in the log, its second in the directory: the earlier follower
    # re-derived them apart (a state under ``files`` that never saw call 1). Merging would
    # make up a state; its later calls are not evaluated instead, and the operator told.
    root, log, folder = _setup(tmp_path)
    append(log, session_call(4, 1, 1, config=LONG) + b"\n")
    (folder / "a.json").write_bytes(session_call(4, 2, 2, config=LONG))
    (folder / "b.json").write_bytes(session_call(5, 1, 1, config=LONG))
    (folder / "c.json").write_bytes(session_call(5, 2, 2, config=LONG))
    _look(root)
    _to_previous_layout(root)
    keys = _sql(root, "SELECT DISTINCT thread FROM follow_threads WHERE session LIKE '%9004%'")
    assert len(keys) == 2  # the store holds the split the earlier follower made
    append(log, session_call(4, 3, 3, config=LONG) + b"\n")
    events, notes = _look(root)
    assert [replay_status(e) for e in events.values()] == ["not-evaluated"]
    assert batch_outcomes(str(log), str(folder))[f"{log}:2"] == "VERIFIED"  # not a fail
    assert len(notes) == 1 and "9004" in notes[0] and "9005" not in notes[0]
    assert "not evaluated" in notes[0] and "\n" not in notes[0]
    # Its receipts before are gone with its states: a contest cannot feed them again either.
    assert len(_sql(root, "SELECT 1 FROM follow_threads WHERE session LIKE '%9004%'")) == 1
    # A session of the directory alone was re-derived once: carried over, then resumed.
    (folder / "d.json").write_bytes(session_call(5, 3, 3, config=LONG))
    events, notes = _look(root)
    assert notes == []
    assert [replay_status(e) for e in events.values()] == ["pass"]


def test_the_operator_is_told_on_stderr_which_sessions_were_dropped(tmp_path: Path) -> None:
    root, log, folder = _setup(tmp_path)
    append(log, session_call(4, 1, 1, config=LONG) + b"\n")
    (folder / "a.json").write_bytes(session_call(4, 2, 2, config=LONG))
    _look(root)
    _to_previous_layout(root)
    said: list[str] = []
    config = _config(root)
    assert run(config, LoopOptions(poll=True, once=True), io.BytesIO(), said.append) == 0
    assert len(said) == 2 and said[0].startswith("sealverify verify --follow: following")
    assert "9004" in said[1] and "not evaluated" in said[1]
    said.clear()
    assert run(config, LoopOptions(poll=True, once=True), io.BytesIO(), said.append) == 0
    assert len(said) == 1  # said once: the store holds no row of the earlier layout now


@pytest.mark.parametrize(
    ("member", "value"), [("budget", {"calls": 0}), ("trace", "1"), ("session", "other")]
)
def test_a_carried_over_state_edited_is_refused(tmp_path: Path, member: str, value: Any) -> None:
    root, log, _ = _setup(tmp_path)
    append(log, session_call(6, 1, 1, config=LONG) + b"\n" + session_call(6, 2, 2, config=LONG))
    append(log, b"\n")
    _look(root)
    _to_previous_layout(root)
    ((state,),) = _sql(root, "SELECT state FROM follow_sessions")
    row = json.loads(state)
    where = row["thread"]["kernel"] if member in row["thread"]["kernel"] else row["thread"]
    where[member] = value
    _sql(root, "UPDATE follow_sessions SET state = ?", (json.dumps(row),))
    append(log, session_call(6, 3, 3, config=LONG) + b"\n")
    with pytest.raises(HistoryError, match=f"a follow session state is refused.*{member}"):
        _look(root)
    assert f"{log}:4" not in {s for (s,) in _sql(root, "SELECT subject FROM follow_subjects")}
