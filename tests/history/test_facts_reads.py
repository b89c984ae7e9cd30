"""History facts read a signed config's payload once for the receipts that carry it."""

from __future__ import annotations

import pytest
from sealverify_testkit import mint
from sealverify_testkit.records import parse_record, render_compact

from sealverify._internal import fastpath
from sealverify._internal.history import facts
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
