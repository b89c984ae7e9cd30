"""Cross-run history: nonces, operations, config epochs, chain continuity, schema, crash safety."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.history.state import (
    MIGRATIONS,
    SCHEMA_VERSION,
    ChainFacts,
    HistoryError,
    HistoryStore,
    ReceiptFacts,
    receipt_facts,
)
from sealverify._internal.wire.strictjson import parse_bytes, parse_text
from tests.conftest import ROOT, shared_path
from tests.helpers.history import GEN, host_log

HOST_V3 = ("fixtures", "seal", "seal-check", "test", "fixtures", "host-v3-block.receipt.json")


def ids(checks: list) -> dict[str, str]:  # type: ignore[type-arg]
    return {c.id: c.status for c in checks}


def one_run(path: Path, facts: list[ReceiptFacts]) -> dict[str, str]:
    with HistoryStore(path) as store:
        checks = store.check_and_stage(facts)
        store.commit()
    return ids(checks)


def test_nonce_replayed_in_a_second_run(tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite"
    first = one_run(db, [ReceiptFacts("r1.json", operation_id="a" * 64, nonce="n-1")])
    assert first["history.nonce"] == "pass"
    again = one_run(db, [ReceiptFacts("r1.json", operation_id="a" * 64, nonce="n-1")])
    assert again["history.nonce"] == "pass"  # the same receipt verified again
    replay = one_run(db, [ReceiptFacts("r2.json", operation_id="b" * 64, nonce="n-1")])
    assert replay["history.nonce-replayed"] == "fail"


def test_nonce_replayed_within_one_run(tmp_path: Path) -> None:
    with HistoryStore(tmp_path / "s.sqlite") as store:
        checks = store.check_and_stage(
            [
                ReceiptFacts("r1", operation_id="a" * 64, nonce="n"),
                ReceiptFacts("r2", operation_id="b" * 64, nonce="n"),
            ]
        )
    assert ids(checks)["history.nonce-replayed"] == "fail"


def _real_facts(epoch: int | None = None) -> ReceiptFacts:
    data = shared_path(*HOST_V3).read_bytes()
    doc = parse_bytes(data)
    assert isinstance(doc, dict)
    if epoch is not None:
        signed = json.loads(data)["signed_config"]
        text = signed["payload"]
        assert text.startswith('{"epoch":1,')
        changed = json.loads(data)
        changed["signed_config"]["payload"] = text.replace('{"epoch":1,', f'{{"epoch":{epoch},', 1)
        changed["operation_id"] = "e" * 64
        doc = parse_text(json.dumps(changed))
        assert isinstance(doc, dict)
    return receipt_facts(doc, "host-v3-block.receipt.json")


def test_real_receipt_facts() -> None:
    facts = _real_facts()
    assert facts.config_epoch == 1
    assert facts.config_signer == "bdf3db19a2007e5b6ab0d2a6578006d07ff8f7a35a7a8c0b3ed51de411d2e8ff"
    assert facts.release_status == "NOT_APPLICABLE"
    assert facts.operation_id == "4d571d7ae03e9e7f82e8bd2ea17353ee494cc996d1a857e7393d3e6a0a3954fa"


def test_config_epoch_rollback_is_reported(tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite"
    assert one_run(db, [_real_facts(epoch=3)])["history.config-epoch"] == "pass"
    later = one_run(db, [_real_facts()])
    assert later["history.config-rollback"] == "fail"
    # The high-water mark is not lowered by the rollback run.
    assert one_run(db, [_real_facts()])["history.config-rollback"] == "fail"


def test_operation_resigning_progression(tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite"
    op = "c" * 64
    for status in ("PENDING", "UNKNOWN", "RELEASED", "RELEASED"):
        out = one_run(
            db, [ReceiptFacts("r", operation_id=op, release_status=status, identity="same")]
        )
        assert out == {"history.operation": "pass"}, status
    back = one_run(
        db, [ReceiptFacts("r", operation_id=op, release_status="PENDING", identity="same")]
    )
    assert back["history.release-regressed"] == "fail"
    other = one_run(
        db, [ReceiptFacts("r", operation_id=op, release_status="RELEASED", identity="different")]
    )
    assert other["history.operation-reused"] == "fail"


def test_resigned_receipt_has_the_same_identity() -> None:
    data = json.loads(shared_path(*HOST_V3).read_bytes())
    resigned = dict(
        data, release_status="RELEASED", signature={"domain": "x", "value": "different"}
    )
    a = receipt_facts(parse_text(json.dumps(data)), "a")  # type: ignore[arg-type]
    b = receipt_facts(parse_text(json.dumps(resigned)), "b")  # type: ignore[arg-type]
    changed = receipt_facts(parse_text(json.dumps(dict(data, now=1))), "c")  # type: ignore[arg-type]
    assert a.identity == b.identity != changed.identity


def test_nothing_is_written_without_commit(tmp_path: Path) -> None:
    db = tmp_path / "state.sqlite"
    with HistoryStore(db) as store:
        store.check_and_stage([ReceiptFacts("r1", operation_id="a" * 64, nonce="n")])
    out = one_run(db, [ReceiptFacts("r2", operation_id="b" * 64, nonce="n")])
    assert out["history.nonce"] == "pass"


class TestSchema:
    def test_fresh_database_is_current(self, tmp_path: Path) -> None:
        with HistoryStore(tmp_path / "s.sqlite") as store:
            assert store.schema_version == SCHEMA_VERSION == 4

    def test_migrates_a_version_1_database_keeping_its_data(self, tmp_path: Path) -> None:
        db = tmp_path / "old.sqlite"
        conn = sqlite3.connect(db)
        for statement in MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("INSERT INTO nonces VALUES ('n-old', 'op-old', 1, 'old.json')")
        conn.execute("PRAGMA user_version = 1")
        conn.commit()
        conn.close()
        with HistoryStore(db) as store:
            assert store.schema_version == 4
            checks = store.check_and_stage([ReceiptFacts("new", operation_id="x", nonce="n-old")])
            assert ids(checks)["history.nonce-replayed"] == "fail"
            assert store.recorded_head() is None

    def test_newer_schema_is_refused(self, tmp_path: Path) -> None:
        db = tmp_path / "new.sqlite"
        conn = sqlite3.connect(db)
        conn.execute("PRAGMA user_version = 99")
        conn.close()
        with pytest.raises(HistoryError, match="newer"):
            HistoryStore(db)

    def test_not_a_database(self, tmp_path: Path) -> None:
        db = tmp_path / "junk.sqlite"
        db.write_bytes(b"not sqlite at all" * 100)
        with pytest.raises(HistoryError):
            HistoryStore(db)


# -- audit chain continuity ------------------------------------------------------------------


def test_chain_continuity_pure(tmp_path: Path) -> None:
    _, heads = host_log(4)
    db = tmp_path / "s.sqlite"

    def facts(hs: list[str], first_prev: str) -> ChainFacts:
        return ChainFacts("log", first_prev, tuple(hs), "s1", len(hs) - 1)

    with HistoryStore(db) as store:
        assert ids(store.check_chain(facts(heads[:3], GEN)))["history.chain"] == "info"
        store.commit()
    with HistoryStore(db) as store:
        cut = store.check_chain(facts(heads[:2], GEN))
        assert ids(cut)["history.chain-discontinuity"] == "fail"
    with HistoryStore(db) as store:
        assert ids(store.check_chain(facts(heads[3:], heads[2])))["history.chain"] == "pass"


def test_chain_cli_detects_truncation_against_an_earlier_run(tmp_path: Path) -> None:
    full, _ = host_log(4)
    cut, _ = host_log(2)
    (tmp_path / "full.log").write_bytes(full)
    (tmp_path / "cut.log").write_bytes(cut)
    db = str(tmp_path / "state.sqlite")
    runner = CliRunner()
    first = runner.invoke(cli, ["chain", str(tmp_path / "full.log"), "--state", db])
    assert first.exit_code == 3  # intact; no anchor for this run itself
    second = runner.invoke(
        cli, ["chain", str(tmp_path / "cut.log"), "--state", db, "--format", "json"]
    )
    assert second.exit_code == 1
    subjects = json.loads(second.stdout)["subjects"]
    history = [s for s in subjects if s["name"].startswith("history")]
    assert history and history[0]["checks"][0]["id"] == "history.chain-discontinuity"


# The CLI with the commit paused after its writes, inside the transaction, until stdin gives a
# line: the test kills the process there.
_PAUSED_MAIN = """
import sys
from sealverify._internal.history import databases
write = databases.SqliteDatabase._write
def paused(self, db, run, writes):
    write(self, db, run, writes)
    sys.stderr.write("paused before commit\\n")
    sys.stderr.flush()
    sys.stdin.readline()
databases.SqliteDatabase._write = paused
from sealverify._internal.cli.main import main
main()
"""


def test_run_killed_mid_commit_leaves_previous_state_usable(tmp_path: Path) -> None:
    short, heads4 = host_log(4)
    longer, heads6 = host_log(6)
    (tmp_path / "a.log").write_bytes(short)
    (tmp_path / "b.log").write_bytes(longer)
    db = tmp_path / "state.sqlite"
    assert (
        CliRunner().invoke(cli, ["chain", str(tmp_path / "a.log"), "--state", str(db)]).exit_code
        == 3
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _PAUSED_MAIN,
            "chain",
            str(tmp_path / "b.log"),
            "--state",
            str(db),
            "--expect-count",
            "6",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stderr is not None
    marker = proc.stderr.readline()
    assert b"paused before commit" in marker
    proc.kill()
    proc.wait()
    assert proc.returncode != 0
    with HistoryStore(db) as store:
        assert store.recorded_head() == heads4[-1]
        assert store.runs == 1
    done = CliRunner().invoke(
        cli, ["chain", str(tmp_path / "b.log"), "--state", str(db), "--expect-count", "6"]
    )
    assert done.exit_code == 0, done.output
    with HistoryStore(db) as store:
        assert store.recorded_head() == heads6[-1] and store.runs == 2


def test_state_anchors_the_start_of_a_continuation_log(tmp_path: Path) -> None:
    first, heads = host_log(3)
    payload = b"decision after restart"
    head = hashlib.sha256(heads[-1].encode() + b"\x1f" + payload).hexdigest()
    rec = {
        "seal_record": "v1",
        "entry": 0,
        "commitment": "sha256(prevHead || 0x1f || payload)",
        "session": "s2",
        "prev_head": heads[-1],
        "prior_session": "s1",
        "head": head,
    }
    (tmp_path / "a.log").write_bytes(first)
    (tmp_path / "b.log").write_bytes(payload + b"\n" + json.dumps(rec).encode() + b"\n")
    db = str(tmp_path / "state.sqlite")
    runner = CliRunner()
    alone = runner.invoke(cli, ["chain", str(tmp_path / "b.log"), "--format", "json"])
    start = json.loads(alone.stdout)["subjects"][0]["checks"]
    assert {c["id"]: c["status"] for c in start}["chain.start"] == "not-evaluated"
    runner.invoke(cli, ["chain", str(tmp_path / "a.log"), "--state", db])
    out = runner.invoke(cli, ["chain", str(tmp_path / "b.log"), "--state", db, "--format", "json"])
    checks = {c["id"]: c["status"] for s in json.loads(out.stdout)["subjects"] for c in s["checks"]}
    assert checks["chain.start"] == "pass" and checks["history.chain"] == "pass"


def test_state_passes_are_counted_not_listed_in_the_table_and_html(tmp_path: Path) -> None:
    demo = ROOT / "fixtures" / "demo"
    base = ["verify", str(demo / "receipts"), "--trust", str(demo / "trust.json")]
    base += ["--allow-published-keys"]

    def run(db: str, *fmt: str) -> tuple[int, str, str]:
        wide = CliRunner(env={"COLUMNS": "300"})  # one line a finding, its note whole
        result = wide.invoke(cli, [*base, "--state", str(tmp_path / db), *fmt])
        return result.exit_code, result.stdout, result.stderr

    # The json lists every finding, passes included (byte-stable): the counts come from it.
    _code, out, _err = run("json.sqlite", "--format", "json")
    findings = json.loads(out)["findings"]
    passes: dict[str, int] = {}
    for f in findings:
        if f["status"] == "pass":
            passes[f["id"]] = passes.get(f["id"], 0) + 1
    assert passes and all(i.startswith("history.") for i in passes)
    failing = [f["id"] for f in findings if f["status"] == "fail"]
    assert failing  # the demo's broken JSON-lines line
    by_id = ", ".join(f"{i} {n}" for i, n in sorted(passes.items()))
    note = f"{sum(passes.values())} passing run check(s) not listed ({by_id})"

    code, table, err = run("table.sqlite")
    assert code == 1
    assert not [line for line in table.splitlines() if line.startswith("PASS ")]
    assert all(f"FAIL  {i}" in table for i in failing)  # failures still listed
    assert note in table
    assert f", {sum(passes.values())} passing run check(s);" in err

    run("html.sqlite", "--format", "html", "--output", str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text()
    section = page.split('id="findings"')[1].split("</section>")[0]
    assert note in section and all(i in section for i in failing)
    assert not any(i in section.replace(note, "") for i in passes)  # no row per passing check
