"""``--state`` on PostgreSQL (a real server) and SQLite: concurrent runs, interrupts, faults.

Concurrent writers never lose or double-count a spent nonce or an epoch: runs that share a
database are serialised from their first history read to their commit, so of several runs
spending one nonce with different decisions exactly one finds it fresh. An interrupted run
(SIGINT) leaves the database as it was, and a new SQLite file is not created at all.
"""

from __future__ import annotations

import json
import multiprocessing
import signal
import socket
import subprocess
import sys
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.history import databases
from sealverify._internal.history.state import HistoryError, HistoryStore, ReceiptFacts
from tests.helpers.fleet_services import env, pg_database, pg_url
from tests.helpers.history import host_log
from tests.helpers.history_learning import unpublished_evidence
from tests.helpers.verify_perf import DEMO, TRUST

__all__ = ["pg_database", "pg_url"]  # the fixtures, imported for their tests

WRITERS = 4


def _facts(number: int) -> ReceiptFacts:
    """Run ``number``'s receipt: it spends nonce "n" with its own decision, epoch ``number``."""
    return ReceiptFacts(
        f"run-{number}.json",
        operation_id=f"op-{number}",
        identity=f"decision-{number}",
        nonce="n",
        config_signer="signer",
        config_epoch=number,
    )


def _spend(
    where: str, number: int, queue: multiprocessing.Queue[tuple[int, dict[str, str]]]
) -> None:
    """One run: spend nonce "n" with its own decision and report epoch ``number``."""
    with HistoryStore(where) as store:
        checks = store.check_and_stage([_facts(number)])
        store.commit()
    queue.put((number, {c.id: c.status for c in checks}))


def _spend_once_all_opened(
    where: str,
    number: int,
    queue: multiprocessing.Queue[tuple[int, dict[str, str]]],
    opened: Barrier,
) -> None:
    """:func:`_spend`, but every run has opened the store before any of them checks."""
    with HistoryStore(where) as store:
        opened.wait(timeout=120)
        checks = store.check_and_stage([_facts(number)])
        store.commit()
    queue.put((number, {c.id: c.status for c in checks}))


def _concurrent(where: str, all_opened_first: bool = False) -> list[tuple[int, dict[str, str]]]:
    context = multiprocessing.get_context("spawn")
    queue: multiprocessing.Queue[tuple[int, dict[str, str]]] = context.Queue()
    if all_opened_first:
        opened = context.Barrier(WRITERS)
        procs = [
            context.Process(target=_spend_once_all_opened, args=(where, n, queue, opened))
            for n in range(1, WRITERS + 1)
        ]
    else:
        procs = [
            context.Process(target=_spend, args=(where, n, queue)) for n in range(1, WRITERS + 1)
        ]
    for proc in procs:
        proc.start()
    outcomes = [queue.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    return outcomes


def _assert_serialised(
    outcomes: list[tuple[int, dict[str, str]]], where: str, runs_before: int = 0
) -> None:
    fresh = [n for n, checks in outcomes if checks.get("history.nonce") == "pass"]
    replayed = [n for n, checks in outcomes if checks.get("history.nonce-replayed") == "fail"]
    assert len(fresh) == 1 and len(replayed) == WRITERS - 1
    with HistoryStore(where) as store:
        assert store.runs == runs_before + WRITERS
        spent = store._db.one("SELECT COUNT(*), MIN(identity) FROM nonces")
        assert spent == (1, f"decision-{fresh[0]}")  # the run that found it fresh spent it
        epoch = store._db.one("SELECT epoch FROM config_epochs WHERE signer = 'signer'")
        assert epoch == (WRITERS,)  # the high-water mark only rises


def test_concurrent_runs_on_postgresql(pg_database: str) -> None:
    _assert_serialised(_concurrent(pg_database), pg_database)


def test_concurrent_runs_on_one_sqlite_file(tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite"
    with HistoryStore(db) as store:
        store.commit()  # an existing file: the runs below share its lock
    _assert_serialised(_concurrent(str(db)), str(db), runs_before=1)


def test_concurrent_runs_creating_one_new_sqlite_file(tmp_path: Path) -> None:
    # Every run opens the store while the file does not exist yet, then all check at once:
    # the folder's lock makes them take turns, and each later run reads the file the first
    # one created, so exactly one finds the nonce fresh.
    db = tmp_path / "state.sqlite"
    _assert_serialised(_concurrent(str(db), all_opened_first=True), str(db))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.sqlite"]  # nothing left beside


def _cli(*args: str, **kwargs: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from sealverify._internal.cli.main import main; main()",
            "verify",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
        **kwargs,  # type: ignore[call-overload]
    )


def _rows(where: str) -> tuple[int, ...]:
    with HistoryStore(where) as store:
        counts = [store._db.one(f"SELECT COUNT(*) FROM {t}") for t in _TABLES]
    return tuple(int(c[0]) if c else -1 for c in counts)


_TABLES = ("nonces", "operations", "config_epochs", "runs")


def test_concurrent_cli_runs_share_one_postgresql_history(pg_database: str, tmp_path: Path) -> None:
    # Receipts VERIFIED under keys no one has published: the only ones history learns from.
    pins = unpublished_evidence(tmp_path / "receipts")
    args = [str(tmp_path / "receipts"), *pins, "--format", "json"]
    alone = tmp_path / "alone.sqlite"
    reference = CliRunner().invoke(cli, ["verify", *args, "--state", str(alone)])
    # Each run writes its report to a file: a run holds the history lock until its report is
    # written, so a pipe nobody reads would stall the others.
    outputs = [tmp_path / f"run-{n}.json" for n in range(WRITERS)]
    procs = [_cli(*args, "--state", pg_database, "--output", str(out)) for out in outputs]
    errs = [proc.communicate(timeout=300)[1] for proc in procs]
    assert [p.returncode for p in procs] == [reference.exit_code] * WRITERS, errs[0]
    *facts, runs = _rows(pg_database)
    *expected, _ = _rows(str(alone))
    assert facts == expected and runs == WRITERS  # nothing doubled, nothing lost
    # One run went first and reports as a first run; the others as a later run does.
    alone.rename(tmp_path / "later.sqlite")
    later = CliRunner().invoke(cli, ["verify", *args, "--state", str(tmp_path / "later.sqlite")])
    assert later.stdout != reference.stdout
    reports = sorted(out.read_text() for out in outputs)
    assert reports == sorted([reference.stdout] + [later.stdout] * (WRITERS - 1))


def test_an_unreachable_database_exits_2_with_the_password_hidden(tmp_path: Path) -> None:
    pytest.importorskip("psycopg", reason="the postgres extra is not installed")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    out = tmp_path / "r.json"
    url = f"postgresql://fleet:s3cret@127.0.0.1:{port}/history"
    result = CliRunner().invoke(
        cli, ["verify", str(DEMO / "receipts"), "--state", url, "--output", str(out)]
    )
    assert result.exit_code == 2
    assert f"postgresql://fleet@127.0.0.1:{port}/history: cannot connect" in result.output
    assert "s3cret" not in result.output and not out.exists()


def test_a_missing_postgres_extra_is_a_one_line_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)
    result = CliRunner().invoke(
        cli, ["verify", str(DEMO / "receipts"), "--state", "postgresql://h/d"]
    )
    assert result.exit_code == 2
    assert (
        "pip install 'sealverify[postgres]'" in result.output and "Traceback" not in result.output
    )


def test_a_newer_postgresql_schema_is_refused(pg_database: str) -> None:
    import psycopg

    with psycopg.connect(pg_database, autocommit=True) as db:
        db.execute("CREATE TABLE sealverify_schema (version INTEGER NOT NULL)")
        db.execute("INSERT INTO sealverify_schema VALUES (99)")
    with pytest.raises(HistoryError, match="newer"):
        HistoryStore(pg_database)


def test_the_postgresql_history_remembers_across_runs(pg_database: str) -> None:
    spent = ReceiptFacts("a.json", operation_id="a", identity="i-a", nonce="n")
    with HistoryStore(pg_database) as store:
        assert store.check_and_stage([spent])[0].status == "pass"
        store.commit()
    other = ReceiptFacts("b.json", operation_id="b", identity="i-b", nonce="n")
    with HistoryStore(pg_database) as store:
        assert store.check_and_stage([other])[0].id == "history.nonce-replayed"
    with HistoryStore(pg_database) as store:  # the failed run above committed nothing
        assert store.runs == 1


class _Silent:
    """A TCP server that accepts and never answers: a run waiting on its cluster."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"

    def wait_for_a_client(self) -> socket.socket:
        self.sock.settimeout(120)
        return self.sock.accept()[0]


@pytest.mark.parametrize("existing", [False, True])
def test_sigint_leaves_the_sqlite_state_as_it_was(existing: bool, tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    state = tmp_path / "state.sqlite"
    args = [str(DEMO / "receipts"), "--trust", str(TRUST), "--state", str(state)]
    if existing:
        assert CliRunner().invoke(cli, ["verify", *args]).exit_code == 1
    before = state.read_bytes() if existing else None
    silent = _Silent()
    proc = _cli(*args, "--cluster", silent.address)
    peer = silent.wait_for_a_client()  # the run is under way: its state was opened before
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    peer.close()
    assert proc.returncode == 130, err
    assert (state.read_bytes() if state.exists() else None) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == (["state.sqlite"] if existing else [])


def test_sigint_commits_nothing_to_postgresql(pg_database: str) -> None:
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    args = [str(DEMO / "receipts"), "--trust", str(TRUST), "--state", pg_database]
    silent = _Silent()
    proc = _cli(*args, "--cluster", silent.address)
    peer = silent.wait_for_a_client()
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    peer.close()
    assert proc.returncode == 130
    with HistoryStore(pg_database) as store:
        assert store.runs == 0


def test_database_urls_are_told_from_paths() -> None:
    assert databases.is_database_url("postgresql://u@h/d")
    assert databases.is_database_url("postgres://u:p@h:5432/d")
    assert not databases.is_database_url("state.sqlite")
    assert databases.redacted("postgresql://u:p@h/d") == "postgresql://u@h/d"


def test_chain_state_on_postgresql_catches_truncation_as_sqlite_does(
    pg_database: str, tmp_path: Path
) -> None:
    full, heads = host_log(4)
    cut, _ = host_log(2)
    (tmp_path / "full.log").write_bytes(full)
    (tmp_path / "cut.log").write_bytes(cut)
    reports = {}
    with HistoryStore(pg_database) as store:
        assert store.recorded_head() is None
    for label, where in (("pg", pg_database), ("sqlite", str(tmp_path / "state.sqlite"))):
        runner = CliRunner()
        first = runner.invoke(cli, ["chain", str(tmp_path / "full.log"), "--state", where])
        assert first.exit_code == 3, first.output  # intact; no anchor for the run itself
        with HistoryStore(Path(where) if label == "sqlite" else where) as store:
            assert store.recorded_head() == heads[-1]  # the head went to this very database
        second = runner.invoke(
            cli, ["chain", str(tmp_path / "cut.log"), "--state", where, "--format", "json"]
        )
        assert second.exit_code == 1, second.output
        reports[label] = json.loads(second.stdout)
    history = {
        label: next(s for s in report["subjects"] if s["name"].startswith("history"))
        for label, report in reports.items()
    }
    assert history["pg"]["checks"][0]["id"] == "history.chain-discontinuity"
    assert history["pg"]["checks"] == history["sqlite"]["checks"]
    assert "password" not in history["pg"]["name"] and history["sqlite"]["name"] == (
        "history: state.sqlite"
    )
