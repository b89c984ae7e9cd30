"""Re-sign a mutated receipt with the testkit keys, so a mutant gets past the signatures."""

from __future__ import annotations

import binascii

from sealverify_testkit import keys
from sealverify_testkit.mint import resign_v3
from sealverify_testkit.records import parse_record, render_compact, render_pretty, sign_config

from sealverify._internal.primitives.objectb import OBJECT_B_V1, OBJECT_B_V2
from sealverify._internal.wire.serdejson import NumberNotRepresentable
from sealverify._internal.wire.strictjson import JsonError, parse_text

__all__ = ["resign"]

_KEYS = {
    key.public_hex: key
    for key in (keys.RECEIPT_KEY, keys.OTHER_RECEIPT_KEY, keys.CONFIG_KEY, keys.OTHER_CONFIG_KEY)
}
# What the testkit's signing helpers raise on a record too broken to sign: then the mutant is
# kept unsigned (it still exercises the signature checks).
_UNSIGNABLE = (
    AssertionError, KeyError, TypeError, ValueError, binascii.Error, JsonError,
    NumberNotRepresentable,
)  # fmt: skip


def resign(data: bytes) -> bytes | None:
    """``data`` with its ``signed_config`` and Object B signature made again, else None."""
    try:
        record = parse_record(data)
    except _UNSIGNABLE:
        return None
    try:
        config = record.get("signed_config")
        if isinstance(config, dict) and isinstance(config.get("payload"), str):
            signer = _KEYS.get(str(config.get("pubkey")), keys.CONFIG_KEY)
            record["signed_config"] = sign_config(parse_text(str(config["payload"])), signer)
        signature = record.get("signature")
        if isinstance(signature, dict):
            signer = _KEYS.get(str(signature.get("public_key")), keys.RECEIPT_KEY)
            domain = signature.get("domain")
            record = resign_v3(record, signer, domain if domain == OBJECT_B_V1 else OBJECT_B_V2)
    except _UNSIGNABLE:
        return None
    pretty = b"\n  " in data
    try:
        return render_pretty(record) if pretty else render_compact(record) + b"\n"
    except _UNSIGNABLE:
        return None
