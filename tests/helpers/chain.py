"""Shared with other test modules by tests/history/test_chain.py."""

from __future__ import annotations

import hashlib

from sealverify_testkit.auditlog import record_line

# Independent implementation of the documented formula, used to generate test logs.
GEN = hashlib.sha256(b"seal-verifiable-record/genesis/v1").hexdigest()


def step(prev: str, payload: bytes) -> str:
    return hashlib.sha256(prev.encode() + b"\x1f" + payload).hexdigest()


def record(entry: int, session: str, prev: str, head: str, prior: str | None = None) -> bytes:
    return record_line(entry, session, prev, head, prior)


def session_pairs(
    payloads: list[bytes], session: str = "s1", start: str = GEN, prior: str | None = None
) -> tuple[list[list[bytes]], str]:
    """One host process: per decision [payload, record, an unchained line]; returns last head."""
    pairs = []
    head = start
    for i, payload in enumerate(payloads):
        new = step(head, payload)
        pairs.append(
            [
                payload,
                record(i, session, head, new, prior if i == 0 else None),
                b'{"authorization_decision":"/r/receipt-%020d-x.json"}' % i,
            ]
        )
        head = new
    return pairs, head


def flat(pairs: list[list[bytes]]) -> bytes:
    return b"".join(line + b"\n" for group in pairs for line in group)


PAYLOADS = [
    b'{"certs":[],"epoch":1,"request_sha256":"' + bytes([0x61 + i]) * 64 + b'","tool":"t",'
    b'"verdict":"deny"}'
    for i in range(3)
] + [b"approval refused: " + b"f" * 64 + b" (explicit signed decline)", b"plain text payload"]
