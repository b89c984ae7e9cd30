"""Audit chain: upstream vectors, host-shaped logs, every tampering class, anchors, receipts."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.cli.main import cli
from sealverify._internal.history import chain
from sealverify._internal.history.chain import (
    Anchor,
    ReceiptAudit,
    bind_receipts,
    parse_state_file,
    verify_logs,
)
from tests.conftest import shared_path
from tests.helpers.chain import GEN, PAYLOADS, flat, record, session_pairs, step

# seal-host@099be66377052954e7c9381b7f29174b02266b6f rust/src/receipt.rs
# `vectors_match_node_receipt_chain`, also pinned by Host/Record.lean and
# Test/Sha256SelfCheck.lean ("golden genesis", "golden commit audit-0").
UPSTREAM_GENESIS = "0633b0b4c5ca8207b3174d64fe438b99eaa1f5d95d0d4bbaa5d3fe6bd5f700a9"
UPSTREAM_AUDIT_0 = "8dd24f08c8674e9b7b950837337c93d09d5240e1aedbb7d54269ee9381b84a4c"


def run(data: bytes, anchor: Anchor | None = None) -> chain.ChainResult:
    return verify_logs([("log", data)], anchor or Anchor())


def breaks(result: chain.ChainResult) -> list[tuple[str, int]]:
    return [(c.data["kind"], c.data["entry"]) for c in result.checks if c.id == "chain.break"]


def test_upstream_vectors_reproduce() -> None:
    assert chain.GENESIS == UPSTREAM_GENESIS
    assert chain.commit(chain.GENESIS, b"audit-0") == UPSTREAM_AUDIT_0
    assert GEN == UPSTREAM_GENESIS and step(GEN, b"audit-0") == UPSTREAM_AUDIT_0


def test_prev_head_enters_as_hex_text_not_raw_bytes() -> None:
    raw = hashlib.sha256(bytes.fromhex(GEN) + b"\x1f" + b"audit-0").hexdigest()
    assert chain.commit(GEN, b"audit-0") != raw


def test_intact_log_with_non_json_payloads_and_other_lines() -> None:
    pairs, head = session_pairs(PAYLOADS)
    result = run(b"starting host\n" + flat(pairs))
    assert result.ok and breaks(result) == []
    assert result.final_head == head and len(result.records) == 5
    assert result.other_lines == 6  # one banner plus one decision line per entry
    assert result.unanchored_tail
    ids = {c.id: c.status for c in result.checks}
    assert ids["chain.start"] == "pass" and ids["chain.tail-unanchored"] == "not-evaluated"


def test_session_restart_links_through_prior_session() -> None:
    first, head1 = session_pairs(PAYLOADS[:2], "s1")
    second, head2 = session_pairs(PAYLOADS[2:], "s2", start=head1, prior="s1")
    result = verify_logs([("a.log", flat(first)), ("b.log", flat(second))])
    assert result.ok and result.sessions == ("s1", "s2") and result.final_head == head2


def test_session_with_wrong_prior_session_is_reported() -> None:
    first, head1 = session_pairs(PAYLOADS[:2], "s1")
    second, _ = session_pairs(PAYLOADS[2:], "s2", start=head1, prior="s0")
    result = run(flat(first) + flat(second))
    assert any(c.id == "chain.session-link" and c.status == "fail" for c in result.checks)


def test_restart_from_genesis_mid_log_is_reported() -> None:
    first, _ = session_pairs(PAYLOADS[:2], "s1")
    second, _ = session_pairs(PAYLOADS[2:], "s2")  # state file lost: genesis again
    result = run(flat(first) + flat(second))
    assert any(c.id == "chain.session-link" and c.status == "fail" for c in result.checks)


def test_log_starting_after_a_restart_is_not_claimed_verified() -> None:
    second, _ = session_pairs(PAYLOADS[2:], "s2", start="1" * 64, prior="s1")
    result = run(flat(second))
    start = next(c for c in result.checks if c.id == "chain.start")
    assert start.status == "not-evaluated" and "s1" in start.reason


def test_mutated_payload() -> None:
    pairs, _ = session_pairs(PAYLOADS)
    pairs[2][0] = pairs[2][0].replace(b'"deny"', b'"allow"')
    result = run(flat(pairs))
    assert breaks(result) == [("mutation", 2)]
    assert result.first_break is not None and result.first_break["location"] == "log:7"


def test_mutated_and_resealed_payload() -> None:
    pairs, _ = session_pairs(PAYLOADS)
    forged = pairs[1][0].replace(b'"deny"', b'"allow"')
    prev = json.loads(pairs[1][1])["prev_head"]
    pairs[1] = [forged, record(1, "s1", prev, step(prev, forged)), pairs[1][2]]
    result = run(flat(pairs))
    assert breaks(result) == [("mutation", 2)]


def test_mutated_head_field() -> None:
    pairs, _ = session_pairs(PAYLOADS)
    doc = json.loads(pairs[1][1])
    doc["head"] = "0" * 64
    pairs[1][1] = json.dumps(doc, separators=(",", ":")).encode()
    result = run(flat(pairs))
    kinds = breaks(result)
    assert kinds[0] == ("mutation", 1) and ("mutation", 2) in kinds


def test_inserted_record() -> None:
    pairs, _ = session_pairs(PAYLOADS)
    prev = json.loads(pairs[1][1])["head"]
    fake = b"inserted decision"
    pairs.insert(2, [fake, record(2, "s1", prev, step(prev, fake))])
    result = run(flat(pairs))
    assert result.first_break is not None
    assert result.first_break["kind"] == "insertion"


def test_duplicated_record() -> None:
    pairs, _ = session_pairs(PAYLOADS)
    pairs.insert(2, list(pairs[1]))
    result = run(flat(pairs))
    assert result.first_break is not None and result.first_break["kind"] == "insertion"


def test_reordered_records() -> None:
    pairs, _ = session_pairs(PAYLOADS)
    pairs[1], pairs[2] = pairs[2], pairs[1]
    result = run(flat(pairs))
    assert breaks(result) == [("reordering", 2)]


def test_deleted_record() -> None:
    pairs, _ = session_pairs(PAYLOADS)
    del pairs[2]
    result = run(flat(pairs))
    assert breaks(result) == [("deletion", 3)]


def test_deleted_payload_line() -> None:
    pairs, _ = session_pairs(PAYLOADS)
    pairs[2] = pairs[2][1:]
    pairs[1] = pairs[1][:2]  # the record now directly follows the previous record
    result = run(flat(pairs))
    assert ("deletion", 2) in breaks(result)


def test_unchained_audit_line_is_reported() -> None:
    pairs, _ = session_pairs(PAYLOADS[:2])
    data = flat(pairs) + PAYLOADS[2] + b"\n"
    result = run(data)
    assert any(c.id == "chain.unchained-payload" and c.status == "fail" for c in result.checks)


def test_malformed_record_is_refused() -> None:
    pairs, _ = session_pairs(PAYLOADS[:2])
    doc = json.loads(pairs[1][1])
    doc["extra"] = 1
    pairs[1][1] = json.dumps(doc).encode()
    result = run(flat(pairs))
    bad = [c for c in result.checks if c.id == "chain.record-malformed"]
    assert bad and "extra" in bad[0].reason


class TestTruncation:
    pairs, head = session_pairs(PAYLOADS)
    cut = flat(pairs[:3])

    def test_without_anchor_only_says_unanchored(self) -> None:
        result = run(self.cut)
        assert result.ok and result.unanchored_tail
        assert any(c.id == "chain.tail-unanchored" for c in result.checks)

    def test_expect_count(self) -> None:
        result = run(self.cut, Anchor(count=5))
        assert not result.ok and not result.unanchored_tail
        assert any(c.id == "chain.truncated" for c in result.checks)
        assert run(flat(self.pairs), Anchor(count=5)).ok

    def test_expect_head(self) -> None:
        assert any(c.id == "chain.truncated" for c in run(self.cut, Anchor(head=self.head)).checks)
        assert run(flat(self.pairs), Anchor(head=self.head)).ok

    def test_state_file(self) -> None:
        state = json.dumps({"seal_audit_state": "v1", "session": "s1", "head": self.head})
        session, head = parse_state_file(state.encode() + b"\n")
        anchor = Anchor(state_session=session, state_head=head)
        assert any(c.id == "chain.truncated" for c in run(self.cut, anchor).checks)
        full = run(flat(self.pairs), anchor)
        assert full.ok and any(c.id == "chain.anchor-state" for c in full.checks)

    def test_state_file_from_another_session(self) -> None:
        anchor = Anchor(state_session="other", state_head=self.head)
        assert not run(flat(self.pairs), anchor).ok


@pytest.mark.parametrize(
    "text",
    [
        b"{}",
        b'{"seal_audit_state":"v2","session":"s","head":"' + b"a" * 64 + b'"}',
        b'{"seal_audit_state":"v1","session":"","head":"' + b"a" * 64 + b'"}',
        b'{"seal_audit_state":"v1","session":"s","head":"' + b"A" * 64 + b'"}',
        b'{"seal_audit_state":"v1","session":"s","head":"a","x":1}',
    ],
)
def test_bad_state_files(text: bytes) -> None:
    with pytest.raises(ValueError):
        parse_state_file(text)


def _real_receipt() -> tuple[bytes, str, str]:
    path = shared_path(
        "fixtures", "seal", "seal-check", "test", "fixtures", "host-v3-block.receipt.json"
    )
    data = path.read_bytes()
    doc = json.loads(data)
    return data, json.loads(doc["emitted_bytes"])["audit"], doc["request_sha256"]


def test_receipt_binds_to_chain_payload() -> None:
    data, audit, _ = _real_receipt()
    pairs, _ = session_pairs([PAYLOADS[0], audit.encode(), PAYLOADS[3]])
    records = chain.parse_log([("log", flat(pairs))])[0]
    checks = bind_receipts(records, [chain.receipt_audit("r.json", data)])
    assert [c.status for c in checks if c.id == "chain.receipt-binding"] == ["pass"]
    assert not any(c.status == "fail" for c in checks)


def test_receipt_request_hash_mismatch() -> None:
    _, audit, request = _real_receipt()
    pairs, _ = session_pairs([audit.encode()])
    records = chain.parse_log([("log", flat(pairs))])[0]
    forged = ReceiptAudit("r.json", audit, request[:-1] + ("0" if request[-1] != "0" else "1"))
    checks = bind_receipts(records, [forged])
    assert any(c.id == "chain.receipt-request" and c.status == "fail" for c in checks)


def test_receipt_missing_from_log() -> None:
    data, _, _ = _real_receipt()
    pairs, _ = session_pairs(PAYLOADS[:2])
    records = chain.parse_log([("log", flat(pairs))])[0]
    checks = bind_receipts(records, [chain.receipt_audit("r.json", data)])
    assert any(c.id == "chain.receipt-binding" and c.status == "fail" for c in checks)


class TestCli:
    def _write(self, tmp_path: Path, data: bytes) -> str:
        path = tmp_path / "stderr.log"
        path.write_bytes(data)
        return str(path)

    def test_exit_codes(self, tmp_path: Path) -> None:
        pairs, head = session_pairs(PAYLOADS)
        log = self._write(tmp_path, flat(pairs))
        runner = CliRunner()
        assert runner.invoke(cli, ["chain", log]).exit_code == 3
        assert runner.invoke(cli, ["chain", log, "--expect-head", head]).exit_code == 0
        assert runner.invoke(cli, ["chain", log, "--expect-count", "6"]).exit_code == 1
        assert runner.invoke(cli, ["chain", log, "--expect-head", "XYZ"]).exit_code == 2
        assert runner.invoke(cli, ["chain", str(tmp_path / "missing")]).exit_code == 2

    @pytest.mark.parametrize("fmt", ["table", "json", "sarif", "junit"])
    def test_formats_name_the_break(self, tmp_path: Path, fmt: str) -> None:
        pairs, _ = session_pairs(PAYLOADS)
        del pairs[2]
        log = self._write(tmp_path, flat(pairs))
        result = CliRunner().invoke(cli, ["chain", log, "--format", fmt])
        assert result.exit_code == 1
        assert "chain.break" in result.stdout

    def test_json_facts(self, tmp_path: Path) -> None:
        pairs, _ = session_pairs(PAYLOADS)
        pairs[1], pairs[2] = pairs[2], pairs[1]
        log = self._write(tmp_path, flat(pairs))
        out = CliRunner().invoke(cli, ["chain", log, "--format", "json"])
        facts = json.loads(out.stdout)["subjects"][0]["facts"]
        assert facts["first_break"]["kind"] == "reordering" and facts["records"] == 5

    def test_state_file_option(self, tmp_path: Path) -> None:
        pairs, head = session_pairs(PAYLOADS)
        log = self._write(tmp_path, flat(pairs[:4]))
        state = tmp_path / ".seal-audit-head.state"
        state.write_text(json.dumps({"seal_audit_state": "v1", "session": "s1", "head": head}))
        out = CliRunner().invoke(cli, ["chain", log, "--state-file", str(state)])
        assert out.exit_code == 1 and "chain.truncated" in out.stdout


_payload = st.binary(min_size=0, max_size=40).filter(
    lambda b: b"\n" not in b and not b.startswith(b"{")
)


@settings(max_examples=150, deadline=None)
@given(
    payloads=st.lists(_payload, min_size=4, max_size=9),
    op=st.sampled_from(["mutation", "deletion", "reordering", "insertion"]),
    where=st.integers(min_value=1, max_value=100),
)
def test_every_single_tampering_is_caught_and_classified(
    payloads: list[bytes], op: str, where: int
) -> None:
    pairs, head = session_pairs(payloads)
    k = 1 + where % (len(pairs) - 2)  # an inner position: the ends are start/truncation cases
    if op == "mutation":
        pairs[k][0] = pairs[k][0] + b"!"
    elif op == "deletion":
        del pairs[k]
    elif op == "reordering":
        pairs[k], pairs[k + 1] = pairs[k + 1], pairs[k]
    else:
        prev = json.loads(pairs[k - 1][1])["head"]
        pairs.insert(k, [b"forged", record(k, "s1", prev, step(prev, b"forged"))])
    result = run(flat(pairs), Anchor(head=head))
    assert not result.ok
    assert result.first_break is not None and result.first_break["kind"] == op


def test_a_break_quotes_the_payload_line_that_broke(tmp_path: Path) -> None:
    # Two 64-hex heads said nothing a person could compare with the host's copy: the reason
    # leads with the payload line; the heads stay whole in "compared".
    host = Path(__file__).resolve().parents[2] / "fixtures" / "chain" / "host.stderr"
    log = tmp_path / "edited.stderr"
    log.write_bytes(host.read_bytes().replace(b"search_notes", b"search_notez", 1))
    result = CliRunner().invoke(cli, ["chain", str(log), "--format", "json"])
    checks = json.loads(result.stdout)["subjects"][0]["checks"]
    first = next(c for c in checks if c["id"] == "chain.break")
    assert first["location"].endswith("edited.stderr:1")
    assert '"tool":"search_notez"' in first["reason"]
    assert [len(h) for h in first["data"]["heads"].values()] == [64, 64]
