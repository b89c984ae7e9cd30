"""The follower's reads of its store: a few statements for a look's receipts, not one each.

Each receipt asks the store who named its operation before and, for a session not in
memory, its committed state (``judge.py``); the follower reads what a look's receipts will
ask at once (``Judge.prefetch``, ``FollowStore.prefetch``). Counted here, with the outcomes
of a batch run over the same file, so fewer reads never means other answers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sealverify._internal.follow.engine import READ_AHEAD, FollowConfig, Follower
from sealverify._internal.follow.store import FollowStore
from tests.helpers.follow_support import (
    OPTIONS,
    append,
    batch_outcomes,
    plain_receipts,
    session_call,
)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every statement the follower's store reads with, in order."""
    statements: list[str] = []
    rows = FollowStore._rows

    def counted(self: FollowStore, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        statements.append(sql)
        return rows(self, sql, params)

    monkeypatch.setattr(FollowStore, "_rows", counted)
    return statements


def _outcomes(follower: Follower) -> dict[str, str]:
    events = [json.loads(e.line) for e in follower.step()]
    follower.commit()
    return {str(e["name"]): str(e["outcome"]) for e in events if e["type"] == "subject"}


def test_a_looks_receipts_are_read_from_the_store_in_a_few_statements(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "r.jsonl"
    first = [*plain_receipts(40), *(session_call(s, 1, 1) for s in range(1, 21))]
    log.write_bytes(b"".join(line + b"\n" for line in first))
    config = FollowConfig((str(log),), (), (), OPTIONS, str(tmp_path / "state.db"))
    follower = Follower(config)
    statements = _counting(monkeypatch)
    seen = _outcomes(follower)
    assert len(seen) == 60
    # One look: each session's first call and every operation, read in three statements
    # (operations, states, stored receipts); one a receipt (60) before.
    assert len(statements) == 3, statements
    statements.clear()
    # The sessions come back after the commit (their second calls): read at once again; then
    # each returning session's pass is made from its stored first call (its receipts, and
    # who named that call's operation: two reads a session, not in the look's).
    later = [session_call(s, 2, 2) for s in range(1, 21)]
    append(log, b"".join(line + b"\n" for line in later))
    seen.update(_outcomes(follower))
    follower.close()
    assert sum("IN (" in sql for sql in statements[:3]) == 3
    assert len(statements) == 3 + 2 * len(later), statements  # three a receipt before
    assert seen == batch_outcomes(str(log))
    assert "FAIL" in seen.values()  # the second calls, over budget: refuted


def test_reading_ahead_is_bounded_and_keeps_the_order(tmp_path: Path) -> None:
    """More lines than one read-ahead holds: judged in order, each session's in turn."""
    log = tmp_path / "r.jsonl"
    lines = [*plain_receipts(READ_AHEAD + 5), session_call(3, 1, 1), session_call(3, 2, 2)]
    log.write_bytes(b"".join(line + b"\n" for line in lines))
    config = FollowConfig((str(log),), (), (), OPTIONS, str(tmp_path / "state.db"))
    follower = Follower(config)
    events = [json.loads(e.line) for e in follower.step()]
    follower.commit()
    follower.close()
    subjects = [e for e in events if e["type"] == "subject"]
    assert [e["input"]["line"] for e in subjects] == list(range(1, len(lines) + 1))
    outcomes = {str(e["name"]): str(e["outcome"]) for e in subjects}
    assert outcomes == batch_outcomes(str(log))
