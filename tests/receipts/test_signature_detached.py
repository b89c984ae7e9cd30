"""Object B through libsodium's detached call: honest receipts pass, re-signed lies do not.

The receipt key's verdict comes from ``crypto_sign_verify_detached`` (primitives/signatures.py);
each attack is minted by the testkit, changed, and re-signed as an attacker would.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sealverify_testkit import mint

from sealverify._internal.primitives import signatures
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import VerifyOptions, verify_receipt
from sealverify._internal.results.model import Subject

OPTS = VerifyOptions(
    TrustStore.from_pins(
        config=[mint.CONFIG_KEY.public_hex], receipt=[mint.RECEIPT_KEY.public_hex]
    ),
    allow_published_keys=True,
)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every answer of the detached call, counted: the path under test must be the one taken."""
    detached = signatures._detached()
    if detached is None:
        pytest.skip("libsodium's detached call is not exported here")
    answers: list[int] = []

    def spy(sig: bytes, message: bytes, length: int, key: bytes) -> int:
        answers.append(detached(sig, message, length, key))
        return answers[-1]

    monkeypatch.setitem(signatures._LOADED, "verify", spy)
    yield answers


def _record() -> mint.Record:
    return mint.parse_record(next(iter(mint.mint_many(1))))


def _status(subject: Subject, check_id: str) -> set[str]:
    return {c.status for c in subject.checks if c.id == check_id}


def _verify(record: mint.Record) -> Subject:
    return verify_receipt(mint.render_pretty(record), "r.json", OPTS)


def test_the_honest_receipt_verifies_through_the_detached_call(calls: list[int]) -> None:
    subject = _verify(_record())
    assert _status(subject, "signature.object-b") == {"pass"}
    assert 0 in calls


def test_changed_content_under_the_old_signature_is_refused(calls: list[int]) -> None:
    record = _record()
    record["operation_id"] = "op-" + "f" * 32
    subject = _verify(record)
    assert _status(subject, "signature.object-b") == {"fail"}
    assert subject.outcome == "FAIL"
    assert calls[-1] != 0


def test_resigned_by_another_key_claiming_the_pinned_one_is_refused(calls: list[int]) -> None:
    record = mint.resign_v3(_record(), mint.OTHER_RECEIPT_KEY)
    assert isinstance(record["signature"], dict)
    record["signature"]["public_key"] = mint.RECEIPT_KEY.public_hex
    record["signature"]["key_id"] = signatures.key_id(mint.RECEIPT_KEY.public_key)
    subject = _verify(record)
    assert _status(subject, "signature.object-b") == {"fail"}
    assert subject.outcome == "FAIL"
    assert calls[-1] != 0


def test_resigned_by_another_key_under_its_own_name_is_refused(calls: list[int]) -> None:
    record = _record()
    record["operation_id"] = "op-" + "e" * 32
    subject = _verify(mint.resign_v3(record, mint.OTHER_RECEIPT_KEY))
    assert _status(subject, "signature.object-b") == {"pass"}  # its own key signed it
    assert _status(subject, "authority.receipt-key") == {"fail"}  # that key is not pinned
    assert subject.outcome == "FAIL"
    assert calls[-1] == 0
