"""DSSE envelopes through securesystemslib: signing Statements, reading and checking envelopes.

The envelope layer is securesystemslib's ``dsse.Envelope`` (PAE, base64, signature
verification); this module only writes one envelope per JSON line (the ``.intoto.jsonl`` layout
of in-toto/attestation ``spec/v1/bundle.md``), reads one back strictly, and makes two readings
the DSSE specification allows explicit: a signature without a ``keyid`` (secure-systems-lab/dsse
``envelope.md``: the key id is an optional, unauthenticated hint) and an ECDSA signature as the
raw ``r || s`` of the specification's own test vector (``protocol.md``) rather than DER.
"""

from __future__ import annotations

import binascii
import json
from collections.abc import Mapping, Sequence

from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import Key, Signature, Signer, SSlibKey

from sealverify._internal.attest.statement import PAYLOAD_TYPE, payload

__all__ = ["loads", "open_envelope", "read_documents", "sign_statements", "signature_verifies"]


def sign_statements(statements: Sequence[Mapping[str, object]], signer: Signer) -> bytes:
    """One DSSE envelope per statement, each signed by ``signer``, one JSON line each."""
    lines = []
    for statement in statements:
        envelope = Envelope(payload(statement), PAYLOAD_TYPE, {})
        envelope.sign(signer)
        lines.append(json.dumps(envelope.to_dict(), sort_keys=True, separators=(",", ":")))
    return "".join(line + "\n" for line in lines).encode("ascii")


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    found: dict[str, object] = {}
    for name, value in pairs:
        if name in found:
            raise ValueError(f"duplicate member {name!r}")
        found[name] = value
    return found


def loads(text: str | bytes) -> object:
    """Strict JSON: no duplicate member; hostile depth is a ValueError like any other refusal."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except RecursionError:  # nesting deeper than the interpreter's stack: not a crash
        raise ValueError("nested too deeply") from None


def read_documents(data: bytes) -> list[object] | str:
    """The envelopes of an attestation file: one JSON document, or one per line (JSON Lines).

    Returns the parsed documents, or a problem saying why the bytes are neither (invalid
    UTF-8, a line that is not JSON, a duplicate member, no document at all).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8: {exc}"
    try:
        return [loads(text)]  # one envelope, as the DSSE specification prints it
    except ValueError:
        pass
    documents: list[object] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            documents.append(loads(line))
        except ValueError as exc:
            return f"line {number} is not a JSON document: {exc}"
    return documents or "no envelope in the file"


def open_envelope(document: object) -> Envelope | str:
    """``document`` as a securesystemslib Envelope, or the reason it is not a DSSE envelope."""
    if not isinstance(document, dict):
        return "not a JSON object"
    body, kind, signatures = (document.get(k) for k in ("payload", "payloadType", "signatures"))
    if not isinstance(body, str) or not isinstance(kind, str):
        return "payload and payloadType must be strings"
    if not isinstance(signatures, list) or not signatures:
        return "signatures must be a non-empty array"
    copied: list[dict[str, object]] = []
    for entry in signatures:
        if not isinstance(entry, dict) or not isinstance(entry.get("sig"), str):
            return "each signature must be an object with a string sig"
        if not isinstance(entry.get("keyid", ""), str):
            return "a signature's keyid must be a string"
        copied.append({"keyid": "", **entry})  # DSSE: the keyid is optional
    try:
        return Envelope.from_dict({"payload": body, "payloadType": kind, "signatures": copied})
    except (ValueError, binascii.Error, KeyError, TypeError) as exc:
        return f"not a DSSE envelope: {exc}"


def _as_der(signature: Signature) -> Signature:
    """An ECDSA signature in DER: a raw ``r || s`` (DSSE protocol.md's test vector) converted."""
    raw = bytes.fromhex(signature.signature)
    try:
        decode_dss_signature(raw)
        return signature
    except ValueError:
        pass
    if len(raw) not in (64, 96, 132):  # P-256, P-384, P-521 coordinates
        return signature
    half = len(raw) // 2
    r, s = int.from_bytes(raw[:half], "big"), int.from_bytes(raw[half:], "big")
    return Signature(signature.keyid, encode_dss_signature(r, s).hex())


def signature_verifies(envelope: Envelope, key: SSlibKey) -> bool:
    """Whether a signature of ``envelope`` verifies under ``key`` (securesystemslib's DSSE).

    The key id is a hint (DSSE ``envelope.md``; in-toto/attestation ``docs/validation.md``
    makes matching it optional): ``key`` is offered under each signature's key id, so a
    signature is judged by its bytes, never accepted or refused by its label.
    """
    signatures = dict(envelope.signatures)
    if key.keytype == "ecdsa":
        signatures = {keyid: _as_der(sig) for keyid, sig in signatures.items()}
    offered: list[Key] = [
        SSlibKey(keyid, key.keytype, key.scheme, dict(key.keyval)) for keyid in signatures
    ]
    checked = Envelope(envelope.payload, envelope.payload_type, signatures)
    try:
        checked.verify(offered, 1)
    except VerificationError:
        return False
    except ValueError:  # a malformed signature value (not hex)
        return False
    return True
