import json

import pytest

from sealverify._internal.primitives.trust import PinnedKey, TrustStore, load_trust_file

A = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
B = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"
C = "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025"


def _file(keys: list[dict[str, object]], **top: object) -> bytes:
    return json.dumps({"sealverify_trust": 1, "keys": keys, **top}).encode()


def test_empty_store_is_unpinned_for_every_role() -> None:
    store = TrustStore()
    for role in ("config", "receipt", "approval"):
        assert store.decide(role, A, 0) == "unpinned"


def test_flag_pins() -> None:
    store = TrustStore.from_pins(config=[A], receipt=[B, C])
    assert store.decide("config", A, None) == "trusted"
    assert store.decide("config", B, None) == "untrusted"
    assert store.decide("receipt", C, 5) == "trusted"
    assert store.decide("receipt", A, 5) == "untrusted"
    assert store.decide("approval", A, 5) == "unpinned"


def test_comparison_is_exact_lowercase_hex() -> None:
    store = TrustStore.from_pins(config=[A])
    assert store.decide("config", A.upper(), None) == "untrusted"


def test_a_pin_in_either_case_is_the_same_lowercase_pin() -> None:
    # One rule for every pin: flags, trust file keys and kernels accept either case and keep
    # lowercase, the spelling receipts carry (an uppercase pin used to be refused).
    flags = TrustStore.from_pins(config=[A.upper()], receipt=[C[:10].upper() + C[10:]])
    assert [k.public_key for k in flags.keys] == [A, C]
    assert flags.decide("config", A, None) == "trusted"
    loaded = load_trust_file(
        _file([{"public_key": A.upper(), "roles": ["config"]}], kernels=[B.upper()])
    )
    assert loaded.keys[0].public_key == A and loaded.kernels == (B,)
    assert loaded.decide("config", A, None) == "trusted"
    twice = _file(
        [{"public_key": A, "roles": ["config"]}, {"public_key": A.upper(), "roles": ["receipt"]}]
    )
    with pytest.raises(ValueError, match="listed twice"):
        load_trust_file(twice)


@pytest.mark.parametrize("bad", [A[:-1], A + "0", "", "zz" * 32, " " + A])
def test_bad_flag_pin_names_the_flag(bad: str) -> None:
    with pytest.raises(ValueError, match="--receipt-pubkey"):
        TrustStore.from_pins(receipt=[bad])


def test_unknown_role_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown trust role"):
        TrustStore().decide("signer", A, None)


def test_trust_file_roles_and_windows() -> None:
    store = load_trust_file(
        _file(
            [
                {"public_key": A, "roles": ["config", "approval"], "label": "ops"},
                {"public_key": B, "roles": ["receipt"], "not_before": 100, "not_after": 200},
            ]
        )
    )
    assert store.decide("config", A, None) == "trusted"
    assert store.decide("approval", A, 1) == "trusted"
    assert store.decide("receipt", A, 150) == "untrusted"
    assert [store.decide("receipt", B, t) for t in (99, 100, 200, 201)] == [
        "untrusted",
        "trusted",
        "trusted",
        "untrusted",
    ]
    # No time to judge a windowed pin at: neither trusted nor refused (verify: not evaluated).
    decision, reason = store.decide_with_reason("receipt", B, None)
    assert decision == "unjudged"
    assert "validity window" in reason and "now" in reason
    decision, reason = store.decide_with_reason("receipt", B, 201)
    assert "outside" in reason and "[100, 200]" in reason
    assert "ops" in store.decide_with_reason("config", A, None)[1]


def test_open_ended_windows() -> None:
    store = load_trust_file(
        _file([{"public_key": A, "roles": ["config"], "not_before": 10}])
    ).merge(load_trust_file(_file([{"public_key": B, "roles": ["config"], "not_after": 10}])))
    assert store.decide("config", A, 10**12) == "trusted"
    assert store.decide("config", A, 9) == "untrusted"
    assert store.decide("config", B, 0) == "trusted"
    assert store.decide("config", B, 11) == "untrusted"


def test_merge_keeps_all_pins_and_an_unwindowed_pin_wins() -> None:
    windowed = load_trust_file(
        _file([{"public_key": A, "roles": ["config"], "not_before": 0, "not_after": 1}])
    )
    merged = windowed.merge(TrustStore.from_pins(config=[A]))
    assert windowed.decide("config", A, 5) == "untrusted"
    assert merged.decide("config", A, 5) == "trusted"
    assert len(merged.keys) == 2
    assert TrustStore().merge(windowed, windowed).keys == windowed.keys * 2


def test_store_is_frozen() -> None:
    store = TrustStore.from_pins(config=[A])
    with pytest.raises(AttributeError):
        store.keys = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        store.keys[0].public_key = B  # type: ignore[misc]
    assert isinstance(store.keys[0], PinnedKey)


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        (b"", "not strict JSON"),
        (b"[]", "expected an object"),
        (b'{"sealverify_trust":1,"keys":[],"keys":[]}', "not strict JSON"),
        (_file([], extra=1), "unknown member"),
        (b'{"keys":[]}', "missing member"),
        (b'{"sealverify_trust":2,"keys":[]}', "must be 1"),
        (b'{"sealverify_trust":1.0,"keys":[]}', "must be 1"),
        (b'{"sealverify_trust":"1","keys":[]}', "must be 1"),
        (b'{"sealverify_trust":1,"keys":{}}', "expected an array"),
        (_file([{"public_key": A}]), "missing member"),
        (_file([{"public_key": A, "roles": ["config"], "comment": "x"}]), "unknown member"),
        (_file([{"public_key": A[:-1] + "g", "roles": ["config"]}]), "64 hex digits"),
        (_file([{"public_key": 1, "roles": ["config"]}]), "expected a string"),
        (_file([{"public_key": A, "roles": []}]), "non-empty"),
        (_file([{"public_key": A, "roles": "config"}]), "non-empty array"),
        (_file([{"public_key": A, "roles": ["signer"]}]), "roles/0"),
        (_file([{"public_key": A, "roles": ["config", "config"]}]), "twice"),
        (_file([{"public_key": A, "roles": ["config"], "not_before": -1}]), "non-negative"),
        (_file([{"public_key": A, "roles": ["config"], "not_before": 1.5}]), "non-negative"),
        (_file([{"public_key": A, "roles": ["config"], "not_after": 2**53}]), "2\\^53"),
        (_file([{"public_key": A, "roles": ["config"], "not_before": 2, "not_after": 1}]), "after"),
        (_file([{"public_key": A, "roles": ["config"], "label": 3}]), "label"),
        (
            _file(
                [{"public_key": A, "roles": ["config"]}, {"public_key": A, "roles": ["receipt"]}]
            ),
            "listed twice",
        ),
    ],
)
def test_trust_file_refusals(document: bytes, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        load_trust_file(document)


def test_documented_example_loads() -> None:
    # The example block in docs/trust.md must stay loadable.
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "trust.md").read_text()
    block = text.split("```json\n", 1)[1].split("```", 1)[0]
    store = load_trust_file(block.encode())
    assert store.pinned("config") and store.pinned("receipt")


def test_trust_file_kernels_member() -> None:
    from sealverify._internal.primitives.trust import load_trust_file

    build = "ab" * 32
    store = load_trust_file(
        b'{"sealverify_trust":1,"keys":[],"kernels":["' + build.encode() + b'"]}'
    )
    assert store.kernels == (build,)
    assert store.merge(store).kernels == (build,)
    for bad in (b'"x"', b'["AG' + b"0" * 62 + b'"]', b'["' + build.encode() * 2 + b'"]'):
        with pytest.raises(ValueError, match="kernels"):
            load_trust_file(b'{"sealverify_trust":1,"keys":[],"kernels":' + bad + b"}")
    twice = b'["' + build.encode() + b'","' + build.encode() + b'"]'
    with pytest.raises(ValueError, match="twice"):
        load_trust_file(b'{"sealverify_trust":1,"keys":[],"kernels":' + twice + b"}")
