"""History reads once what receipts share: a signed config's payload, its signer's mark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sealverify_testkit import mint
from sealverify_testkit.records import parse_record, render_compact

from sealverify._internal import fastpath
from sealverify._internal.history import facts
from sealverify._internal.history.facts import ReceiptFacts
from sealverify._internal.history.state import HistoryStore
from sealverify._internal.wire.strictjson import JsonValue, parse_bytes


def _documents(n: int) -> list[dict[str, JsonValue]]:
    docs = [parse_bytes(render_compact(parse_record(r))) for r in mint.mint_many(n, seed=b"f")]
    assert all(isinstance(d, dict) for d in docs)
    return docs  # type: ignore[return-value]


def _payload(doc: dict[str, JsonValue]) -> str:
    signed = doc["signed_config"]
    assert isinstance(signed, dict) and isinstance(signed["payload"], str)
    return signed["payload"]


def test_a_signed_configs_payload_is_parsed_once_for_its_receipts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    docs = _documents(40)
    payloads = {_payload(d) for d in docs}
    assert len(payloads) < len(docs)  # receipts share their host's signed configs
    with fastpath.use_reference():  # the definitions: each receipt's payload parsed afresh
        expected = [facts.receipt_facts(d, f"r{i}") for i, d in enumerate(docs)]
    parses: list[str] = []
    parse_text = facts.parse_text

    def counted(text: str) -> JsonValue:
        parses.append(text)
        return parse_text(text)

    monkeypatch.setattr(facts, "parse_text", counted)
    facts._signed_epoch.cache_clear()
    found = [facts.receipt_facts(d, f"r{i}") for i, d in enumerate(docs)]
    assert found == expected
    assert any(f.config_epoch is not None for f in found)
    assert len(parses) == len(payloads)  # one a payload; one a receipt before


@pytest.mark.parametrize("payload", ['{"epoch":7}', '{"epoch":-1}', "not json", "[1]", "{}"])
def test_an_epoch_is_read_as_the_definition_reads_it(payload: str) -> None:
    doc = _documents(1)[0]
    signed = doc["signed_config"]
    assert isinstance(signed, dict)
    signed["payload"] = payload
    with fastpath.use_reference():
        expected = facts.receipt_facts(doc, "r")
    assert facts.receipt_facts(doc, "r") == facts.receipt_facts(doc, "r") == expected
    assert expected.config_epoch == (7 if payload == '{"epoch":7}' else None)


def test_a_signers_high_water_mark_is_read_once_for_the_receipts_it_signed(
    tmp_path: Path,
) -> None:
    """Receipts share their host's config signer: one read of its mark for a run's checks."""
    signer = "ab" * 32
    with HistoryStore(tmp_path / "state.db") as store:
        store.check_and_stage([ReceiptFacts("first", config_signer=signer, config_epoch=9)])
        store.commit()
    later = [
        ReceiptFacts(f"r{i}", config_signer=signer, config_epoch=5 + i % 6, established=False)
        for i in range(12)
    ]
    with HistoryStore(tmp_path / "state.db") as store:
        reads: list[str] = []
        one = store._db.one

        def counted(sql: str, params: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
            reads.append(sql)
            return one(sql, params)

        store._db.one = counted  # type: ignore[method-assign]
        checks = store.check_and_stage(later)
    assert sum("config_epochs" in sql for sql in reads) == 1  # one a receipt before
    failed = [c.location for c in checks if c.id == "history.config-rollback"]
    assert failed == [
        f.location for f in later if f.config_epoch is not None and f.config_epoch < 9
    ]
    assert len(failed) == 8  # epochs 5 to 8 twice each; 9 and 10 are not below the mark
