"""Signed v1 approval lines (seal-host's legacy ``SignedToken``), for the tests of declines."""

from __future__ import annotations

from sealverify._internal.wire.strictjson import JsonNumber
from sealverify_testkit.keys import APPROVER_KEY, TestKey
from sealverify_testkit.records import Record, render_compact

__all__ = ["approval_v1_token"]


def approval_v1_token(
    target: str, *, decision: str | None = "deny", nonce: str = "n1", key: TestKey = APPROVER_KEY
) -> bytes:
    """A signed v1 approval line ``{"payload":"<json>","signature":"<hex>"}`` (no LF).

    The payload is ``{"target","issuedAt":1,"nonce"[,"decision"]}``, the signature hex Ed25519
    by ``key`` over the payload bytes (seal-host@099be66 ``providers.rs`` ``SignedToken``):
    ``decision="deny"`` is the decline seal-host still reads, None or ``"allow"`` an allow it
    refuses.
    """
    body: Record = {"target": target, "issuedAt": JsonNumber("1"), "nonce": nonce}
    if decision is not None:
        body["decision"] = decision
    payload = render_compact(body)
    token: Record = {"payload": payload.decode("utf-8"), "signature": key.sign(payload).hex()}
    return render_compact(token)
