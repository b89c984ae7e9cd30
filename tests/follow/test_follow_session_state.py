"""Checkpointed session states: a restart resumes from them, refuses an edited one, stays flat.

A follower commits each re-derived session's state (``kernel/session_state.py``) beside its
checkpoint. These tests restart followers over a store whose receipt rows are gone (the state
alone must carry the session), over a store whose state row an attacker edited (refused, never
a pass), and measure the state row as a session's calls grow.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sealverify._internal.follow.engine import FollowConfig, Follower
from sealverify._internal.history.state import HistoryError
from tests.helpers.fleet_services import pg_database, pg_url
from tests.helpers.follow_support import LONG, OPTIONS, append, batch_outcomes, session_call

__all__ = ["pg_database", "pg_url"]  # the fixtures, imported for their tests


def _follower(root: Path, log: Path, store: str | None = None) -> Follower:
    where = store or str(root / "state.db")
    return Follower(FollowConfig((str(log),), (), (), OPTIONS, where))


def _feed(
    root: Path, log: Path, calls: list[tuple[int, int, int]], store: str | None = None
) -> dict[str, str]:
    """Append each call, one step and commit each; the subjects' outcomes by name."""
    follower = _follower(root, log, store)
    outcomes: dict[str, str] = {}
    try:
        for call in calls:
            append(log, session_call(*call, config=LONG) + b"\n")
            for event in follower.step():
                value = json.loads(event.line)
                if value["type"] == "subject":
                    outcomes[value["name"]] = value["outcome"]
            follower.commit()
    finally:
        follower.close()
    return outcomes


def _sql(root: Path, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(root / "state.db", isolation_level=None)
    try:
        return list(db.execute(statement, params).fetchall())
    finally:
        db.close()


def _judged(root: Path, log: Path) -> dict[str, str]:
    rows = _sql(root, "SELECT subject, outcome FROM follow_subjects")
    return {str(subject): str(outcome) for subject, outcome in rows}


def test_a_restart_resumes_a_session_from_its_state_not_its_receipts(tmp_path: Path) -> None:
    # The receipt rows are deleted between the runs: only the committed state can tell the
    # second run that calls 1 to 3 executed, so call 4 passes and a second call 2 is refuted.
    log = tmp_path / "r.jsonl"
    first = _feed(tmp_path, log, [(3, 1, 1), (3, 2, 2), (3, 3, 3)])
    assert set(first.values()) == {"VERIFIED"}
    _sql(tmp_path, "DELETE FROM follow_threads")
    second = _feed(tmp_path, log, [(3, 4, 4), (3, 5, 2)])
    assert second == {f"{log}:4": "VERIFIED", f"{log}:5": "FAIL"}
    assert _judged(tmp_path, log) == batch_outcomes(str(log))


def test_a_postgresql_store_resumes_a_session_from_its_state(
    tmp_path: Path, pg_database: str
) -> None:
    import psycopg

    log = tmp_path / "r.jsonl"
    _feed(tmp_path, log, [(3, 1, 1), (3, 2, 2), (3, 3, 3)], pg_database)
    with psycopg.connect(pg_database, autocommit=True) as db:
        db.execute("DELETE FROM follow_threads")
    second = _feed(tmp_path, log, [(3, 4, 4), (3, 5, 2)], pg_database)
    assert second == {f"{log}:4": "VERIFIED", f"{log}:5": "FAIL"}


def test_a_session_resumed_from_its_state_re_derives_as_one_run(tmp_path: Path) -> None:
    # Each call in a run of its own: every one resumes the session from the store.
    calls = [(4, n, n) for n in range(1, 6)]
    for n, call in enumerate(calls, 1):
        assert _feed(tmp_path, tmp_path / "r.jsonl", [call]) == {
            f"{tmp_path / 'r.jsonl'}:{n}": "VERIFIED"
        }
    log = tmp_path / "r.jsonl"
    assert _judged(tmp_path, log) == batch_outcomes(str(log))
    (state,) = _sql(tmp_path, "SELECT state FROM follow_sessions")
    assert json.loads(state[0])["thread"]["count"] == "5"


def test_the_state_row_stays_flat_as_a_session_s_calls_grow(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    follower = _follower(tmp_path, log)
    sizes: list[int] = []
    try:
        for n in range(1, 41):
            append(log, session_call(5, n, n, config=LONG) + b"\n")
            follower.step()
            follower.commit()
            if n >= 2:
                (size,) = _sql(tmp_path, "SELECT length(state) FROM follow_sessions")
                sizes.append(int(size[0]))
    finally:
        follower.close()
    # Only the counters' digits grow (1 -> 40: two digits in each of three counters).
    assert max(sizes) - min(sizes) <= 6, sizes
    (calls,) = _sql(tmp_path, "SELECT COUNT(*) FROM follow_calls")
    assert calls[0] == 2 * 40  # what grows: one position and one result a call, appended once


def _edit(member: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(row: dict[str, Any]) -> None:
        where = row["thread"]["kernel"] if member in row["thread"]["kernel"] else row["thread"]
        where[member] = value

    return edit


def _payload_edit(row: dict[str, Any]) -> None:
    row["thread"]["kernel"]["payload"] = row["thread"]["kernel"]["payload"][:-1]


def _member_added(row: dict[str, Any]) -> None:
    row["thread"]["kernel"]["budget_reset"] = True


# Each edit an attacker with the store may try: a session that ran three calls of a budget
# turned back, its trace cut so a replayed call fits, its temporal fold cleared, its build
# or config swapped, a counter of the wrong type or out of its range, a member added.
EDITS = {
    "trace cut": _edit("trace", "2"),
    "budget over its cap": _edit("budget", {"calls": "251"}),
    "budget not in the config": _edit("budget", {"other": "0"}),
    "budget as a number": _edit("budget", {"calls": 0}),
    "fold cleared": _edit("folds", [[True, False]]),
    "fold violated": _edit("folds", [[False, True]]),
    "unknown build": _edit("build", "0" * 64),
    "config cut": _payload_edit,
    "negative count": _edit("count", "-1"),
    "selection invented": _edit("selection", "2099-01-01"),
    "approval of no deadline": _edit("approvals", [["t", "soon"]]),
    "member added": _member_added,
    "session renamed": _edit("session", "seal-host-rs/stdio:1:1"),
    "stopped as a number": _edit("stopped", 1),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edited_session_state_is_refused_not_resumed(tmp_path: Path, name: str) -> None:
    log = tmp_path / "r.jsonl"
    _feed(tmp_path, log, [(6, 1, 1), (6, 2, 2), (6, 3, 3)])
    (row,) = _sql(tmp_path, "SELECT state FROM follow_sessions")
    state = json.loads(row[0])
    EDITS[name](state)
    _sql(tmp_path, "UPDATE follow_sessions SET state = ?", (json.dumps(state),))
    with pytest.raises(HistoryError, match="a follow session state is refused"):
        _feed(tmp_path, log, [(6, 4, 4)])
    assert f"{log}:4" not in _judged(tmp_path, log)


def test_a_call_entry_deleted_or_edited_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    _feed(tmp_path, log, [(7, 1, 1), (7, 2, 2)])
    _sql(tmp_path, "DELETE FROM follow_calls WHERE seq = (SELECT MAX(seq) FROM follow_calls)")
    with pytest.raises(HistoryError, match="calls' entries stored"):
        _feed(tmp_path, log, [(7, 3, 3)])
    _sql(tmp_path, "DELETE FROM follow_calls")
    _sql(tmp_path, "DELETE FROM follow_sessions")
    (tmp_path / "state.db").unlink()
    log.unlink()
    _feed(tmp_path, log, [(7, 1, 1), (7, 2, 2)])
    _sql(tmp_path, "UPDATE follow_calls SET entry = replace(entry, '\"pass\"', '\"passed\"')")
    with pytest.raises(HistoryError, match="is not a status"):
        _feed(tmp_path, log, [(7, 3, 3)])


def test_a_state_given_another_config_is_not_a_pass(tmp_path: Path) -> None:
    # A well-formed config the model accepts (the budget raised): the next receipt names
    # another config than the state, so its decision is not re-derived, and it says why.
    log = tmp_path / "r.jsonl"
    _feed(tmp_path, log, [(8, 1, 1), (8, 2, 2)])
    (row,) = _sql(tmp_path, "SELECT state FROM follow_sessions")
    state = json.loads(row[0])
    kernel = state["thread"]["kernel"]
    kernel["payload"] = kernel["payload"].replace('"cap":250', '"cap":999')
    _sql(tmp_path, "UPDATE follow_sessions SET state = ?", (json.dumps(state),))
    follower = _follower(tmp_path, log)
    append(log, session_call(8, 3, 3, config=LONG) + b"\n")
    try:
        (event,) = [json.loads(e.line) for e in follower.step()]
    finally:
        follower.close()
    assert event["outcome"] != "VERIFIED"
    (replay,) = [c for c in event["checks"] if c["id"] == "replay.decision"]
    assert replay["status"] == "not-evaluated"
    assert "different builds or configs" in replay["reason"]
