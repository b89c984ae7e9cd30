"""signed_config checks worked out once per distinct config, never reused for other bytes.

Each attack is minted by the testkit, changed and re-signed; every verdict is also compared
with the reference mode's, where nothing is cached.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from sealverify_testkit import mint

from sealverify._internal import fastpath
from sealverify._internal.primitives.signatures import hex_key
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts import bindings
from sealverify._internal.receipts.bindings import config_signature
from sealverify._internal.receipts.verify import VerifyOptions, verify_receipt

Doc = dict[str, Any]
OPTS = VerifyOptions(
    TrustStore.from_pins(
        config=[mint.CONFIG_KEY.public_hex], receipt=[mint.RECEIPT_KEY.public_hex]
    ),
    allow_published_keys=True,
)


def _record() -> Doc:
    return mint.parse_record(next(iter(mint.mint_many(1))))


def _statuses(record: Doc, check_id: str) -> set[str]:
    subject = verify_receipt(mint.render_pretty(record), "r.json", OPTS)
    return {c.status for c in subject.checks if c.id == check_id}


def _resign_config(record: Doc, payload: str, key: mint.TestKey) -> Doc:
    changed = copy.deepcopy(record)
    changed["signed_config"].update(
        payload=payload,
        pubkey=key.public_hex,
        signature=key.sign(payload.encode()).hex(),
    )
    return mint.resign_v3(changed, mint.RECEIPT_KEY)


def test_one_config_is_decoded_once_for_every_receipt(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _record(), _record()
    assert first["signed_config"] == second["signed_config"]
    assert first["signed_config"] is not second["signed_config"]
    decoded: list[str] = []

    def counted(text: str) -> bytes:
        decoded.append(text)
        return hex_key(text)

    monkeypatch.setattr(bindings.signatures, "hex_key", counted)
    with fastpath.use_reference(False):
        one, two = config_signature(first), config_signature(second)
    assert [c.status for c in one] == ["pass"]
    assert two == one
    assert decoded == [first["signed_config"]["pubkey"]]  # worked out once
    with fastpath.use_reference():
        assert config_signature(first) == one


def test_a_changed_payload_under_a_known_signature_is_refused_after_a_hit() -> None:
    honest = _record()
    assert _statuses(honest, "signature.config") == {"pass"}  # the cache now holds it
    tampered = copy.deepcopy(honest)
    tampered["signed_config"]["payload"] = tampered["signed_config"]["payload"].replace(
        '"epoch":', '"epoch": ', 1
    )
    assert tampered["signed_config"]["payload"] != honest["signed_config"]["payload"]
    tampered = mint.resign_v3(tampered, mint.RECEIPT_KEY)
    assert _statuses(tampered, "signature.config") == {"fail"}
    with fastpath.use_reference():
        assert _statuses(tampered, "signature.config") == {"fail"}


def test_a_config_resigned_by_another_key_claiming_the_pinned_one_is_refused() -> None:
    honest = _record()
    assert _statuses(honest, "signature.config") == {"pass"}
    payload = honest["signed_config"]["payload"]
    forged = _resign_config(honest, payload, mint.OTHER_CONFIG_KEY)
    forged["signed_config"]["pubkey"] = mint.CONFIG_KEY.public_hex
    forged = mint.resign_v3(forged, mint.RECEIPT_KEY)
    assert _statuses(forged, "signature.config") == {"fail"}


def test_a_config_resigned_under_its_own_unpinned_key_is_not_trusted() -> None:
    honest = _record()
    forged = _resign_config(honest, honest["signed_config"]["payload"], mint.OTHER_CONFIG_KEY)
    assert _statuses(forged, "signature.config") == {"pass"}
    assert _statuses(forged, "authority.config-key") == {"fail"}


def test_members_that_are_not_strings_take_the_uncached_path_with_the_same_words() -> None:
    record = _record()
    for member, value in (("pubkey", 7), ("signature", None), ("payload", ["x"])):
        changed = copy.deepcopy(record)
        changed["signed_config"][member] = value
        checks = config_signature(changed)
        assert [c.status for c in checks] == ["fail"], member
        with fastpath.use_reference():
            assert config_signature(changed) == checks, member
