"""What a token is judged against is one typed object, built once and passed down unchanged.

A token's frame, server, target spec and time travel as a frozen ``TokenContext``; a receipt's
signed time (and why it has none) as a frozen ``SignedTime``, so the reason a time cannot be
judged is written where the check is made, not patched back into it by id afterwards.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import pytest

from sealverify._internal.approvals.consumed import SignedTime, check_receipt_approval
from sealverify._internal.approvals.tokens import (
    TokenContext,
    check_token,
    judge_token,
    split_tokens,
)
from sealverify._internal.receipts.verify import signed_time
from sealverify._internal.results.model import Check
from sealverify._internal.wire.strictjson import parse_text
from tests.helpers.approvals import (
    DEPLOY_AUTHORIZED_AT,
    DEPLOY_FRAME,
    PUB,
    canonical,
    payload,
    receipt,
    token,
)


def _time_check(checks: Iterable[Check]) -> tuple[str, str]:
    found = [(c.status, c.reason) for c in checks if c.id == "approval.time"]
    assert len(found) == 1, found
    return found[0]


def test_the_contexts_are_frozen_slotted_values() -> None:
    for cls in (TokenContext, SignedTime):
        assert "__slots__" in vars(cls)
    with pytest.raises(dataclasses.FrozenInstanceError):
        TokenContext().at_ms = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        SignedTime(None, "x").at_ms = 1  # type: ignore[misc]


def test_judge_token_under_one_context_is_check_token_under_its_keywords() -> None:
    line = token(canonical(payload()))
    context = TokenContext(frame=DEPLOY_FRAME, at_ms=DEPLOY_AUTHORIZED_AT, at_what="now")
    judged = judge_token(line, PUB, context, "t:1")
    checked = check_token(
        line, PUB, frame=DEPLOY_FRAME, at_ms=DEPLOY_AUTHORIZED_AT, at_what="now", location="t:1"
    )
    # check_token adds only the key's authority (the test seed is a published key).
    assert [c for c in checked.checks if c.id != "authority.published-key"] == list(judged.checks)
    assert _time_check(judged.checks) == ("pass", f"valid at {DEPLOY_AUTHORIZED_AT} (now)")
    # An edited context is another value; the first is unchanged.
    later = dataclasses.replace(context, at_ms=DEPLOY_AUTHORIZED_AT + 10**9)
    assert _time_check(judge_token(line, PUB, later).checks)[0] == "fail"
    assert context.at_ms == DEPLOY_AUTHORIZED_AT


def test_why_there_is_no_time_is_said_by_the_time_check_itself() -> None:
    line = token(canonical(payload()))
    bare = judge_token(line, PUB, TokenContext(frame=DEPLOY_FRAME))
    assert _time_check(bare.checks) == ("not-evaluated", "no time given to judge expiry at")
    why = "a v2 receipt's now is covered by no signature"
    named = judge_token(line, PUB, TokenContext(frame=DEPLOY_FRAME, no_time=why))
    assert _time_check(named.checks) == ("not-evaluated", f"expiry cannot be judged: {why}")


def test_a_receipt_time_no_signature_covers_is_not_judged_and_says_why() -> None:
    text = canonical(payload())
    tokens = split_tokens(token(text))
    doc = receipt(text.encode())
    time = signed_time(doc, "v2")
    assert time == SignedTime(None, "a v2 receipt's now is covered by no signature")
    checks = check_receipt_approval(doc, tokens, [PUB], time)
    assert _time_check(checks) == (
        "not-evaluated",
        "expiry cannot be judged: a v2 receipt's now is covered by no signature",
    )
    # A signed time is judged at, and named as the receipt's signed now.
    signed = check_receipt_approval(doc, tokens, [PUB], SignedTime(DEPLOY_AUTHORIZED_AT))
    assert _time_check(signed) == (
        "pass",
        f"valid at {DEPLOY_AUTHORIZED_AT} (the receipt's signed now)",
    )
    # A time after the token expired fails, whatever the receipt's own now says.
    late = check_receipt_approval(doc, tokens, [PUB], SignedTime(DEPLOY_AUTHORIZED_AT + 10**9))
    assert _time_check(late)[0] == "fail"


def test_signed_time_is_a_value_for_v3_only() -> None:
    doc = parse_text('{"now":5}')
    assert isinstance(doc, dict)
    assert signed_time(doc, "v3") == SignedTime(5)
    assert signed_time(doc, "v1") == SignedTime(
        None, "a v1 receipt's now is covered by no signature"
    )
    assert signed_time({}, "v3") == SignedTime(None, "the receipt carries no now")
