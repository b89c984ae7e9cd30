"""Harnesses for what is not a parser: the history store, file names, directory shapes, renderers.

Each turns the fuzz input into a shape an attacker controls outside the evidence's bytes: the
``--state`` SQLite file (its bytes, or a recipe of tables, columns and typed rows), a file
name (any bytes but ``/`` and NUL), a directory tree (deep, with links to ancestors, to
siblings, dangling and out of the tree), and a report (any text in every field) rendered in
every format, spooled and whole, which must be the same bytes.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import sqlite3
import tempfile
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import Any, Literal

from fuzz import seeds
from fuzz.base import Harness, run_cli, workspace, write
from sealverify._internal.cli.skill_cmd import read_tree
from sealverify._internal.cli.spooled import SubjectSpool
from sealverify._internal.history.state import MIGRATIONS, SCHEMA_VERSION, HistoryStore
from sealverify._internal.reports.filenames import report_name
from sealverify._internal.results.model import Check, Report, Subject
from sealverify.errors import InputError
from sealverify.formats import FORMATS, render

__all__ = ["HARNESSES"]

DEMO = seeds.FIXTURES / "demo" / "receipts"
RECEIPT = DEMO / "verified-allow.receipt.json"
_OPS = 400  # tree-building steps read from one input at most

# -- the history store ------------------------------------------------------------------------


def _history(data: bytes) -> None:
    state = workspace() / "state.sqlite"
    for leftover in (state, state.with_name("state.sqlite-journal")):
        leftover.unlink(missing_ok=True)
    recipe = _json(data)
    if isinstance(recipe, dict):
        if not _build(state, recipe):
            return  # a recipe SQLite itself refuses: nothing for sealverify to read
    else:
        state.write_bytes(data)  # the file's own bytes, mutated
    if len(data) % 2:
        run_cli(["verify", str(RECEIPT), "--state", str(state), "--format", "json"])
    else:
        log = write("history.log", seeds.chain_logs()[0])
        run_cli(["chain", log, "--state", str(state), "--format", "json"])


def _build(path: Path, recipe: dict[str, Any]) -> bool:
    """A state file from a recipe: the schema (or given tables), rows, drops and a version."""
    db = sqlite3.connect(path)
    try:
        for step in MIGRATIONS:
            for statement in step:
                db.execute(statement)
        for table, shape in recipe.items():
            if not isinstance(shape, dict) or not table.isidentifier():
                continue
            columns = shape.get("columns")
            if isinstance(columns, list):  # another declaration of the table
                db.execute(f'DROP TABLE IF EXISTS "{table}"')
                names = [f'"{c}" {_kind(k)}' for c, k in _pairs(columns)]
                db.execute(f'CREATE TABLE "{table}" ({", ".join(names) or "x"})')
            rows = shape.get("rows")
            for row in rows if isinstance(rows, list) else []:
                if isinstance(row, list) and row:
                    marks = ", ".join("?" for _ in row)
                    db.execute(f'INSERT INTO "{table}" VALUES ({marks})', [_value(v) for v in row])
            if shape.get("drop") is True:
                db.execute(f'DROP TABLE "{table}"')
        objects = recipe.get("objects")
        for kind in objects if isinstance(objects, list) else []:
            if kind in _OBJECTS:
                db.executescript(_OBJECTS[kind])
        version = recipe.get("version", SCHEMA_VERSION)
        db.execute(f"PRAGMA user_version = {version if isinstance(version, int) else 0}")
        db.commit()
    except (sqlite3.Error, OverflowError, ValueError):
        return False
    finally:
        db.close()
    return True


_FOREVER = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"
# Objects a file may add to the schema; each is refused on opening (docs/history.md), and the
# trigger would run for ever at the commit if it were not.
_OBJECTS = {
    "trigger": f"CREATE TRIGGER IF NOT EXISTS spin AFTER INSERT ON runs BEGIN"
    f" SELECT count(*) FROM ({_FOREVER}); END",
    "view": f"CREATE VIEW IF NOT EXISTS forever AS {_FOREVER}",
    "index": "CREATE INDEX IF NOT EXISTS by_head ON chain_heads (head)",
    "table": "CREATE TABLE IF NOT EXISTS extra (x TEXT)",
}


def _pairs(columns: list[Any]) -> list[tuple[str, Any]]:
    return [
        (str(c[0]), c[1] if len(c) > 1 else None)
        for c in columns
        if isinstance(c, list) and c and str(c[0]).isidentifier()
    ]


def _kind(kind: Any) -> str:
    text = str(kind or "")
    return text if text.replace(" ", "").isalpha() else ""


def _value(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("blob"), str):
        try:
            return bytes.fromhex(value["blob"])
        except ValueError:
            return b""
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return value


def _history_seeds() -> list[bytes]:
    state = workspace() / "seed-state.sqlite"
    state.unlink(missing_ok=True)
    with HistoryStore(state) as store:
        store.commit()
    row = {
        "nonces": {"rows": [["n", "op", 1, "here", "id"]]},
        "operations": {"rows": [["op", "id", "PENDING", 1, "here"]]},
        "config_epochs": {"rows": [["signer", 3, 1, "here"]]},
        "chain_heads": {"rows": [["default", "a" * 64, "s", 0, 1, 1]]},
    }
    recipes: list[dict[str, Any]] = [
        {},
        row,
        {**row, "config_epochs": {"rows": [["signer", "three", 1, "here"]]}},
        {"nonces": {"drop": True}},
        {"chain_heads": {"columns": [["chain", "TEXT"], ["head", "INTEGER"]]}},
        {"operations": {"rows": [["op", {"blob": "00ff"}, "PENDING", 1, "here"]]}},
        {"version": 1},
        {"objects": ["trigger"]},
        {"objects": ["view", "index", "table"]},
        {"version": 1, "objects": ["trigger"]},
    ]
    return [state.read_bytes(), *(json.dumps(r).encode() for r in recipes)]


# -- file names -------------------------------------------------------------------------------

_VIOLATION = b"The traceparent value is inert.\n"


def _file_names(data: bytes) -> None:
    raw = bytes(b for b in data[:200] if b not in (0, 0x2F)) or b"x"  # any byte but NUL and /
    folder = workspace() / "names"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    name = os.fsdecode(raw)
    (folder / (name + ".json")).write_bytes((DEMO / "fail-bypass.receipt.json").read_bytes())
    (folder / (name + ".jsonl")).write_bytes((DEMO / "receipts.jsonl").read_bytes())
    fmt = ("json", "jsonl", "table", "junit", "html", "sarif")[len(data) % 6]
    run_cli(["verify", str(folder), "--format", fmt])
    (folder / (name + ".md")).write_bytes(_VIOLATION)
    run_cli(["lint", str(folder / (name + ".md")), "--format", ("sarif", "json")[len(data) % 2]])
    (folder / (name + ".log")).write_bytes(seeds.chain_logs()[0][:-40])  # a broken tail
    run_cli(["chain", str(folder / (name + ".log")), "--format", ("sarif", "table")[len(data) % 2]])


def _name_seeds() -> list[bytes]:
    return [b"r", b"r\xff", "été".encode(), b"\xc3\x28\xa0\xa1", b"a\\xff b\t\x1b[31m", b"."]


# -- directory shapes -------------------------------------------------------------------------


@cache
def _trees() -> Path:
    """Where trees are grown: in memory (tmpfs) when there is one.

    On a disk, building and removing a tree 300 levels deep takes seconds of the harness's
    own time, which the time rule would count against the command.
    """
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        trees = Path(tempfile.mkdtemp(prefix="sealverify-fuzz-", dir=shm))
        atexit.register(shutil.rmtree, trees, True)  # memory, not disk: never left behind
        return trees
    return workspace()


def _directories(data: bytes) -> None:
    root = _trees() / "tree"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    outside = _trees() / "outside"
    outside.mkdir(exist_ok=True)
    _grow(root, outside, data[:_OPS])
    walk = len(data) % 4  # one walk per input: each is a whole command over the tree
    if walk == 0:
        run_cli(["verify", str(root), "--format", "json"])
    elif walk == 1:
        run_cli(["verify", f"{root}/**/*.json", "--format", "json"])
    elif walk == 2:
        run_cli(["lint", str(root), "--format", "json"])
    else:
        with suppress(InputError):  # refused by name (a tree too deep): documented
            read_tree(root)


def _grow(root: Path, outside: Path, ops: bytes) -> None:
    """A tree made by one step per byte: enter a new directory, leave, add a file or a link."""
    stack, made = [root], [root]
    for n, op in enumerate(ops):
        here, pick = stack[-1], op >> 3
        name = here / f"e{n}"
        kind = op & 7
        if kind == 0:
            name.mkdir()
            stack.append(name)
            made.append(name)
        elif kind == 1 and len(stack) > 1:
            stack.pop()
        elif kind == 2:
            (here / f"r{n}.json").write_bytes(RECEIPT.read_bytes())
        elif kind == 3:
            name.symlink_to(stack[pick % len(stack)], target_is_directory=True)  # a loop
        elif kind == 4:
            name.symlink_to(made[pick % len(made)], target_is_directory=True)  # a second way in
        elif kind == 5:
            (here / f"gone{n}.json").symlink_to(here / "missing")
        elif kind == 6:
            (here / f"out{n}").symlink_to(outside, target_is_directory=True)
        else:
            (here / f"d{n}.md").write_bytes(_VIOLATION)


def _directory_seeds() -> list[bytes]:
    deep = bytes([0]) * 300 + bytes([2])  # deeper than the walk's limit
    loops = bytes([0, 2, 3, 3, 0, 3 | 8, 3 | 16])  # two links to itself at every level
    ways = bytes([0, 0, 1, 1, 4 | 8, 4 | 16, 4 | 8, 2])  # two links into one directory
    shapes = [bytes([2, 7]), deep, loops, ways, bytes([0, 5, 1, 6, 2])]
    # Each shape with each of the four walks (the input's length modulo 4 picks the walk).
    return [shape + bytes([7]) * pad for shape in shapes for pad in range(4)]


# -- renderers --------------------------------------------------------------------------------

_COMMANDS = ("lint", "approval", "tools digest", "skill verify", "partition verify")
_STATUSES = ("pass", "fail", "not-evaluated", "info", "waived")


def _renderers(data: bytes) -> None:
    doc = _json(data)
    if not isinstance(doc, dict):
        return
    report = _report(doc)
    for fmt in FORMATS:
        whole = render(report, fmt)
        whole.encode("utf-8")  # every format writes UTF-8: no stray surrogate may reach it
        if fmt == "html":
            continue
        with SubjectSpool(fmt, report.command, report.layout) as spool:
            for subject in report.subjects:
                spool.add(subject)
            pieces = spool.pieces(Report(**{**_fields(report), "subjects": ()}))
            spooled = b"".join(p if isinstance(p, bytes) else p.encode() for p in pieces)
        if spooled != whole.encode():
            raise AssertionError(f"{fmt}: the spooled report is not the rendered one")


def _fields(report: Report) -> dict[str, Any]:
    return {name: getattr(report, name) for name in Report.__dataclass_fields__}


def _report(doc: dict[str, Any]) -> Report:
    subjects = doc.get("subjects")
    findings = doc.get("findings")
    command = doc.get("command")
    layout: Literal["rows", "detail"] = "detail" if doc.get("layout") == "detail" else "rows"
    return Report(
        command if isinstance(command, str) and command in _COMMANDS else "lint",
        tuple(_subject(s) for s in (subjects if isinstance(subjects, list) else [])),
        {k: v for k, v in doc.items() if k.startswith("s_")},
        doc["exit_code"] % 5 if isinstance(doc.get("exit_code"), int) else 1,
        tuple(_check(c) for c in (findings if isinstance(findings, list) else [])),
        layout=layout,
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _name(value: Any) -> str:
    """A file name as the CLI gives it: code points under 256 as bytes, any of them."""
    raw = _text(value).encode("latin-1", "ignore")
    return report_name(os.fsdecode(raw))


def _check(value: Any) -> Check:
    item = value if isinstance(value, dict) else {"reason": value}
    status = item.get("status")
    data = item.get("data")
    return Check(
        _text(item.get("id", "x.y")),
        status if isinstance(status, str) and status in _STATUSES else "fail",  # type: ignore[arg-type]
        _text(item.get("reason", "")),
        _name(item.get("location", "")),
        data if isinstance(data, dict) else {},
    )


def _subject(value: Any) -> Subject:
    item = value if isinstance(value, dict) else {"name": value}
    checks = item.get("checks")
    facts = item.get("facts")
    return Subject(
        _name(item.get("name", "")),
        _text(item.get("outcome", "FAIL")),
        tuple(_check(c) for c in (checks if isinstance(checks, list) else [])),
        facts if isinstance(facts, dict) else {},
        _text(item.get("label", "")),
    )


def _renderer_seeds() -> list[bytes]:
    one = {
        "command": "approval",
        "layout": "detail",
        "subjects": [
            {
                "name": "t\u00ff.ndjson:1",
                "outcome": "INVALID",
                "checks": [{"id": "a.b", "status": "fail", "reason": "x\u001b[2J<&>]]>"}],
                "facts": {"kind": "invalid", "n": [1, {"a": None}]},
            },
            {"name": "t:2", "outcome": "VALID", "checks": [{"id": "a.c", "status": "pass"}]},
        ],
        "findings": [{"id": "run.x", "status": "not-evaluated", "reason": "r", "location": "l"}],
        "s_tokens": 2,
    }
    return [json.dumps(one).encode(), json.dumps({**one, "layout": "rows"}).encode(), b"{}"]


def _json(data: bytes) -> Any:
    """The input as JSON, read by the standard library (the harness's own reading), or None."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


HARNESSES = (
    Harness("history-store", "--state file: bytes, or a recipe", _history_seeds, _history),
    Harness("file-names", "any file name, every format", _name_seeds, _file_names, False),
    Harness("directory-shapes", "walks and globs", _directory_seeds, _directories, False),
    Harness("renderers", "every format, spooled and whole", _renderer_seeds, _renderers),
)
