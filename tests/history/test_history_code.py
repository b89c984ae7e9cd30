"""A ``--state`` file runs no code of its own: triggers, views and foreign objects are exit 2.

An attacker who can write the history file can add a trigger on ``runs`` that fires on the
run's commit, or a view a read runs: an endless recursive query there kept ``verify --state``
and ``chain --state`` busy for ever after their report, holding the write lock. The file is
refused when it is opened (exit 2, one line naming the file and the object); every connection
also runs with ``trusted_schema`` off and each statement under a time budget.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sealverify._internal.history import databases
from sealverify._internal.history.databases import SqliteDatabase
from sealverify._internal.history.state import MIGRATIONS, HistoryError, HistoryStore
from tests.helpers.fleet_services import pg_database, pg_url
from tests.helpers.history import host_log

__all__ = ["pg_database", "pg_url"]  # the fixtures, imported for their tests

ROOT = Path(__file__).resolve().parents[2]
RECEIPT = ROOT / "fixtures" / "demo" / "receipts" / "verified-allow.receipt.json"
FOREVER = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"

# Each way a file can carry code or objects the schema does not make, and the name refused.
SHAPES = {
    "trigger": (
        f"CREATE TRIGGER spin AFTER INSERT ON runs BEGIN SELECT count(*) FROM ({FOREVER}); END",
        "trigger 'spin' on runs",
    ),
    "trigger through a view": (
        f"CREATE VIEW forever AS {FOREVER};"
        " CREATE TRIGGER spin BEFORE INSERT ON runs BEGIN SELECT count(*) FROM forever; END",
        "trigger 'spin' on runs",
    ),
    "view": (f"CREATE VIEW forever AS {FOREVER}", "view 'forever'"),
    "table": ("CREATE TABLE extra (x TEXT)", "table 'extra' is not in the schema"),
    "index": ("CREATE INDEX by_head ON chain_heads (head)", "index 'by_head' is not in the schema"),
}


def _state(path: Path, change: str) -> Path:
    """A state file written by the store, with one run, then ``change`` applied to it."""
    with HistoryStore(path) as store:
        store.commit()
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(change)
    db.close()
    return path


def _command(command: str, state: Path, tmp_path: Path) -> list[str]:
    if command == "verify":
        return ["verify", str(RECEIPT), "--state", str(state)]
    log = tmp_path / "audit.log"
    log.write_bytes(host_log(2)[0])
    return ["chain", str(log), "--state", str(state)]


@pytest.mark.parametrize("command", ["verify", "chain"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_file_with_code_or_foreign_objects_is_refused(
    command: str, shape: str, tmp_path: Path
) -> None:
    change, named = SHAPES[shape]
    state = _state(tmp_path / "s.sqlite", change)
    try:  # a process of its own: the code before this guard never returned
        result = subprocess.run(
            [sys.executable, "-m", "sealverify", *_command(command, state, tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{command} --state ran the file's {shape} and did not end")
    assert result.returncode == 2, result.stderr
    errors = [
        line
        for line in result.stderr.splitlines()
        if line.startswith(("Error: ", "sealverify: ", "sealverify chain: "))
    ]
    assert len(errors) == 1 and str(state) in errors[0] and named in errors[0], result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_a_trigger_added_after_the_file_was_opened_is_refused_by_the_commit(
    tmp_path: Path,
) -> None:
    state = _state(tmp_path / "s.sqlite", "")
    store = HistoryStore(state)
    try:
        assert store.runs == 1  # the file was read, and passed
        db = sqlite3.connect(state, isolation_level=None)
        db.execute(
            "CREATE TRIGGER ran AFTER INSERT ON runs BEGIN SELECT RAISE(ABORT, 'trigger ran'); END"
        )
        db.close()
        with pytest.raises(HistoryError, match="trigger 'ran' on runs") as caught:
            store.commit()
        assert "trigger ran" not in str(caught.value)
    finally:
        store.close()
    assert sqlite3.connect(state).execute("SELECT count(*) FROM runs").fetchone() == (1,)


@pytest.mark.parametrize(
    ("made", "named"),
    [
        (
            "CREATE TRIGGER ran AFTER INSERT ON runs BEGIN SELECT RAISE(ABORT, 'trigger ran'); END",
            "trigger 'ran' on runs",
        ),
        ("CREATE VIEW spin AS SELECT * FROM runs", "view 'spin'"),
        ("CREATE TABLE extra (x INTEGER)", "table 'extra' is not in the schema"),
    ],
)
def test_code_added_between_two_commits_on_one_connection_is_refused_by_the_second(
    made: str, named: str, tmp_path: Path
) -> None:
    """A process that commits again and again (``verify --follow``) still checks every commit.

    The first commit's check passed on this connection; the object made after it moves the
    schema cookie, so the next commit reads ``sqlite_master`` again and refuses the file.
    """
    state = _state(tmp_path / "s.sqlite", "")
    store = HistoryStore(state)
    try:
        store.commit()
        store.commit()  # nothing changed since: the check passes again
        db = sqlite3.connect(state, isolation_level=None)
        db.execute(made)
        db.close()
        with pytest.raises(HistoryError, match=named) as caught:
            store.commit()
        assert "trigger ran" not in str(caught.value)
    finally:
        store.close()
    assert sqlite3.connect(state).execute("SELECT count(*) FROM runs").fetchone() == (3,)


def test_a_table_swapped_for_a_view_before_the_lock_is_refused_under_it(tmp_path: Path) -> None:
    """The run's reads under the lock are of a file checked under the lock."""
    state = _state(tmp_path / "s.sqlite", "")
    db = SqliteDatabase(state, MIGRATIONS)
    try:
        other = sqlite3.connect(state, isolation_level=None)
        other.executescript(
            "ALTER TABLE nonces RENAME TO kept;"
            f" CREATE VIEW nonces (nonce, operation_id, run, location, identity) AS"
            f" SELECT x, x, x, x, x FROM ({FOREVER})"
        )
        other.close()
        with pytest.raises(HistoryError, match="view 'nonces'"):
            db.begin()
    finally:
        db.close()


@pytest.mark.parametrize(
    "declared",
    [
        "signer TEXT PRIMARY KEY CHECK (length(signer) < 9)",
        "signer TEXT PRIMARY KEY DEFAULT 'x'",
        "signer TEXT PRIMARY KEY COLLATE NOCASE",
    ],
)
def test_a_table_declared_otherwise_is_refused(declared: str, tmp_path: Path) -> None:
    """Expressions in a declaration run on a write; the column checks cannot see them."""
    state = tmp_path / "s.sqlite"
    db = sqlite3.connect(state)
    for step in MIGRATIONS:
        for statement in step:
            db.execute(statement.replace("signer TEXT PRIMARY KEY", declared))
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
    db.commit()
    db.close()
    with pytest.raises(HistoryError, match="table config_epochs is declared otherwise"):
        HistoryStore(state)


def test_an_older_file_with_a_trigger_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "s.sqlite"
    db = sqlite3.connect(state)
    for statement in MIGRATIONS[0]:
        db.execute(statement)
    db.execute("PRAGMA user_version = 1")
    db.execute(
        f"CREATE TRIGGER spin AFTER INSERT ON runs BEGIN SELECT count(*) FROM ({FOREVER}); END"
    )
    db.commit()
    db.close()
    with pytest.raises(HistoryError, match="trigger 'spin' on runs"):
        HistoryStore(state)


def test_a_statement_past_its_budget_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second guard: a query that never ends is interrupted and named, not waited for."""
    monkeypatch.setattr(databases, "STATEMENT_SECONDS", 0.2)
    db = SqliteDatabase(_state(tmp_path / "s.sqlite", ""), MIGRATIONS)
    try:
        with pytest.raises(HistoryError, match=r"ran past its 0\.2 s budget"):
            db.one(f"SELECT count(*) FROM ({FOREVER})")
        assert db.one("SELECT count(*) FROM runs") == (1,)  # each statement has its own budget
    finally:
        db.close()


def test_every_connection_distrusts_the_schema(tmp_path: Path) -> None:
    for path in (tmp_path / "new.sqlite", _state(tmp_path / "s.sqlite", "")):
        db = SqliteDatabase(path, MIGRATIONS)
        try:
            assert db.one("PRAGMA trusted_schema") == (0,)
        finally:
            db.close()


PG_SHAPES = {
    "trigger": (
        "CREATE FUNCTION spin() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN LOOP END LOOP; END $$;"
        " CREATE TRIGGER spin AFTER INSERT ON runs FOR EACH ROW EXECUTE FUNCTION spin()",
        "trigger 'spin' on runs",
    ),
    "rule": (
        "CREATE RULE spin AS ON INSERT TO runs DO ALSO SELECT pg_sleep(100000)",
        "rule 'spin' on runs",
    ),
    "view": (
        "ALTER TABLE chain_heads RENAME TO kept; CREATE VIEW chain_heads AS SELECT * FROM kept",
        "chain_heads is not a table",
    ),
}


@pytest.mark.parametrize("shape", sorted(PG_SHAPES))
def test_a_postgresql_store_with_code_is_refused(shape: str, pg_database: str) -> None:
    import psycopg

    change, named = PG_SHAPES[shape]
    with HistoryStore(pg_database) as store:
        store.commit()
    with psycopg.connect(pg_database, autocommit=True) as db:
        db.execute(change.encode())
    try:
        result = subprocess.run(
            [sys.executable, "-m", "sealverify", "verify", str(RECEIPT), "--state", pg_database],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"verify --state ran the database's {shape} and did not end")
    assert result.returncode == 2, result.stderr
    errors = [
        line
        for line in result.stderr.splitlines()
        if line.startswith(("Error: ", "sealverify: ", "sealverify chain: "))
    ]
    assert len(errors) == 1 and named in errors[0], result.stderr


def test_a_postgresql_statement_past_its_budget_is_stopped(
    pg_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(databases, "STATEMENT_SECONDS", 0.5)
    with HistoryStore(pg_database) as store:
        store.commit()
    with (
        HistoryStore(pg_database) as store,
        pytest.raises(HistoryError, match="statement timeout"),
    ):
        store._db.one(f"SELECT count(*) FROM ({FOREVER}) AS c")
