"""An approval a receipt consumed, bound to its ApprovalRecord v2 token (``verify --approvals``)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Final, Literal

from sealverify._internal.primitives.signatures import key_id
from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, fail, not_evaluated, passed, unpinned
from sealverify._internal.wire.strictjson import (
    JsonValue,
    uint_value,
)

if TYPE_CHECKING:  # the token judge is loaded by a run with --approvals only
    from sealverify._internal.approvals.tokens import TokenContext, TokenResult

__all__ = [
    "UNREAD",
    "SignedTime",
    "check_receipt_approval",
    "policy_target_spec",
    "receipt_server",
]


@dataclass(frozen=True, slots=True)
class SignedTime:
    """A receipt's time when a verified signature covers it (``at_ms``), else None and why not.

    Built once per receipt (``sealverify._internal.receipts.verify.signed_time``) and passed down to
    every check that judges a window or an expiry, so each can say why it could not.
    """

    at_ms: int | None
    why_none: str = ""


class _Unread(Enum):
    UNREAD = "unread"


# ``frame`` not given: the receipt's Object A is decoded here.
UNREAD: Final = _Unread.UNREAD


def check_receipt_approval(
    receipt: dict[str, JsonValue],
    tokens: Sequence[tuple[str, bytes]],
    approver_keys: Sequence[bytes],
    signed_time: SignedTime | None = None,
    *,
    frame: bytes | Literal[_Unread.UNREAD] | None = UNREAD,
) -> list[Check]:
    """Bind a receipt's consumed approval to a token from ``tokens`` (``verify --approvals``).

    ``approver_keys`` are the pinned approval keys (raw 32 bytes); the one whose sha256 is
    ``approval.approval_identity.key_id`` verifies the token.
    Returns [] when the receipt consumed no approval. Otherwise the token whose target equals
    the safety cert reason (and whose nonce equals ``approval.nonce`` when present) is checked
    with the receipt's frame (``signed_artifacts.object_a``), server (``kernel_config.server``)
    and time; ``approval.issued_at`` must equal ``authorized_at`` and a present
    ``signed_artifacts.approval_statement`` must be byte-equal to the token payload. Without
    Object A, the token's subject is compared with the receipt's framed subject (a v3 record
    signs it under either Object B domain). ``signed_time`` is the time a verified signature
    covers and why there is none (the receipt's ``now`` when not given): expiry is judged only
    at it. ``frame`` is ``signed_artifacts.object_a`` as the receipt's reader decoded it (None:
    not carried, or not base64); when not given it is decoded here.
    """
    approval = receipt.get("approval")
    if not isinstance(approval, dict):
        return []
    found = _approver_key(approval, approver_keys)
    if isinstance(found, Check):
        return [found]
    checks = [
        passed(
            "approval.receipt-key",
            "approval_identity.key_id names a pinned approval key",
            "approval.approval_identity.key_id",
        )
    ]
    from sealverify._internal.approvals.tokens import judge_token

    reason = _safety_reason(receipt)
    nonce = approval.get("nonce")
    context = _token_context(receipt, signed_time, _object_a(receipt) if frame is UNREAD else frame)
    candidates = []
    for location, line in tokens:
        result = judge_token(line, found, context, location)
        if (
            result.kind == "v2"
            and result.facts.get("target") == reason
            and (nonce is None or result.facts.get("nonce") == nonce)
        ):
            candidates.append(result)
    if not candidates:
        checks.append(
            fail(
                "approval.receipt-token",
                f"no v2 token with target {reason} and nonce {nonce!r} among those given",
                "approval",
            )
        )
        return checks
    best = next((c for c in candidates if c.ok), candidates[0])
    checks.extend(best.checks)
    checks.extend(_issued_at_checks(approval, best))
    checks.extend(_statement_checks(receipt, best))
    return checks


def _approver_key(approval: dict[str, JsonValue], approver_keys: Sequence[bytes]) -> bytes | Check:
    """The pinned key the approval names, or the check that says why there is none to use."""
    identity = approval.get("approval_identity")
    channel = identity.get("channel") if isinstance(identity, dict) else None
    if channel != "ed25519":
        return not_evaluated(
            "approval.receipt",
            f"approval channel {channel!r} carries no signed ApprovalRecord to check",
        )
    claimed = identity.get("key_id")  # type: ignore[union-attr]
    if not approver_keys:
        return unpinned(
            ids.APPROVAL_RECEIPT_KEY,
            "UNPINNED: no approval key is pinned (role approval), so the approval token "
            "cannot be verified and the consent it records has no pinned authority",
            "approval.approval_identity.key_id",
        )
    approver_key = next((k for k in approver_keys if key_id(k) == claimed), None)
    if approver_key is None:
        return fail(
            "approval.receipt-key",
            f"approval_identity.key_id {claimed!r} is not the id of any pinned approval key",
            "approval.approval_identity.key_id",
        )
    return approver_key


def _token_context(
    receipt: dict[str, JsonValue], signed_time: SignedTime | None, frame: bytes | None
) -> TokenContext:
    """What every token is judged against: the receipt's frame or subject, server and time."""
    found = receipt_server(receipt)
    server = found[0] if found else ""
    time = signed_time if signed_time is not None else SignedTime(uint_value(receipt.get("now")))
    from sealverify._internal.approvals.tokens import TokenContext

    return TokenContext(
        frame=frame,
        server=server,
        at_ms=time.at_ms,
        at_what="the receipt's signed now" if time.at_ms is not None else "",
        subject=_framed_subject(receipt) if frame is None else None,
        target_spec=policy_target_spec(receipt),
        no_time=time.why_none,
    )


def _issued_at_checks(approval: dict[str, JsonValue], best: TokenResult) -> list[Check]:
    """``approval.issued_at``, when a number, must be the token's ``authorized_at``."""
    issued = approval.get("issued_at")
    if uint_value(issued) is not None and uint_value(issued) != best.facts["authorized_at"]:
        return [
            fail(
                "approval.receipt-issued-at",
                f"approval.issued_at {issued} is not the "
                f"token's authorized_at {best.facts['authorized_at']}",
                "approval.issued_at",
            )
        ]
    return []


def _statement_checks(receipt: dict[str, JsonValue], best: TokenResult) -> list[Check]:
    """A signed ``approval_statement``, when present, must be byte-equal to the token payload."""
    artifacts = receipt.get("signed_artifacts")
    statement = artifacts.get("approval_statement") if isinstance(artifacts, dict) else None
    if not isinstance(statement, str):
        return []
    try:
        decoded = base64.b64decode(statement, validate=True)
    except (binascii.Error, ValueError):
        decoded = b""
    if decoded == best.payload_bytes:
        return [
            passed(
                "approval.receipt-statement",
                "signed_artifacts.approval_statement is byte-equal to the token payload",
                "signed_artifacts.approval_statement",
            )
        ]
    return [
        fail(
            "approval.receipt-statement",
            "signed_artifacts.approval_statement differs from the token payload",
            "signed_artifacts.approval_statement",
        )
    ]


def _framed_subject(receipt: dict[str, JsonValue]) -> tuple[str, int] | None:
    digest = receipt.get("framed_subject_sha256")
    length = uint_value(receipt.get("framed_subject_length"))
    return (digest, length) if isinstance(digest, str) and length is not None else None


def _safety_reason(receipt: dict[str, JsonValue]) -> str | None:
    certs = receipt.get("certs")
    if isinstance(certs, list):
        for cert in certs:
            if isinstance(cert, dict) and cert.get("kernel") == "safety":
                reason = cert.get("reason")
                return reason if isinstance(reason, str) else None
    return None


def _object_a(receipt: dict[str, JsonValue]) -> bytes | None:
    """``signed_artifacts.object_a`` decoded, for a caller that has not read it."""
    artifacts = receipt.get("signed_artifacts")
    object_a = artifacts.get("object_a") if isinstance(artifacts, dict) else None
    if not isinstance(object_a, str):
        return None
    try:
        return base64.b64decode(object_a, validate=True)
    except (binascii.Error, ValueError):
        return None


def policy_target_spec(receipt: dict[str, JsonValue]) -> JsonValue | None:
    """The ``target`` spec of the receipt policy's rule for its tool, or None (full arguments).

    The first ``kernel_config.safety.tools`` entry naming the receipt's ``tool``, as the
    guard-target binding reads it.
    """
    config = receipt.get("kernel_config")
    safety = config.get("safety") if isinstance(config, dict) else None
    rules = safety.get("tools") if isinstance(safety, dict) else None
    tool = receipt.get("tool")
    for rule in rules if isinstance(rules, list) else []:
        if isinstance(rule, dict) and rule.get("name") == tool and "target" in rule:
            return rule["target"]
    return None


def receipt_server(receipt: dict[str, JsonValue]) -> tuple[str, str] | None:
    """The server a receipt's kernel used, and the member it was read from.

    ``kernel_config.server``, else ``kernel_config.safety.server``, else ``""`` (the kernel
    then leaves the server part out). None when the receipt has no ``kernel_config`` object.
    """
    config = receipt.get("kernel_config")
    if not isinstance(config, dict):
        return None
    value = config.get("server")
    if isinstance(value, str):
        return value, "kernel_config.server"
    safety = config.get("safety")
    value = safety.get("server") if isinstance(safety, dict) else None
    if isinstance(value, str):
        return value, "kernel_config.safety.server"
    return "", "kernel_config (no server member: empty)"
