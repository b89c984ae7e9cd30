"""A followed log line is stored as where to find it again, never fed unless found as judged.

The store keeps a session's first receipt until the session comes back; of a log line it keeps
a locator (the file's fingerprint, the line's offset and length, the sha256 of its bytes), so
a store of a million single-call sessions does not hold a million receipts. When the session
comes back the line is read again and fed only if its digest is the one judged: a line
rewritten under the follower (by an attacker holding the pinned keys) leaves the session's
later calls ``not-evaluated``, never VERIFIED.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

from sealverify._internal.follow.engine import FollowConfig, Follower
from sealverify._internal.follow.locators import PREFIX, claim_of, locator, reread
from sealverify._internal.follow.tail import Fingerprint, Line
from tests.helpers.follow_support import (
    LONG,
    OPTIONS,
    append,
    batch_outcomes,
    plain_receipts,
    session_call,
)


def _follower(root: Path, log: Path) -> Follower:
    return Follower(FollowConfig((str(log),), (), (), OPTIONS, str(root / "state.db")))


def _look(follower: Follower) -> list[str]:
    """One step and its commit: the JSON lines of its events."""
    events = [e.line.decode() if isinstance(e.line, bytes) else e.line for e in follower.step()]
    follower.commit()
    return events


def _stored_rows(root: Path) -> list[str]:
    db = sqlite3.connect(root / "state.db")
    try:
        return [str(data) for (data,) in db.execute("SELECT data FROM follow_threads")]
    finally:
        db.close()


def _stored(follower: Follower) -> dict[tuple[str, str], str]:
    judged = follower.store.judged()
    assert {n for _, n in judged.values()} == {1}  # each line judged into the store once
    return {key: outcome for key, (outcome, _) in judged.items()}


def _outcome(events: list[str], line: int) -> tuple[str, str]:
    """The outcome and the session check's status and reason of the event of ``line``."""
    for text in events:
        event = json.loads(text)
        if event["type"] == "subject" and event["input"]["line"] == line:
            check = next(c for c in event["checks"] if c["id"] == "replay.decision")
            return str(event["outcome"]), f"{check['status']}: {check['reason']}"
    raise AssertionError(f"no event for line {line}")


def test_a_store_of_single_call_sessions_holds_no_receipt_bytes(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    receipts = plain_receipts(40)
    log.write_bytes(b"".join(r + b"\n" for r in receipts))
    follower = _follower(tmp_path, log)
    _look(follower)
    follower.close()
    rows = _stored_rows(tmp_path)
    assert len(rows) == len(receipts)  # each one a session's first call, kept for its next
    smallest = min(len(r) for r in receipts)
    assert smallest > 3000
    assert max(len(row) for row in rows) < 600  # a locator, not the receipt's several KB
    assert not any(row.startswith("{") for row in rows)
    assert all(row.encode() not in log.read_bytes() for row in rows)


def test_a_session_coming_back_later_is_judged_as_a_batch_run_judges_it(tmp_path: Path) -> None:
    # The second call of each session lands after the first was committed (its bytes no
    # longer in memory), with the follower kept up or restarted: read again from the log.
    for restart in (False, True):
        root = tmp_path / ("restarted" if restart else "kept")
        root.mkdir()
        log = root / "r.jsonl"
        append(log, plain_receipts(1)[0] + b"\n" + session_call(1, 1, 1, LONG) + b"\n")
        append(log, session_call(2, 1, 1) + b"\n")  # a budget of one call
        follower = _follower(root, log)
        _look(follower)
        assert all(row.startswith("locator ") for row in _stored_rows(root))
        if restart:
            follower.close()
            follower = _follower(root, log)
        append(log, session_call(1, 2, 2, LONG) + b"\n" + session_call(2, 2, 2) + b"\n")
        _look(follower)
        stored = _stored(follower)
        follower.close()
        batch = batch_outcomes(str(log))
        assert {name: outcome for (_, name), outcome in stored.items()} == batch
        assert batch[f"{log}:4"] == "VERIFIED" and batch[f"{log}:5"] == "FAIL"


def _rotated_parity(root: Path, rotate: str) -> None:
    log, rotated = root / "r.jsonl", root / "r.jsonl.1"
    append(log, plain_receipts(1)[0] + b"\n" + session_call(3, 1, 1) + b"\n")
    append(log, session_call(4, 1, 1, LONG) + b"\n")
    follower = _follower(root, log)
    _look(follower)
    if rotate == "rename":
        os.rename(log, rotated)  # logrotate's rename, then the host reopens
        log.write_bytes(b"")
    else:
        shutil.copyfile(log, rotated)  # logrotate copytruncate
        with log.open("r+b") as handle:
            handle.truncate(0)
    _look(follower)
    follower.close()
    append(log, session_call(3, 2, 2) + b"\n" + session_call(4, 2, 2, LONG) + b"\n")
    follower = _follower(root, log)  # restarted: the first calls only in the store
    _look(follower)
    stored = _stored(follower)
    follower.close()
    assert all(row.startswith("locator ") for row in _stored_rows(root))
    old = root / "old.jsonl"  # the rotated file under a name a batch run reads as a log
    shutil.copyfile(rotated, old)
    renamed = {(f"{log}#0", f"{log}:{n}"): f"{old}:{n}" for n in range(1, 4)} | {
        (f"{log}#1", f"{log}:{n}"): f"{log}:{n}" for n in range(1, 3)
    }
    batch = batch_outcomes(str(old), str(log))
    assert {renamed[key]: outcome for key, outcome in stored.items()} == batch
    assert batch[f"{log}:1"] == "FAIL" and batch[f"{log}:2"] == "VERIFIED"


def test_a_session_across_a_rename_and_create_rotation_is_judged_as_a_batch(
    tmp_path: Path,
) -> None:
    _rotated_parity(tmp_path, "rename")


def test_a_session_across_a_copy_truncate_rotation_is_judged_as_a_batch(tmp_path: Path) -> None:
    _rotated_parity(tmp_path, "copy")


def _same_length_forgery(original: bytes) -> bytes:
    """Another first call of session 5, re-signed under the pinned keys, of the same length."""
    for index in range(2, 250):
        forged = session_call(5, index, 1, LONG)
        if len(forged) == len(original) and forged != original:
            return forged
    raise AssertionError("no forgery of the same length")


def test_a_judged_line_rewritten_in_place_is_never_fed(tmp_path: Path) -> None:
    # The attacker holds the pinned keys and, once the follower judged a session's first
    # call, rewrites that line in place with another re-signed call of the same length (the
    # file's first bytes, its size and every offset unchanged): the session's later call must
    # not be judged against a line the follower never judged, nor against the line it did
    # judge that the log no longer holds. It is not evaluated, with the reason named.
    for restart in (False, True):
        root = tmp_path / ("restarted" if restart else "kept")
        root.mkdir()
        log = root / "r.jsonl"
        head = plain_receipts(1)[0] + b"\n"
        first = session_call(5, 1, 1, LONG)
        append(log, head + first + b"\n")
        follower = _follower(root, log)
        _look(follower)
        with log.open("r+b") as handle:
            handle.seek(len(head))
            handle.write(_same_length_forgery(first))
        if restart:
            follower.close()
            follower = _follower(root, log)
        append(log, session_call(5, 250, 2, LONG) + b"\n")
        events = _look(follower)
        follower.close()
        outcome, reason = _outcome(events, 3)
        assert outcome != "VERIFIED"
        assert reason.startswith("not-evaluated: decision not re-derived: an earlier receipt")
        # The rewrite itself is a tampering finding, though the file's first bytes and size
        # are unchanged (the look at the file sees nothing): named by the line's file.
        found = [json.loads(e) for e in events if '"follow.rewritten"' in e]
        assert len(found) == 1, events
        assert found[0]["type"] == "finding" and found[0]["input"]["path"] == str(log)
        assert f"byte {len(head)} of {log}" in found[0]["reason"]
        assert "no longer in the followed log as it was judged" in reason
        assert batch_outcomes(str(log))[f"{log}:3"] == "VERIFIED"  # a batch sees no harm
        # The gap is checkpointed with the session's state: after a restart its next call
        # is not evaluated either (the state, stopped at the gap, is read back).
        append(log, session_call(5, 251, 3, LONG) + b"\n")
        follower = _follower(root, log)
        events = _look(follower)
        follower.close()
        assert _outcome(events, 4)[1].startswith("not-evaluated: decision not re-derived: an")


def test_a_rewritten_first_line_keeps_the_follow_rewritten_finding(tmp_path: Path) -> None:
    # The same, with the rewritten line in the file's first bytes: the follower's tampering
    # finding is still raised, the forged line is judged against the position the judged one
    # claimed (two first calls: FAIL), and the session's later call is not evaluated.
    log = tmp_path / "r.jsonl"
    first = session_call(5, 1, 1, LONG)
    append(log, first + b"\n")
    follower = _follower(tmp_path, log)
    _look(follower)
    with log.open("r+b") as handle:
        handle.write(_same_length_forgery(first))
    append(log, session_call(5, 250, 2, LONG) + b"\n")
    events = _look(follower)
    follower.close()
    assert any('"follow.rewritten"' in e for e in events)
    assert _outcome(events, 1)[0] == "FAIL"
    outcome, reason = _outcome(events, 2)
    assert outcome != "VERIFIED" and reason.startswith("not-evaluated:")


def test_a_store_holding_receipt_bytes_is_read_as_it_is(tmp_path: Path) -> None:
    # A store written before locators holds each first call's bytes: they are fed as they
    # are, whatever the log holds now (the log line is not read again).
    log = tmp_path / "r.jsonl"
    head = plain_receipts(1)[0] + b"\n"
    first = session_call(6, 1, 1)
    append(log, head + first + b"\n")
    follower = _follower(tmp_path, log)
    _look(follower)
    follower.close()
    db = sqlite3.connect(tmp_path / "state.db")
    with db:
        db.execute("UPDATE follow_threads SET data = ?", (first.decode(),))
    db.close()
    with log.open("r+b") as handle:
        handle.seek(len(head))
        handle.write(b" " * len(first))  # the line gone from the log: only the store has it
    append(log, session_call(6, 2, 2) + b"\n")
    follower = _follower(tmp_path, log)
    events = _look(follower)
    follower.close()
    outcome, reason = _outcome(events, 3)
    assert outcome == "FAIL" and reason.startswith("fail:")  # over budget after the first


def test_a_session_whose_rotated_file_is_gone_is_not_evaluated(tmp_path: Path) -> None:
    # The rotated file holding a session's first call is deleted (or compressed) before the
    # session's next call lands: the line cannot be read again, so the call is not evaluated.
    log = tmp_path / "r.jsonl"
    append(log, session_call(7, 1, 1, LONG) + b"\n")
    follower = _follower(tmp_path, log)
    _look(follower)
    os.rename(log, tmp_path / "r.jsonl.1")
    log.write_bytes(b"")
    _look(follower)
    (tmp_path / "r.jsonl.1").unlink()
    append(log, session_call(7, 2, 2, LONG) + b"\n")
    events = _look(follower)
    follower.close()
    outcome, reason = _outcome(events, 1)
    assert outcome != "VERIFIED"
    assert reason.startswith("not-evaluated:") and "no longer in the followed log" in reason


def test_a_locator_not_of_the_shape_written_finds_nothing(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    line = session_call(8, 1, 1)
    log.write_bytes(line + b"\n")
    os.mkfifo(tmp_path / "r.jsonl.fifo")  # a rotated name that is not a file: never opened
    found = Line(str(log), 1, 0, line, 0, Fingerprint(0, 0, 0, hashlib.sha256(b"").hexdigest()))
    text = locator(str(log), found, None)
    assert text is not None and reread(text) == line
    assert claim_of(text) is None
    for edited in (
        text[:-1],
        text.replace(b",0,", b",-1,", 1),
        text.replace(b"null", b'"1"'),
        PREFIX + b'{"path":"x"}',
        PREFIX + b"\xff",
    ):
        assert reread(edited) is None
    log.write_bytes(line.replace(b"search_notes", b"search_notez") + b"\n")
    assert reread(text) is None  # the same length, other bytes
