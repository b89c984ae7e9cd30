"""The follower in one process: batch parity, sessions live, checkpoints, rotation, tampering.

Each test drives :class:`~sealverify._internal.follow.engine.Follower` step by step over files it
writes, so what the follower sees at each step is exact; the outcomes are compared with one
batch ``verify`` of the final files.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from sealverify_testkit import auditlog

from sealverify._internal.cli.main import cli
from sealverify._internal.follow.engine import FollowConfig, Follower
from sealverify._internal.follow.events import Event
from sealverify._internal.follow.tail import LineTooLarge
from sealverify._internal.history.state import HistoryError
from sealverify._internal.receipts.verify import VerifyOptions
from tests.helpers.fleet_services import pg_database, pg_url
from tests.helpers.follow_support import (
    OPTIONS,
    PIN_ARGS,
    append,
    batch_outcomes,
    plain_receipts,
    relabelled,
    replay_status,
    session_call,
    until,
)

__all__ = ["pg_database", "pg_url"]  # the fixtures, imported for their tests


def _follower(
    tmp_path: Path,
    logs: tuple[str, ...] = (),
    folders: tuple[str, ...] = (),
    chains: tuple[str, ...] = (),
) -> Follower:
    config = FollowConfig(logs, folders, chains, OPTIONS, str(tmp_path / "state.db"))
    return Follower(config)


def _events(follower: Follower, commit: bool = True) -> list[dict[str, object]]:
    found: list[Event] = follower.step()
    if commit:
        follower.commit()
    return [json.loads(e.line) for e in found]


def _subjects(events: list[dict[str, object]]) -> dict[str, str]:
    return {str(e["name"]): str(e["outcome"]) for e in events if e["type"] == "subject"}


def _findings(events: list[dict[str, object]]) -> list[str]:
    """The findings' ids, but the history's (minted receipts cycle config epochs)."""
    return [
        str(e["id"])
        for e in events
        if e["type"] == "finding" and not str(e["id"]).startswith("history.")
    ]


def test_a_log_followed_line_by_line_gives_the_batch_outcomes(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    lines = [*plain_receipts(4), session_call(1, 1, 1), session_call(1, 2, 2)]
    follower = _follower(tmp_path, logs=(str(log),))
    seen: dict[str, str] = {}
    for line in lines:  # each receipt lands alone, and is judged before the next one lands
        append(log, line + b"\n")
        seen.update(_subjects(_events(follower)))
    follower.close()
    assert seen == batch_outcomes(str(log))
    assert seen[f"{log}:6"] == "FAIL"  # the forged later call, judged against the first


def test_a_forged_later_call_is_refuted_only_after_its_session_s_first(tmp_path: Path) -> None:
    # The attacker holds the keys and re-signs an over-budget second call: alone it cannot
    # be judged (not-evaluated), after the session's first call it is refuted, also when the
    # follower restarted between the two.
    log = tmp_path / "r.jsonl"
    append(log, session_call(2, 1, 1) + b"\n")
    first = _follower(tmp_path, logs=(str(log),))
    assert _subjects(_events(first)) == {f"{log}:1": "VERIFIED"}
    first.close()
    append(log, session_call(2, 2, 2) + b"\n")
    second = _follower(tmp_path, logs=(str(log),))
    events = _events(second)
    assert [replay_status(e) for e in events if e["type"] == "subject"] == ["fail"]
    assert second.store.judged()[f"{log}#0", f"{log}:2"] == ("FAIL", 1)
    second.close()
    alone = tmp_path / "alone.jsonl"
    alone.write_bytes(session_call(2, 2, 2) + b"\n")
    lone = _follower(tmp_path, logs=(str(alone),))
    assert [replay_status(e) for e in _events(lone) if e["type"] == "subject"] == ["not-evaluated"]
    lone.close()


def test_a_step_not_committed_is_read_again_and_judged_once(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    log.write_bytes(b"\n".join(plain_receipts(3)) + b"\n")
    crashed = _follower(tmp_path, logs=(str(log),))
    assert len(_subjects(_events(crashed, commit=False))) == 3
    crashed.store.history.close()  # killed before its commit
    again = _follower(tmp_path, logs=(str(log),))
    assert len(_subjects(_events(again))) == 3
    assert _events(again) == []
    assert {n for _, n in again.store.judged().values()} == {1}
    again.close()


def test_a_partial_line_waits_for_its_end(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    line = plain_receipts(1)[0]
    log.write_bytes(line[:100])
    follower = _follower(tmp_path, logs=(str(log),))
    assert _events(follower) == []
    append(log, line[100:] + b"\n")
    assert list(_subjects(_events(follower))) == [f"{log}:1"]
    follower.close()


def test_rename_and_create_rotation_drains_the_rotated_file_first(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    lines = plain_receipts(5)
    log.write_bytes(lines[0] + b"\n")
    follower = _follower(tmp_path, logs=(str(log),))
    assert len(_subjects(_events(follower))) == 1
    append(log, lines[1] + b"\n" + lines[2] + b"\n")
    os.rename(log, tmp_path / "r.jsonl.1")  # logrotate's rename, then the host reopens
    log.write_bytes(lines[3] + b"\n")
    events = _events(follower)
    assert _findings(events) == []
    subjects = [e for e in events if e["type"] == "subject"]
    assert [e["input"]["line"] for e in subjects] == [2, 3, 1]  # type: ignore[index]
    assert [e["name"] for e in subjects] == [f"{log}:2", f"{log}:3", f"{log}:1"]
    follower.close()


def test_copy_truncate_rotation_drains_the_copy_first(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    lines = plain_receipts(4)
    log.write_bytes(lines[0] + b"\n")
    follower = _follower(tmp_path, logs=(str(log),))
    _events(follower)
    append(log, lines[1] + b"\n")
    shutil.copyfile(log, tmp_path / "r.jsonl.1")  # logrotate copytruncate
    with log.open("r+b") as handle:
        handle.truncate(0)
    append(log, lines[2] + b"\n")
    events = _events(follower)
    assert _findings(events) == []
    subjects = [e for e in events if e["type"] == "subject"]
    assert [(e["input"]["offset"] > 0) for e in subjects] == [True, False]  # type: ignore[index]
    follower.close()


def test_a_file_cut_under_its_name_is_follow_truncated(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    lines = plain_receipts(3)
    log.write_bytes(b"\n".join(lines) + b"\n")
    follower = _follower(tmp_path, logs=(str(log),))
    _events(follower)
    with log.open("r+b") as handle:
        handle.truncate(len(lines[0]) + 1)  # the last two receipts deleted, no copy kept
    assert _findings(_events(follower)) == ["follow.truncated"]
    append(log, lines[2] + b"\n")
    events = [e for e in _events(follower) if e["type"] == "subject"]
    assert [e["input"]["line"] for e in events] == [2]  # type: ignore[index]
    follower.close()


def test_a_file_rewritten_under_its_name_is_follow_rewritten(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    lines = plain_receipts(3)
    log.write_bytes(lines[0] + b"\n" + lines[1] + b"\n")
    follower = _follower(tmp_path, logs=(str(log),))
    _events(follower)
    with log.open("r+b") as handle:  # the first receipt replaced in place, same inode
        handle.write(b" " * 50)
    events = _events(follower)
    assert _findings(events)[0] == "follow.rewritten"
    follower.close()


def test_a_replaced_file_with_no_rotated_copy_is_follow_rotated_lost(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    lines = plain_receipts(2)
    log.write_bytes(lines[0] + b"\n")
    follower = _follower(tmp_path, logs=(str(log),))
    _events(follower)
    (tmp_path / "new").write_bytes(lines[1] + b"\n")
    os.replace(tmp_path / "new", log)  # replaced; the file read before is nowhere beside it
    events = _events(follower)
    assert _findings(events) == ["follow.rotated-lost"]
    assert len(_subjects(events)) == 1
    follower.close()


def test_a_directory_file_rewritten_for_its_release_status_counts_once(tmp_path: Path) -> None:
    folder = tmp_path / "receipts"
    folder.mkdir()
    receipts = plain_receipts(3)
    (folder / "a.json").write_bytes(receipts[0])
    follower = _follower(tmp_path, folders=(str(folder),))
    assert len(_subjects(_events(follower))) == 1
    temp = folder / ".b.tmp"
    temp.write_bytes(receipts[1])
    os.rename(temp, folder / "a.json")  # the atomic rewrite, another form under one name
    (folder / "c.json").write_bytes(receipts[2])
    events = [e for e in _events(follower) if e["type"] == "subject"]
    assert sorted(_subjects(events)) == [f"{folder}/a.json", f"{folder}/c.json"]
    assert events[0]["input"]["file"] == f"{folder}/a.json"  # type: ignore[index]
    judged = follower.store.judged()
    assert judged[str(folder), f"{folder}/a.json"][1] == 2
    assert judged[str(folder), f"{folder}/c.json"][1] == 1
    assert _events(follower) == []
    follower.close()
    assert _subjects(events) == batch_outcomes(str(folder))


def test_directory_sessions_are_re_derived_in_order_as_in_a_batch(tmp_path: Path) -> None:
    folder = tmp_path / "receipts"
    folder.mkdir()
    follower = _follower(tmp_path, folders=(str(folder),))
    (folder / "1.json").write_bytes(session_call(3, 1, 1))
    _events(follower)
    follower.close()
    (folder / "2.json").write_bytes(session_call(3, 2, 2))
    again = _follower(tmp_path, folders=(str(folder),))
    events = _events(again)
    again.close()
    assert _subjects(events) == {f"{folder}/2.json": "FAIL"}
    assert batch_outcomes(str(folder))[f"{folder}/2.json"] == "FAIL"


def _chain_lines(n: int) -> list[bytes]:
    return auditlog.chain_log([auditlog.audit_payload(i) for i in range(n)]).splitlines()


def test_a_chain_followed_record_by_record_has_no_findings(tmp_path: Path) -> None:
    chain = tmp_path / "stderr.log"
    lines = _chain_lines(4)
    follower = _follower(tmp_path, chains=(str(chain),))
    for line in lines:  # a payload, then its record, each landing alone
        append(chain, line + b"\n")
        assert _findings(_events(follower)) == []
    follower.close()


def test_a_chain_record_that_does_not_extend_the_checkpointed_head_is_found(
    tmp_path: Path,
) -> None:
    chain = tmp_path / "stderr.log"
    lines = _chain_lines(3)
    other = auditlog.chain_log([auditlog.audit_payload(7)]).splitlines()
    chain.write_bytes(b"\n".join(lines) + b"\n")
    follower = _follower(tmp_path, chains=(str(chain),))
    _events(follower)
    follower.close()
    # Records linked from genesis again (another chain) appended after a restart.
    forged = other[1].replace(b'"entry":0', b'"entry":2')
    append(chain, other[0] + b"\n" + forged + b"\n")
    again = _follower(tmp_path, chains=(str(chain),))
    found = _findings(_events(again))
    again.close()
    assert "follow.chain-diverged" in found and "chain.break" in found


def test_a_tampered_payload_in_the_followed_chain_is_a_break(tmp_path: Path) -> None:
    chain = tmp_path / "stderr.log"
    lines = _chain_lines(3)
    payloads = [i for i, line in enumerate(lines) if line.startswith(b'{"certs"')]
    cut = payloads[1]
    follower = _follower(tmp_path, chains=(str(chain),))
    append(chain, b"\n".join(lines[:cut]) + b"\n")
    _events(follower)
    tampered = lines[cut].replace(b"shell_exec", b"shell_exed")
    append(chain, b"\n".join([tampered, *lines[cut + 1 :]]) + b"\n")
    found = _findings(_events(follower))
    follower.close()
    assert found == ["chain.break"]


def test_a_checkpoint_that_is_not_the_followers_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    log.write_bytes(plain_receipts(1)[0] + b"\n")
    follower = _follower(tmp_path, logs=(str(log),))
    _events(follower)
    name = follower.name
    follower.close()
    import sqlite3

    db = sqlite3.connect(tmp_path / "state.db")
    (body,) = db.execute(
        "SELECT body FROM follow_checkpoints WHERE follower = ?", (name,)
    ).fetchone()
    value = json.loads(body)
    value["logs"][str(log)]["fingerprint"]["ino"] = str(
        value["logs"][str(log)]["fingerprint"]["ino"]
    )
    hostile = ['{"version":1}', "[]", "{", json.dumps(value)]
    for text in hostile:
        db.execute("UPDATE follow_checkpoints SET body = ? WHERE follower = ?", (text, name))
        db.commit()
        with pytest.raises(HistoryError, match="follow checkpoint"):
            _follower(tmp_path, logs=(str(log),))
    db.close()


def test_a_postgresql_store_keeps_the_checkpoint_and_the_sessions(
    tmp_path: Path, pg_database: str
) -> None:
    log = tmp_path / "r.jsonl"
    log.write_bytes(plain_receipts(2)[0] + b"\n" + session_call(5, 1, 1) + b"\n")

    def follower() -> Follower:
        return Follower(FollowConfig((str(log),), (), (), OPTIONS, pg_database))

    crashed = follower()
    assert len(_subjects(_events(crashed, commit=False))) == 2
    crashed.close()  # its batch never committed
    first = follower()
    assert len(_subjects(_events(first))) == 2
    first.close()
    append(log, session_call(5, 2, 2) + b"\n")
    second = follower()
    assert _subjects(_events(second)) == {f"{log}:3": "FAIL"}
    judged = second.store.judged()
    second.close()
    assert sorted(n for _, n in judged.values()) == [1, 1, 1]


def test_a_file_event_ends_the_wait_before_the_poll_interval(tmp_path: Path) -> None:
    pytest.importorskip("watchdog")
    from sealverify._internal.follow.waiting import open_waiter

    log = tmp_path / "r.jsonl"
    waiter = open_waiter([str(log)], interval=600.0, poll=False)
    assert waiter.kind == "watchdog"
    done = threading.Event()
    thread = threading.Thread(target=lambda: (waiter.wait(), done.set()), daemon=True)
    thread.start()
    try:
        until(lambda: _appended(log, done), "the wait to end on a file event")
    finally:
        waiter.close()
    assert open_waiter([str(log)], interval=0.5, poll=True).kind == "poll"


def test_the_followers_own_reads_end_no_wait(tmp_path: Path) -> None:
    """Opening and reading an input raises file events that must not wake the follower.

    Each look at a log opens it: were those events a change, each look would end the next
    wait and an idle follower would look again and again. A file made after the reads
    (inotify keeps one instance's events in order) says every event of them was delivered.
    """
    pytest.importorskip("watchdog")
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    from sealverify._internal.follow.waiting import changes

    log = tmp_path / "r.jsonl"
    log.write_bytes(b"{}\n")
    seen: list[object] = []

    class _Record(FileSystemEventHandler):
        def on_any_event(self, event: object) -> None:
            seen.append(event)

    observer = Observer()
    observer.schedule(_Record(), str(tmp_path), recursive=True)
    observer.start()
    try:
        until(lambda: _touched(tmp_path / "ready", seen), "the observer to start")
        seen.clear()
        for _ in range(3):
            with log.open("rb") as handle:
                handle.read()
        (tmp_path / "done").touch()
        until(lambda: any(str(getattr(e, "src_path", "")).endswith("done") for e in seen), "it")
        reads = [e for e in seen if str(getattr(e, "src_path", "")) == str(log)]
        assert reads  # opened and closed, three times
        assert not any(changes(e) for e in reads)
        append(log, b"{}\n")
        until(lambda: any(changes(e) and str(e.src_path) == str(log) for e in seen), "a change")
    finally:
        observer.stop()
        observer.join(timeout=5)


def _touched(path: Path, seen: list[object]) -> bool:
    path.touch()  # again until the observer, started in the background, sees one
    return any(str(getattr(e, "src_path", "")) == str(path) for e in seen)


def _appended(log: Path, done: threading.Event) -> bool:
    append(log, b"\n")  # again until the observer, started in the background, sees one
    return done.wait(0.05)


def test_a_line_longer_than_the_input_cap_stops_the_run_as_a_batch_run_does(
    tmp_path: Path,
) -> None:
    log = tmp_path / "r.jsonl"
    log.write_bytes(b"x" * 3000)  # a line with no end, growing past the cap
    config = FollowConfig(
        (str(log),), (), (), OPTIONS, str(tmp_path / "state.db"), batch_bytes=500, max_input=1000
    )
    follower = Follower(config)
    with pytest.raises(LineTooLarge, match="longer than 1000 bytes"):
        follower.step()
    follower.close()


def test_each_file_under_a_rotated_name_keeps_its_own_lines_in_the_store(tmp_path: Path) -> None:
    log = tmp_path / "r.jsonl"
    lines = plain_receipts(3)
    log.write_bytes(lines[0] + b"\n")
    follower = _follower(tmp_path, logs=(str(log),))
    _events(follower)
    os.rename(log, tmp_path / "r.jsonl.1")
    log.write_bytes(lines[1] + b"\n")
    _events(follower)
    judged = follower.store.judged()
    follower.close()
    assert judged == {
        (f"{log}#0", f"{log}:1"): ("VERIFIED", 1),
        (f"{log}#1", f"{log}:1"): ("VERIFIED", 1),
    }


def test_an_older_rotated_file_beginning_alike_is_not_taken_for_a_copy(tmp_path: Path) -> None:
    # Receipts begin with the same bytes, so a file rewritten in place must not be "drained"
    # from an older rotated file that merely starts like it: the last line read must match.
    log = tmp_path / "r.jsonl"
    lines = plain_receipts(4)
    (tmp_path / "r.jsonl.1").write_bytes(lines[0] + b"\n" + lines[2] + b"\n" + lines[3] + b"\n")
    log.write_bytes(lines[0] + b"\n" + lines[1] + b"\n")
    follower = _follower(tmp_path, logs=(str(log),))
    _events(follower)
    with log.open("r+b") as handle:
        handle.truncate(len(lines[0]) + 1)  # the second receipt cut away, no copy made
    events = _events(follower)
    follower.close()
    assert _findings(events) == ["follow.truncated"]
    assert _subjects(events) == {}


def test_an_unreadable_attestation_side_file_is_a_finding_not_a_pass(tmp_path: Path) -> None:
    folder = tmp_path / "receipts"
    folder.mkdir()
    (folder / "a.json").write_bytes(plain_receipts(1)[0])
    (folder / "a.json.partition.json").write_bytes(b"{not json")
    follower = _follower(tmp_path, folders=(str(folder),))
    events = _events(follower)
    judged = follower.store.judged()
    follower.close()
    assert _findings(events) == ["follow.side-file"] and _subjects(events) == {}
    assert judged == {(str(folder), f"{folder}/a.json"): ("unreadable", 1)}


def test_directory_files_that_land_together_are_judged_in_claimed_order(tmp_path: Path) -> None:
    folder = tmp_path / "receipts"
    folder.mkdir()
    (folder / "b.json").write_bytes(session_call(6, 2, 2))  # written first, claims call 2
    os.utime(folder / "b.json", ns=(1_000_000_000, 1_000_000_000))
    (folder / "a.json").write_bytes(session_call(6, 1, 1))
    follower = _follower(tmp_path, folders=(str(folder),))
    events = _events(follower)
    follower.close()
    assert _subjects(events) == batch_outcomes(str(folder))
    assert _subjects(events)[f"{folder}/b.json"] == "FAIL"  # judged after the first call


def test_a_state_file_of_a_newer_schema_is_refused_and_left_alone(tmp_path: Path) -> None:
    import sqlite3

    state = tmp_path / "state.db"
    db = sqlite3.connect(state)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(HistoryError, match="newer"):
        _follower(tmp_path, logs=(str(tmp_path / "r.jsonl"),))
    db = sqlite3.connect(state)
    tables = db.execute("SELECT name FROM sqlite_master").fetchall()
    db.close()
    assert tables == []


def _contested(tmp_path: Path) -> tuple[bytes, bytes]:
    """Session 5's first call, and a copy of it relabelled to session 6 and re-signed."""
    first = session_call(5, 1, 1)
    return first, relabelled(first, 6)


def test_one_operation_in_two_sessions_fails_both_halves_live(tmp_path: Path) -> None:
    # Each half alone is an honest-looking first call; a batch run over the log fails both.
    first, copy = _contested(tmp_path)
    log = tmp_path / "r.jsonl"
    append(log, first + b"\n")
    follower = _follower(tmp_path, logs=(str(log),))
    assert _subjects(_events(follower)) == {f"{log}:1": "VERIFIED"}
    append(log, copy + b"\n")
    events = _events(follower)
    assert _subjects(events) == {f"{log}:2": "FAIL"}
    again = [e for e in events if e["type"] == "finding" and e["id"] == "replay.decision"]
    assert [(e["location"], e["status"]) for e in again] == [(f"{log}:1", "fail")]
    assert "is in session seal-host-rs/stdio:9005" in str(again[0]["reason"])
    judged = follower.store.judged()
    follower.close()
    batch = batch_outcomes(str(log))
    assert batch == {f"{log}:1": "FAIL", f"{log}:2": "FAIL"}
    assert {s: o for (_, s), (o, _) in judged.items()} == batch


def test_one_operation_in_two_sessions_fails_across_inputs_and_a_restart(tmp_path: Path) -> None:
    first, copy = _contested(tmp_path)
    log, folder = tmp_path / "a.jsonl", tmp_path / "receipts"
    folder.mkdir()
    append(log, first + b"\n")
    before = _follower(tmp_path, logs=(str(log),), folders=(str(folder),))
    assert _subjects(_events(before)) == {f"{log}:1": "VERIFIED"}
    before.close()
    (folder / "copy.json").write_bytes(copy)
    after = _follower(tmp_path, logs=(str(log),), folders=(str(folder),))
    events = _events(after)
    assert set(_subjects(events).values()) == {"FAIL"}
    again = [e for e in events if e["type"] == "finding" and e["id"] == "replay.decision"]
    assert [e["location"] for e in again] == [f"{log}:1"]
    outcomes = {s: o for (_, s), (o, _) in after.store.judged().items()}
    after.close()
    assert outcomes == {f"{log}:1": "FAIL", str(folder / "copy.json"): "FAIL"}
    assert outcomes == batch_outcomes(str(log), str(folder))


def test_copies_of_one_call_in_one_session_are_not_contested_live(tmp_path: Path) -> None:
    first, _ = _contested(tmp_path)
    log = tmp_path / "r.jsonl"
    follower = _follower(tmp_path, logs=(str(log),))
    for _ in range(2):
        append(log, first + b"\n")
        _events(follower)
    outcomes = {s: o for (_, s), (o, _) in follower.store.judged().items()}
    follower.close()
    assert outcomes == batch_outcomes(str(log)) == {f"{log}:1": "VERIFIED", f"{log}:2": "VERIFIED"}


def _replays(events: list[dict[str, object]]) -> dict[str, tuple[str, str]]:
    return {
        str(e["name"]): next(
            (str(c["status"]), str(c["reason"]))
            for c in e["checks"]  # type: ignore[attr-defined]
            if c["id"] == "replay.decision"
        )
        for e in events
        if e["type"] == "subject"
    }


def test_a_session_pass_dropped_from_memory_is_rebuilt_the_same(tmp_path: Path) -> None:
    # Session passes beyond the bound are dropped and rebuilt from the store when their session
    # comes back: the same re-derivations as a follower that kept every pass.
    calls = [(3, 1, 1), (3, 2, 2), (4, 1, 1), (4, 2, 2), (3, 3, 3), (4, 3, 3), (3, 4, 2)]
    seen = []
    for bound in (1, 4096):
        root = tmp_path / str(bound)
        root.mkdir()
        log = root / "r.jsonl"
        follower = _follower(root, logs=(str(log),))
        follower.judge.open_sessions = bound
        replays: dict[str, tuple[str, str]] = {}
        for call in calls:
            append(log, session_call(*call) + b"\n")
            replays.update(_replays(_events(follower)))
            assert len(follower.judge._open) <= bound
        follower.close()
        seen.append({name.rsplit(":", 1)[1]: r for name, r in replays.items()})
        assert {n: o for n, o in batch_outcomes(str(log)).items()} == {
            f"{log}:{n}": o for n, o in zip(range(1, 8), _outcomes(root, log), strict=True)
        }
    assert seen[0] == seen[1]
    assert [s for s, _ in seen[0].values()].count("fail") >= 2


def _outcomes(root: Path, log: Path) -> list[str]:
    follower = _follower(root, logs=(str(log),))
    judged = follower.store.judged()
    follower.close()
    return [judged[f"{log}#0", f"{log}:{n}"][0] for n in range(1, 8)]


def test_a_postgresql_store_fails_both_halves_of_a_contested_operation(
    tmp_path: Path, pg_database: str
) -> None:
    first, copy = _contested(tmp_path)
    log = tmp_path / "r.jsonl"
    append(log, first + b"\n" + first + b"\n")  # a copy in its own session: no contest

    def follower() -> Follower:
        return Follower(FollowConfig((str(log),), (), (), OPTIONS, pg_database))

    before = follower()
    assert set(_subjects(_events(before)).values()) == {"VERIFIED"}
    before.close()
    append(log, copy + b"\n")
    after = follower()
    events = _events(after)
    judged = after.store.judged()
    after.close()
    assert _subjects(events) == {f"{log}:3": "FAIL"}
    again = [
        e["location"] for e in events if e["type"] == "finding" and e["id"] == "replay.decision"
    ]
    assert again == [f"{log}:1", f"{log}:2"]
    assert {s: o for (_, s), (o, _) in judged.items()} == batch_outcomes(str(log))
    assert sorted(n for _, n in judged.values()) == [1, 1, 1]


def test_each_receipt_is_read_strictly_once_for_its_session_and_its_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The follower's strict reading of a session receipt is the one the verifier checks.

    Counted where either reads a receipt's bytes strictly: the verifier's
    ``read_document`` and the session pass's own parse; each receipt is read once, but a
    session's first call, judged alone, which is read once more from the store when the
    session's second call lands (here in the directory: one pass across the inputs).
    """
    from sealverify._internal.follow import judge
    from sealverify._internal.receipts import families, verify
    from sealverify._internal.wire import strictjson

    lines = [session_call(3, 1, 1), session_call(4, 1, 1), session_call(4, 2, 2)]
    reads: list[bytes] = []

    def counted(read: Callable[..., object]) -> Callable[..., object]:
        def wrapper(data: bytes, *rest: object) -> object:
            reads.append(data.rstrip(b"\r\n"))
            return read(data, *rest)

        return wrapper

    for module, name, read in (
        (verify, "read_document", families.read_document),
        (judge, "read_document", families.read_document),
        (judge, "parse_bytes", strictjson.parse_bytes),
    ):
        monkeypatch.setattr(module, name, counted(read), raising=False)
    log, folder = tmp_path / "r.jsonl", tmp_path / "receipts"
    folder.mkdir()
    follower = _follower(tmp_path, logs=(str(log),), folders=(str(folder),))
    append(log, b"\n".join(lines[:2]) + b"\n")
    assert list(_subjects(_events(follower)).values()) == ["VERIFIED", "VERIFIED"]
    (folder / "a.json").write_bytes(lines[2])
    assert len(_subjects(_events(follower))) == 1
    follower.close()
    assert sorted(reads) == sorted([*lines, lines[1]])


@pytest.mark.parametrize("pinned", [False, True])
def test_history_learns_live_only_what_a_batch_run_learns(tmp_path: Path, pinned: bool) -> None:
    """Only an established receipt (VERIFIED under pinned, unpublished keys) teaches history.

    The minted receipts cycle config epochs: were each UNPINNED receipt (or one verified
    only under ``--allow-published-keys``) to raise the epoch's high water, the later lower
    epochs would fail as rollbacks live, where a batch ``verify --state`` of the same log
    finds none: a receipt nobody vouches for must not mark an honest one as replayed.
    """
    log = tmp_path / "r.jsonl"
    log.write_bytes(b"".join(line + b"\n" for line in plain_receipts(8)))
    options = OPTIONS if pinned else VerifyOptions(allow_published_keys=True)
    config = FollowConfig((str(log),), (), (), options, str(tmp_path / "follow.db"))
    follower = Follower(config)
    live = _events(follower)
    follower.close()
    args = [*PIN_ARGS] if pinned else ["--allow-published-keys"]
    done = CliRunner().invoke(
        cli,
        ["verify", str(log), *args, "--state", str(tmp_path / "batch.db"), "--format", "jsonl"],
    )
    assert done.exit_code in (0, 1, 3, 4), done.output
    batch = [json.loads(line) for line in done.stdout.splitlines()]

    def failed(events: list[dict[str, object]]) -> list[tuple[str, str]]:
        found = [e for e in events if e["type"] == "finding" and e["status"] == "fail"]
        return sorted((str(e["id"]), str(e["location"]).rsplit(":", 1)[-1]) for e in found)

    assert len(_subjects(live)) == 8
    assert failed(live) == failed(batch)
