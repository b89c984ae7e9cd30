"""``verify --follow`` as real processes: kill -9 and resume, SIGTERM, --on-fail, metrics.

The kill-and-resume test runs a writer process that appends receipts minted by the testkit
(to a JSONL log, a line sometimes in two writes, and as files in a receipt directory) while
the follower is started and killed with SIGKILL at random points, again and again; at the
end one more follower catches up and is stopped with SIGTERM, and what the store holds must
equal one batch ``verify`` of the final files, each receipt judged into the store exactly
once. ``SEALVERIFY_FOLLOW_KILLS`` sets the number of kills (50 by default, so CI stays near
a minute; set it to some hundreds for a longer run). Nothing waits on the clock to pass:
every wait polls a condition with a deadline.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from sealverify_testkit import auditlog

from tests.helpers.follow_support import (
    LONG,
    PIN_ARGS,
    append,
    batch_outcomes,
    plain_receipts,
    session_call,
    until,
)

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("SEALVERIFY_FOLLOW_KILLS", "50"))

_WRITER = """
import os, sys, time
source, log, folder, pause = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
chain_source, chain = sys.argv[5], sys.argv[6]
lines = open(source, "rb").read().split(b"\\n")[:-1]
records = open(chain_source, "rb").read().split(b"\\n")[:-1]
for index, line in enumerate(lines):
    with open(chain, "ab") as handle:  # the decision's audit payload, then its chain record
        for written in records[3 * index : 3 * index + 3]:
            handle.write(written + b"\\n")
            handle.flush()
    if index % 5 == 4:  # every fifth receipt is a file of the receipt directory
        temp = os.path.join(folder, ".%d.tmp" % index)
        with open(temp, "wb") as handle:
            handle.write(line)
        os.rename(temp, os.path.join(folder, "%04d.json" % index))
    else:
        with open(log, "ab") as handle:
            cut = len(line) // 2 if index % 3 == 0 else len(line)
            handle.write(line[:cut])
            handle.flush()
            handle.write(line[cut:] + b"\\n")
    time.sleep(pause)
"""


def _follower(tmp_path: Path, *extra: str, out: Path | None = None) -> subprocess.Popen[bytes]:
    args = [
        sys.executable, "-m", "sealverify", "verify", "--follow",
        str(tmp_path / "r.jsonl"), str(tmp_path / "receipts"),
        "--state", str(tmp_path / "state.db"), *PIN_ARGS, "--poll-interval", "0.05", *extra,
    ]  # fmt: skip
    with (
        (out or tmp_path / "events.jsonl").open("ab") as sink,
        (tmp_path / "stderr.txt").open("wb") as diagnostics,
    ):
        return subprocess.Popen(args, cwd=ROOT, stdout=sink, stderr=diagnostics)


def _started(tmp_path: Path) -> bool:
    """Whether the follower said it follows (its signal handlers are in place by then)."""
    return b"following" in (tmp_path / "stderr.txt").read_bytes()


def _rows(tmp_path: Path) -> list[tuple[str, str, str, int]]:
    """The stored subjects: (source, subject, outcome, times judged)."""
    db_path = tmp_path / "state.db"
    if not db_path.exists():
        return []
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
    try:
        rows = db.execute("SELECT source, subject, outcome, judged FROM follow_subjects").fetchall()
    except sqlite3.OperationalError:
        return []  # the tables are not made yet
    finally:
        db.close()
    return [(str(src), str(s), str(o), int(n)) for src, s, o, n in rows]


def _stored(tmp_path: Path) -> dict[str, tuple[str, int]]:
    """The stored subjects by name (inputs that are never rotated: one source per name)."""
    rows = _rows(tmp_path)
    assert len({s for _, s, _, _ in rows}) == len(rows), "a subject stored under two sources"
    return {s: (o, n) for _, s, o, n in rows}


def _chain_head(tmp_path: Path) -> str | None:
    """The chain head in the committed checkpoint."""
    db = sqlite3.connect(f"file:{tmp_path / 'state.db'}?mode=ro", uri=True, timeout=30)
    try:
        rows = db.execute("SELECT body FROM follow_checkpoints").fetchall()
    finally:
        db.close()
    return json.loads(rows[0][0])["chain"]["head"] if rows else None


def _source(tmp_path: Path, count: int) -> list[bytes]:
    """Receipts in the order written: plain ones, sessions whose second call is forged, and
    sessions of four honest calls spread out (a kill between them resumes a session state).

    Each session spans the log and the directory (the writer makes every fifth line, index 4
    modulo 5, a directory file), as a batch run re-derives it across both: a forged second call
    is a directory file, and so is an honest session's fourth call.
    """
    sessions = max(1, count // 80)  # of four honest calls each
    lines = plain_receipts(count + 16 * sessions)
    lines, spacers = lines[:count], lines[count:]
    for session in range(count // 20):
        at = 3 + session * 20
        lines.insert(at, session_call(session, 1, 1))
        lines.insert(at + 6, session_call(session, 2, 2))  # a directory file
    # In blocks of five so no other receipt changes its place (file or log line).
    honest = [
        session_call(session, call, call, config=LONG)
        for call in range(1, 5)
        for session in range(100, 100 + sessions)
    ]
    for block, line in enumerate(honest):
        at = min(5 * (1 + 3 * block), len(lines) - len(lines) % 5)
        last = block >= len(honest) - sessions  # a fourth call: into the directory
        spaced = spacers[4 * block : 4 * block + 4]
        lines[at:at] = [*spaced, line] if last else [line, *spaced]
    (tmp_path / "source.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    (tmp_path / "receipts").mkdir()
    return lines


def test_kill_and_resume_stores_exactly_the_batch_outcomes(tmp_path: Path) -> None:
    seed = int(os.environ.get("SEALVERIFY_FOLLOW_SEED", "0")) or random.randrange(1 << 30)
    rng = random.Random(seed)
    lines = _source(tmp_path, 4 * KILLS)
    chain = auditlog.chain_log([auditlog.audit_payload(i) for i in range(len(lines))])
    (tmp_path / "chain-source.log").write_bytes(chain)
    chain_log = tmp_path / "stderr.log"
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(tmp_path / "source.jsonl"),
         str(tmp_path / "r.jsonl"), str(tmp_path / "receipts"), "0.12",
         str(tmp_path / "chain-source.log"), str(chain_log)],
    )  # fmt: skip
    for _ in range(KILLS):
        follower = _follower(tmp_path, "--chain", str(chain_log))
        # A random kill point: after 0.2 to 1 s (start-up, reading, verifying, committing).
        with contextlib.suppress(subprocess.TimeoutExpired):
            follower.wait(timeout=rng.uniform(0.2, 1.0))
        assert follower.poll() is None, (tmp_path / "stderr.txt").read_text()
        follower.send_signal(signal.SIGKILL)
        follower.wait()
    assert writer.wait(timeout=120) == 0
    final = _follower(tmp_path, "--chain", str(chain_log))
    until(lambda: _started(tmp_path), "the follower to start")
    until(lambda: len(_stored(tmp_path)) == len(lines), f"all {len(lines)} receipts (seed {seed})")
    last_head = json.loads(chain.splitlines()[-2])["head"]  # the last record, before its note
    until(lambda: _chain_head(tmp_path) == last_head, f"the chain's last head (seed {seed})")
    final.send_signal(signal.SIGTERM)
    assert final.wait(timeout=60) == 0
    findings = [e for e in _events_of(tmp_path / "events.jsonl") if e["type"] == "finding"]
    assert not [e for e in findings if str(e["id"]).startswith(("chain.", "follow."))], seed
    stored = _stored(tmp_path)
    expected = batch_outcomes(str(tmp_path / "r.jsonl"), str(tmp_path / "receipts"))
    assert {name: outcome for name, (outcome, _) in stored.items()} == expected, seed
    assert {judged for _, judged in stored.values()} == {1}, seed
    assert "FAIL" in expected.values()  # the forged later calls
    folder = str(tmp_path / "receipts")
    spanning = [o for name, o in expected.items() if name.startswith(folder)]
    assert spanning.count("FAIL") == 4 * KILLS // 20, seed  # each forged call, a file


def test_sigterm_commits_and_exits_zero_and_a_restart_emits_nothing_again(
    tmp_path: Path,
) -> None:
    (tmp_path / "receipts").mkdir()
    log = tmp_path / "r.jsonl"
    log.write_bytes(b"".join(line + b"\n" for line in plain_receipts(3)))
    first = _follower(tmp_path)
    until(lambda: _started(tmp_path), "the follower to start")
    until(lambda: len(_stored(tmp_path)) == 3, "three receipts stored")
    first.send_signal(signal.SIGTERM)
    assert first.wait(timeout=60) == 0
    events = (tmp_path / "events.jsonl").read_bytes().splitlines()
    subjects = [json.loads(e) for e in events if e.startswith(b'{"type":"subject"')]
    assert [s["input"]["line"] for s in subjects] == [1, 2, 3]
    assert all(s["time"].endswith("Z") for s in subjects)
    append(log, plain_receipts(1, seed=b"later")[0] + b"\n")
    second = _follower(tmp_path, out=tmp_path / "second.jsonl")
    until(lambda: _started(tmp_path), "the follower to start")
    until(lambda: len(_stored(tmp_path)) == 4, "the fourth receipt stored")
    second.send_signal(signal.SIGTERM)
    assert second.wait(timeout=60) == 0
    again = (tmp_path / "second.jsonl").read_bytes().splitlines()
    assert [json.loads(e)["input"]["line"] for e in again if b'"subject"' in e[:20]] == [4]


def test_exit_on_fail_and_on_fail_get_the_failed_event(tmp_path: Path) -> None:
    (tmp_path / "receipts").mkdir()
    log = tmp_path / "r.jsonl"
    log.write_bytes(session_call(40, 1, 1) + b"\n" + session_call(40, 2, 2) + b"\n")
    hook = tmp_path / "hook.jsonl"
    script = f"import sys; open({str(hook)!r}, 'ab').write(sys.stdin.buffer.read())"
    command = f'{sys.executable} -c "{script}"'
    follower = _follower(tmp_path, "--exit-on-fail", "--on-fail", command)
    assert follower.wait(timeout=120) == 1
    events = [json.loads(line) for line in hook.read_bytes().splitlines()]
    assert [(e["name"], e["outcome"]) for e in events] == [(f"{log}:2", "FAIL")]
    assert _stored(tmp_path)[f"{log}:2"] == ("FAIL", 1)  # committed before the exit


def test_metrics_are_served_on_localhost(tmp_path: Path) -> None:
    pytest.importorskip("prometheus_client")
    (tmp_path / "receipts").mkdir()
    (tmp_path / "r.jsonl").write_bytes(b"".join(x + b"\n" for x in plain_receipts(2)))
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    follower = _follower(tmp_path, "--metrics-port", str(port))
    until(lambda: _started(tmp_path), "the follower to start")
    text = ""

    def scraped() -> bool:
        nonlocal text
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as page:
                text = page.read().decode()
        except OSError:
            return False
        return "sealverify_follow_receipts_total" in text and 'outcome="' in text

    until(scraped, "the metrics endpoint")
    follower.send_signal(signal.SIGTERM)
    assert follower.wait(timeout=60) == 0
    assert "sealverify_follow_last_checkpoint_timestamp_seconds" in text
    assert f'sealverify_follow_lag_bytes{{input="{tmp_path / "r.jsonl"}"}}' in text


def test_sighup_keeps_the_follower_running_and_reading(tmp_path: Path) -> None:
    (tmp_path / "receipts").mkdir()
    log = tmp_path / "r.jsonl"
    receipts = plain_receipts(2)
    log.write_bytes(receipts[0] + b"\n")
    follower = _follower(tmp_path)
    until(lambda: _started(tmp_path), "the follower to start")
    until(lambda: len(_stored(tmp_path)) == 1, "the first receipt stored")
    follower.send_signal(signal.SIGHUP)
    (tmp_path / "receipts" / "a.json").write_bytes(receipts[1])
    until(lambda: len(_stored(tmp_path)) == 2, "the directory file stored after SIGHUP")
    assert follower.poll() is None
    follower.send_signal(signal.SIGTERM)
    assert follower.wait(timeout=60) == 0


_ROTATING_WRITER = """
import os, shutil, sys, time
source, log, pause = sys.argv[1], sys.argv[2], float(sys.argv[3])
lines = open(source, "rb").read().split(b"\\n")[:-1]
for index, line in enumerate(lines):
    if index == len(lines) // 3:  # logrotate's default: rename, then the host makes a new file
        os.rename(log, log + ".1")
    if index == 2 * len(lines) // 3:  # logrotate's copytruncate
        shutil.copyfile(log, log + ".2")
        with open(log, "r+b") as handle:
            handle.truncate(0)
    with open(log, "ab") as handle:
        handle.write(line + b"\\n")
    time.sleep(pause)
"""


def _events_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.endswith(b"}")]


def test_rotations_and_a_cut_under_a_running_follower(tmp_path: Path) -> None:
    import hashlib

    (tmp_path / "receipts").mkdir()
    lines = plain_receipts(30, seed=b"rotate")
    (tmp_path / "source.jsonl").write_bytes(b"".join(x + b"\n" for x in lines))
    log = tmp_path / "r.jsonl"
    log.touch()
    follower = _follower(tmp_path)
    until(lambda: _started(tmp_path), "the follower to start")
    writer = subprocess.run(
        [sys.executable, "-c", _ROTATING_WRITER, str(tmp_path / "source.jsonl"), str(log), "0.03"],
        check=True,
    )
    assert writer.returncode == 0
    until(lambda: len(_rows(tmp_path)) == len(lines), "every receipt stored")
    db = sqlite3.connect(tmp_path / "state.db")
    rows = db.execute("SELECT source, digest, judged FROM follow_subjects").fetchall()
    db.close()
    assert sorted(d for _, d, _ in rows) == sorted(hashlib.sha256(x).hexdigest() for x in lines)
    assert {j for _, _, j in rows} == {1}
    assert {s for s, _, _ in rows} == {f"{log}#0", f"{log}#1", f"{log}#2"}
    events = tmp_path / "events.jsonl"
    assert not [e for e in _events_of(events) if str(e.get("id", "")).startswith("follow.")]
    with log.open("r+b") as handle:  # the last receipt deleted from the live log
        handle.truncate(log.stat().st_size - len(lines[-1]) - 1)

    def cut_found() -> bool:
        return any(e.get("id") == "follow.truncated" for e in _events_of(events))

    until(cut_found, "the follower to report the cut")
    follower.send_signal(signal.SIGTERM)
    assert follower.wait(timeout=60) == 0
