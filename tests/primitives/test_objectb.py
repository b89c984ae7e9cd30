from pathlib import Path

import pytest

from sealverify._internal.primitives.objectb import (
    OBJECT_B_V1,
    OBJECT_B_V2,
    blob,
    preimage_v1,
    preimage_v2,
)
from sealverify._internal.primitives.signatures import (
    b64_std_decode_canonical,
    b64url_nopad_decode,
    ed25519_verify,
    hex_key,
    key_id,
)
from sealverify._internal.wire import serdejson, strictjson
from tests.conftest import shared_path


def _split(path: Path) -> tuple[dict[str, strictjson.JsonValue], dict[str, str], bytes]:
    record = strictjson.parse_bytes(path.read_bytes())
    assert isinstance(record, dict)
    signature = record.pop("signature")
    assert isinstance(signature, dict)
    object_b = serdejson.compact(record, exact=True).encode("utf-8")
    return record, {k: v for k, v in signature.items() if isinstance(v, str)}, object_b


def _check(signature: dict[str, str], preimage: bytes) -> bool:
    public_key = hex_key(signature["public_key"])
    assert key_id(public_key) == signature["key_id"]
    return ed25519_verify(public_key, preimage, b64url_nopad_decode(signature["value"]))


def test_v1_vector_from_seal_check() -> None:
    # seal-check receipt-format test: {"a":1} -> tag, NUL, u64be(7), bytes.
    assert (
        preimage_v1(b'{"a":1}')
        == b"seal.object-b/v1\x00\x00\x00\x00\x00\x00\x00\x00\x07" + b'{"a":1}'
    )


def test_blob() -> None:
    assert blob(b"") == b"\x01"
    assert blob(b"\x01\xff") == b"\x00\x01\x00\xff\x01"


def test_v2_layout_by_hand() -> None:
    got = preimage_v2(b"A", None, b"B", "NOT_APPLICABLE", "o", "asserted_local_fsync")
    assert (
        got
        == b"seal.object-b/v2\x00"
        + b"\x00A\x01"
        + b"\x02"
        + b"\x00B\x01"
        + b"\x07"
        + b"\x00o\x01"
        + b"\x08"
    )
    with_approval = preimage_v2(b"", b"S", b"", "RELEASED", "", "witnessed_external")
    assert with_approval == b"seal.object-b/v2\x00\x01\x03\x00S\x01\x01\x06\x01\x09"


@pytest.mark.parametrize(
    ("status", "durability"), [("released", "unknown"), ("RELEASED", "UNKNOWN"), ("", "unknown")]
)
def test_v2_unknown_tags(status: str, durability: str) -> None:
    with pytest.raises(ValueError):
        preimage_v2(b"", None, b"", status, "", durability)


def test_real_host_v3_block_v1_signature() -> None:
    path = shared_path(
        "fixtures", "seal", "seal-check", "test", "fixtures", "host-v3-block.receipt.json"
    )
    _, signature, object_b = _split(path)
    assert signature["domain"] == OBJECT_B_V1
    assert _check(signature, preimage_v1(object_b))
    assert not _check(signature, preimage_v1(object_b + b" "))


def _v2_fixture() -> tuple[dict[str, strictjson.JsonValue], dict[str, str], bytes]:
    return _split(
        shared_path(
            "fixtures", "seal", "seal-assurance-kit", "fixtures", "object-b-v2-host-04f7ba83.json"
        )
    )


def _v2_preimage(record: dict[str, strictjson.JsonValue], object_b: bytes, **over: str) -> bytes:
    artifacts = record["signed_artifacts"]
    assert isinstance(artifacts, dict) and isinstance(artifacts["object_a"], str)
    assert artifacts["approval_statement"] is None
    fields = {k: record[k] for k in ("release_status", "operation_id", "durability_class")}
    fields.update(over)
    assert all(isinstance(v, str) for v in fields.values())
    return preimage_v2(
        b64_std_decode_canonical(artifacts["object_a"]),
        None,
        object_b,
        str(fields["release_status"]),
        str(fields["operation_id"]),
        str(fields["durability_class"]),
    )


def test_real_object_b_v2_signature() -> None:
    record, signature, object_b = _v2_fixture()
    assert signature["domain"] == OBJECT_B_V2
    assert _check(signature, _v2_preimage(record, object_b))


def test_real_v2_signature_binds_release_fields() -> None:
    record, signature, object_b = _v2_fixture()
    assert not _check(signature, _v2_preimage(record, object_b, release_status="RELEASED"))
    assert not _check(signature, _v2_preimage(record, object_b, durability_class="unknown"))
    assert not _check(signature, _v2_preimage(record, object_b, operation_id="0" * 64))


def test_domain_separation_v1_preimage_of_v2_fixture_fails() -> None:
    _, signature, object_b = _v2_fixture()
    assert not _check(signature, preimage_v1(object_b))
