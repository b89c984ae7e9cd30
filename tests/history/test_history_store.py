"""The ``--state`` file is untrusted input: another schema or wrong-typed values are exit 2, named.

An attacker who can write the history file can give it the current ``user_version`` and any
tables at all; SQLite keeps text in an INTEGER column. Each shape is refused before any check
reads a row, with the file, the table and the column in the message, never a traceback.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.history.state import (
    MIGRATIONS,
    SCHEMA_VERSION,
    HistoryError,
    HistoryStore,
)
from tests.helpers.history import host_log

ROOT = Path(__file__).resolve().parents[2]
RECEIPT = ROOT / "fixtures" / "demo" / "receipts" / "verified-allow.receipt.json"


def _schema() -> dict[str, list[tuple[str, str]]]:
    """Each table the migrations make, with its columns' names and declared types."""
    db = sqlite3.connect(":memory:")
    for step in MIGRATIONS:
        for statement in step:
            db.execute(statement)
    tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    schema = {t: [(r[1], r[2]) for r in db.execute(f"PRAGMA table_info({t})")] for t in tables}
    db.close()
    return schema


SCHEMA = _schema()
COLUMNS = [
    (table, column, kind)
    for table, columns in sorted(SCHEMA.items())
    for column, kind in columns
    if (table, column) != ("runs", "run")  # the rowid itself: SQLite refuses a non-integer
]


def _current(path: Path) -> sqlite3.Connection:
    """A state file of the current schema with one row in every table."""
    with HistoryStore(path) as store:
        store.commit()
    db = sqlite3.connect(path, isolation_level=None)
    for table, columns in SCHEMA.items():
        if table != "runs":
            values = [1 if kind == "INTEGER" else "v" for _, kind in columns]
            marks = ", ".join("?" for _ in values)
            db.execute(f"INSERT INTO {table} VALUES ({marks})", values)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    return db


def _run(command: str, state: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    if command == "verify":
        args = ["verify", str(RECEIPT), "--state", str(state)]
    else:
        log = tmp_path / "audit.log"
        log.write_bytes(host_log(2)[0])
        args = ["chain", str(log), "--state", str(state)]
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def test_a_well_formed_file_is_used(tmp_path: Path) -> None:
    _current(tmp_path / "s.sqlite").close()
    for command in ("verify", "chain"):
        result = _run(command, tmp_path / "s.sqlite", tmp_path)
        assert result.exit_code != 2, result.output  # ran: its history checks were made


@pytest.mark.parametrize("command", ["verify", "chain"])
@pytest.mark.parametrize("table", sorted(SCHEMA))
def test_a_missing_table_is_named(command: str, table: str, tmp_path: Path) -> None:
    state = tmp_path / "s.sqlite"
    db = _current(state)
    db.execute(f"DROP TABLE {table}")
    db.close()
    result = _run(command, state, tmp_path)
    assert result.exit_code == 2, result.output
    assert str(state) in result.stderr and f"table {table} is missing" in result.stderr
    assert "internal error" not in result.stderr


@pytest.mark.parametrize("command", ["verify", "chain"])
@pytest.mark.parametrize(("table", "column", "kind"), COLUMNS)
def test_a_value_of_the_wrong_type_is_named(
    command: str, table: str, column: str, kind: str, tmp_path: Path
) -> None:
    state = tmp_path / "s.sqlite"
    db = _current(state)
    # Text in an INTEGER column; a blob in a TEXT one (TEXT affinity turns numbers into text).
    wrong: object = "not a number" if kind == "INTEGER" else b"\x00\xff"
    db.execute(f"UPDATE {table} SET {column} = ?", (wrong,))
    db.close()
    result = _run(command, state, tmp_path)
    assert result.exit_code == 2, result.output
    assert str(state) in result.stderr
    assert f"table {table}, column {column}:" in result.stderr
    assert "internal error" not in result.stderr


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("ALTER TABLE nonces DROP COLUMN identity", "table nonces, column identity is missing"),
        ("ALTER TABLE chain_heads ADD COLUMN extra TEXT", "column extra is not in the schema"),
        (
            "ALTER TABLE config_epochs RENAME COLUMN epoch TO era",
            "table config_epochs, column epoch is missing",
        ),
    ],
)
def test_another_schema_at_the_current_version_is_named(
    change: str, expected: str, tmp_path: Path
) -> None:
    state = tmp_path / "s.sqlite"
    db = _current(state)
    db.execute(change)
    db.close()
    with pytest.raises(HistoryError, match=expected):
        HistoryStore(state)


def test_a_column_declared_with_another_type_is_named(tmp_path: Path) -> None:
    state = tmp_path / "s.sqlite"
    db = sqlite3.connect(state)
    for step in MIGRATIONS:
        for statement in step:
            db.execute(statement.replace("epoch INTEGER NOT NULL", "epoch TEXT NOT NULL"))
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    db.commit()
    db.close()
    with pytest.raises(HistoryError, match="column epoch is declared TEXT NOT NULL, not INTEGER"):
        HistoryStore(state)
