"""Shared with other test modules by tests/primitives/test_mint.py."""

from __future__ import annotations

from sealverify._internal.primitives.objectb import OBJECT_B_V1, preimage_v1, preimage_v2
from sealverify._internal.primitives.signatures import (
    b64_std_decode_canonical,
    b64url_nopad_decode,
    ed25519_verify,
    hex_key,
    key_id,
)
from sealverify._internal.wire import serdejson, strictjson


def parsed_record(data: bytes) -> dict[str, strictjson.JsonValue]:
    value = strictjson.parse_bytes(data)
    assert isinstance(value, dict)
    return value


def object_b_ok(data: bytes) -> bool:
    """Verify a v3 receipt's Object B with the primitives only (independent of mint.py)."""
    record = parsed_record(data)
    signature = record.pop("signature")
    assert isinstance(signature, dict)
    assert key_id(hex_key(str(signature["public_key"]))) == signature["key_id"]
    object_b = serdejson.compact(record, exact=True).encode()
    if signature["domain"] == OBJECT_B_V1:
        preimage = preimage_v1(object_b)
    else:
        artifacts = record["signed_artifacts"]
        assert isinstance(artifacts, dict)
        preimage = preimage_v2(
            b64_std_decode_canonical(str(artifacts["object_a"])),
            None,
            object_b,
            str(record["release_status"]),
            str(record["operation_id"]),
            str(record["durability_class"]),
        )
    return ed25519_verify(
        hex_key(str(signature["public_key"])),
        preimage,
        b64url_nopad_decode(str(signature["value"])),
    )


def config_ok(record: dict[str, strictjson.JsonValue]) -> bool:
    signed = record["signed_config"]
    assert isinstance(signed, dict)
    payload = str(signed["payload"])
    assert payload == serdejson.compact(record["kernel_config"], exact=True)
    return ed25519_verify(
        bytes.fromhex(str(signed["pubkey"])),
        payload.encode(),
        bytes.fromhex(str(signed["signature"])),
    )
