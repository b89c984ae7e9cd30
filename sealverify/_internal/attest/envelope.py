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
import codecs
import json
from collections.abc import Iterator, Mapping, Sequence

from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import Key, Signature, Signer, SSlibKey

from sealverify._internal.attest.statement import PAYLOAD_TYPE, payload

__all__ = [
    "Documents",
    "loads",
    "open_envelope",
    "read_documents",
    "sign_statements",
    "signature_verifies",
]


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


class Documents:
    """The documents of an attestation file, parsed again on each pass: none is held.

    A file is one JSON document (as the DSSE specification prints an envelope) or one per
    line (JSON Lines); :func:`read_documents` has already read every document once, so a
    pass never meets a line that is not JSON.
    """

    def __init__(self, data: bytes, whole: object = None, *, single: bool = False) -> None:
        self._data = data
        self._whole = whole
        self._single = single

    def __iter__(self) -> Iterator[object]:
        if self._single:
            yield self._whole
            return
        for _, line in _lines(self._data):
            if line.strip():
                yield loads(line)


def _lines(data: bytes) -> Iterator[tuple[int, str]]:
    """Each line of UTF-8 ``data`` with its number, as ``text.split("\\n")`` has them.

    One at a time: a line feed byte is a line feed character in UTF-8, and nothing else.
    """
    start, number = 0, 1
    while (end := data.find(b"\n", start)) >= 0:
        yield number, data[start:end].decode("utf-8")
        start, number = end + 1, number + 1
    yield number, data[start:].decode("utf-8")


_UTF8_BLOCK = 1 << 20


def _utf8_problem(data: bytes) -> str | None:
    """Why ``data`` is not UTF-8, in the words of decoding it whole; None when it is.

    Decoded a block at a time and the text dropped: the whole text is never held.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(view), _UTF8_BLOCK):
            decoder.decode(view[start : start + _UTF8_BLOCK])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:  # the position in the file, not in a block
            return f"not UTF-8: {exc}"
    return None


def read_documents(data: bytes) -> Documents | str:
    """The envelopes of an attestation file: one JSON document, or one per line (JSON Lines).

    Returns the documents (parsed again on every pass over them, so a file of many envelopes
    is never held as objects), or a problem saying why the bytes are neither (invalid UTF-8,
    a line that is not JSON, a duplicate member, no document at all). The file is read as one
    document when it parses whole, else line by line; the whole text is decoded only when
    its first line is not a document of its own (a pretty-printed envelope), since a file
    whose first line is one document parses whole only as that document.
    """
    problem = _utf8_problem(data)
    if problem is not None:
        return problem
    found = False
    for number, line in _lines(data):
        if not line.strip():
            continue
        try:
            loads(line)
        except ValueError as exc:
            if not found:
                try:
                    return Documents(data, loads(data.decode("utf-8")), single=True)
                except ValueError:
                    pass
            return f"line {number} is not a JSON document: {exc}"
        found = True
    return Documents(data) if found else "no envelope in the file"


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
