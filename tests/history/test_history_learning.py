"""What a run teaches the next is what it established: anchored heads, pinned facts only.

``chain a.log --state S`` on a log whose start is unanchored said UNANCHORED yet recorded its
last head, and ``chain b.log --state S`` continuing it was then INTACT, exit 0, though the two
logs in one run are UNANCHORED. ``verify --state`` learnt nonces from UNPINNED and REDUCED
receipts: a copy re-signed under a published key, or a fleet v2 receipt whose approval nonce
nothing signs, spent an honest approval's nonce, and the honest receipt, pinned under keys
that are not published, then FAILed ``history.nonce-replayed`` in the next run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner, Result
from sealverify_testkit import mint
from sealverify_testkit.auditlog import audit_payload, chain_lines

from sealverify._internal.cli.main import cli
from sealverify._internal.history.state import MIGRATIONS, open_store
from tests.helpers.history_learning import (
    APPROVER_KEY,
    CONFIG_KEY,
    PINS,
    RECEIPT_KEY,
)
from tests.helpers.kernel_minting import CONFIG, GUARDED, HOST, TARGET

# --- chain: a head is recorded only from a walk whose start is anchored ------------------------


def _log(path: Path, lines: list[bytes]) -> str:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return str(path)


def _chain(*args: str) -> Result:
    return CliRunner().invoke(cli, ["chain", *args])


def test_an_unanchored_start_teaches_no_head(tmp_path: Path) -> None:
    # A host restarted from a state file: the first record links to a prior session at a head
    # no anchor names. The continuing log is checked with its tail anchored (--expect-count).
    elsewhere = hashlib.sha256(b"a head nothing anchors").hexdigest()
    first, heads = chain_lines([audit_payload(i) for i in range(3)], start=elsewhere, prior="s0")
    second, _ = chain_lines(
        [audit_payload(i) for i in range(3, 6)], session="s2", start=heads[-1], prior="s1"
    )
    a, b = _log(tmp_path / "a.log", first), _log(tmp_path / "b.log", second)
    together = _chain(a, b, "--expect-count", "6")
    assert together.exit_code == 3, together.output  # one run: UNANCHORED, never 0
    state = str(tmp_path / "s.db")
    assert _chain(a, "--state", state).exit_code == 3
    continued = _chain(b, "--expect-count", "3", "--state", state, "--format", "json")
    assert continued.exit_code == 3, continued.output
    history = json.loads(continued.stdout)["subjects"][-1]
    assert history["outcome"] == "UNANCHORED"
    assert {c["id"] for c in history["checks"]} == {"history.chain", "history.chain-unanchored"}


def test_an_anchored_start_still_teaches_its_head(tmp_path: Path) -> None:
    first, heads = chain_lines([audit_payload(i) for i in range(3)])
    second, _ = chain_lines(
        [audit_payload(i) for i in range(3, 6)], session="s2", start=heads[-1], prior="s1"
    )
    a, b = _log(tmp_path / "a.log", first), _log(tmp_path / "b.log", second)
    state = str(tmp_path / "s.db")
    assert _chain(a, "--expect-count", "3", "--state", state).exit_code == 0
    assert _chain(b, "--expect-count", "3", "--state", state).exit_code == 0


def test_an_unanchored_log_is_still_held_to_the_recorded_head(tmp_path: Path) -> None:
    first, _ = chain_lines([audit_payload(i) for i in range(3)])
    state = str(tmp_path / "s.db")
    assert _chain(_log(tmp_path / "a.log", first), "--state", state).exit_code == 3  # tail
    elsewhere = hashlib.sha256(b"a fork").hexdigest()
    fork, _ = chain_lines([audit_payload(9)], session="s2", start=elsewhere, prior="s1")
    forked = _chain(_log(tmp_path / "f.log", fork), "--state", state, "--format", "json")
    assert forked.exit_code == 1, forked.output
    checks = json.loads(forked.stdout)["subjects"][-1]["checks"]
    assert "history.chain-discontinuity" in {c["id"] for c in checks}


def _version_3_store(path: Path, head: str) -> None:
    """A state file as sealverify wrote it before heads said whether their walk was anchored."""
    db = sqlite3.connect(path)
    for step in MIGRATIONS[:3]:
        for statement in step:
            db.execute(statement)
    db.execute("INSERT INTO runs VALUES (1, 'older', 1)")
    db.execute("INSERT INTO chain_heads VALUES ('default', ?, 's1', 2, 3, 1)", (head,))
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()


def test_a_head_recorded_before_the_anchoring_rule_is_not_a_start(tmp_path: Path) -> None:
    # An older sealverify recorded the head of a log whose start nothing anchored. The log
    # continuing that head must not become INTACT through it.
    elsewhere = hashlib.sha256(b"a head nothing anchors").hexdigest()
    _, heads = chain_lines([audit_payload(i) for i in range(3)], start=elsewhere, prior="s0")
    second, _ = chain_lines(
        [audit_payload(i) for i in range(3, 6)], session="s2", start=heads[-1], prior="s1"
    )
    state = tmp_path / "s.db"
    _version_3_store(state, heads[-1])
    b = _log(tmp_path / "b.log", second)
    continued = _chain(b, "--expect-count", "3", "--state", str(state), "--format", "json")
    assert continued.exit_code == 3, continued.output
    report = json.loads(continued.stdout)
    assert report["subjects"][0]["outcome"] == "UNANCHORED"
    history = report["subjects"][-1]
    assert "history.chain-head-untrusted" in {c["id"] for c in history["checks"]}
    assert open_store(str(state)).recorded_head() is None  # and nothing was learnt from it


def test_an_anchored_run_replaces_an_untrusted_head(tmp_path: Path) -> None:
    first, heads = chain_lines([audit_payload(i) for i in range(3)])
    state = tmp_path / "s.db"
    _version_3_store(state, hashlib.sha256(b"some older head").hexdigest())
    a = _log(tmp_path / "a.log", first)
    assert _chain(a, "--expect-count", "3", "--state", str(state)).exit_code == 0
    assert open_store(str(state)).recorded_head() == heads[-1]


# --- verify: facts only from receipts VERIFIED under unpublished pinned keys -------------------


NONCE = "5" * 32
OTHER = mint.tools_call_frame("db.execute", '{"sql":"drop table y","database":"prod"}')
OTHER_TARGET = mint.guard_target_of(OTHER, CONFIG)


def _honest(tmp_path: Path) -> str:
    """A guarded call allowed by approval, signed under keys no one has published."""
    ctx = dataclasses.replace(
        HOST,
        config_key=CONFIG_KEY,
        receipt_key=RECEIPT_KEY,
        approver_key=APPROVER_KEY,
        approval_nonce=NONCE,
        approval_channel="ed25519",
        operation_seed=b"honest",
    )
    path = tmp_path / "honest.json"
    path.write_bytes(mint.mint_host_v3(GUARDED, CONFIG, approvals=[TARGET], ctx=ctx))
    return str(path)


def _verify(*args: str) -> Result:
    return CliRunner().invoke(cli, ["verify", *args, "--format", "json"])


def _run_findings(result: Result) -> dict[str, str]:
    return {f["id"]: f["status"] for f in json.loads(result.stdout)["findings"]}


def _then_the_honest_run_passes(tmp_path: Path, state: str) -> None:
    honest = _verify(_honest(tmp_path), *PINS, "--state", state)
    assert honest.exit_code == 0, honest.output
    assert _run_findings(honest).get("history.nonce") == "pass"


def test_the_honest_receipt_alone_is_verified_and_spends_its_nonce(tmp_path: Path) -> None:
    state = str(tmp_path / "s.db")
    _then_the_honest_run_passes(tmp_path, state)
    # What it established is recorded: another decision with its nonce is then a replay.
    forged = tmp_path / "forged.json"
    ctx = dataclasses.replace(
        HOST,
        config_key=CONFIG_KEY,
        receipt_key=RECEIPT_KEY,
        approver_key=APPROVER_KEY,
        approval_nonce=NONCE,
        approval_channel="ed25519",
        operation_seed=b"forged",
    )
    forged.write_bytes(mint.mint_host_v3(OTHER, CONFIG, approvals=[OTHER_TARGET], ctx=ctx))
    again = _verify(str(forged), *PINS, "--state", state)
    assert _run_findings(again).get("history.nonce-replayed") == "fail"


def _published_copy(tmp_path: Path) -> str:
    """Another decision spending the honest nonce, signed under the published test keys."""
    ctx = dataclasses.replace(
        HOST, approval_nonce=NONCE, approval_channel="ed25519", operation_seed=b"forged"
    )
    path = tmp_path / "copy.json"
    path.write_bytes(mint.mint_host_v3(OTHER, CONFIG, approvals=[OTHER_TARGET], ctx=ctx))
    return str(path)


def test_a_published_key_copy_spends_no_nonce(tmp_path: Path) -> None:
    copy = _published_copy(tmp_path)
    testkit = (
        "--config-pubkey",
        mint.CONFIG_KEY.public_hex,
        "--receipt-pubkey",
        mint.RECEIPT_KEY.public_hex,
    )
    state = str(tmp_path / "s.db")
    unpinned = _verify(copy, *testkit, "--state", state)
    assert unpinned.exit_code == 3, unpinned.output  # UNPINNED: a published key
    _then_the_honest_run_passes(tmp_path, state)
    allowed = str(tmp_path / "allowed.db")
    accepted = _verify(copy, *testkit, "--allow-published-keys", "--state", allowed)
    assert accepted.exit_code == 0, accepted.output  # accepted for tests, still published
    _then_the_honest_run_passes(tmp_path, allowed)
    unpins = str(tmp_path / "nopins.db")
    assert _verify(copy, "--state", unpins).exit_code == 3  # no pin at all: UNPINNED
    _then_the_honest_run_passes(tmp_path, unpins)


def test_an_unsigned_fleet_nonce_spends_no_nonce(tmp_path: Path) -> None:
    # A fleet v2 receipt has no receipt signature: its approval block, nonce included, is a
    # claim nothing binds (REDUCED), under a config key that is pinned and not published.
    fleet = json.loads(
        mint.mint_fleet_v2(
            OTHER,
            CONFIG,
            approvals=[OTHER_TARGET],
            ctx=dataclasses.replace(mint.FleetContext(), config_key=CONFIG_KEY),
        )
    )
    fleet["approval"]["nonce"] = NONCE
    path = tmp_path / "fleet.json"
    path.write_text(json.dumps(fleet, indent=2))
    state = str(tmp_path / "s.db")
    reduced = _verify(str(path), "--config-pubkey", CONFIG_KEY.public_hex, "--state", state)
    assert reduced.exit_code == 4, reduced.output
    assert _run_findings(reduced).get("history.nonce") == "pass"  # checked, not recorded
    _then_the_honest_run_passes(tmp_path, state)
