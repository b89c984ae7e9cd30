"""Shared with other test modules by tests/receipts/test_verify_sessions.py."""

from __future__ import annotations

import dataclasses

from sealverify_testkit import mint
from sealverify_testkit.records import Cert

from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import VerifyOptions
from tests.helpers.kernel_minting import CONFIG, HOST, Receipt
from tests.helpers.verify_stateless import parsed_receipt, restate

PINS = TrustStore.from_pins(
    config=(mint.CONFIG_KEY.public_key.hex(),), receipt=(mint.RECEIPT_KEY.public_key.hex(),)
)
OPTIONS = VerifyOptions(trust=PINS, allow_published_keys=True)
BUDGET = CONFIG[:-1] + ',"budget":{"budgets":[{"name":"calls","cap":1,"tools":["search_notes"]}]}}'
ALLOW = Cert("safety", "allow", "explicit policy allow")
WITHIN = Cert("budget", "allow", "within budget: search_notes")


def allowed_call(index: int, position: int) -> Receipt:
    """Call ``index`` of the session, claiming ``position``, as an ALLOW within budget."""
    frame = mint.tools_call_frame("search_notes", f'{{"q":"{index}"}}', request_id=index)
    ctx = dataclasses.replace(HOST, temporal_events=position, operation_seed=bytes([index]))
    doc = parsed_receipt(mint.mint_host_v3(frame, BUDGET, ctx=ctx))
    trace = Cert("temporal", "allow", f"trace ok ({position} events)")
    doc = restate(doc, [ALLOW, trace, WITHIN])
    return mint.resign_v3(doc, mint.RECEIPT_KEY, str(doc["signature"]["domain"]))  # type: ignore[index]


def log_line_of(doc: Receipt, respell: tuple[bytes, bytes] | None = None) -> bytes:
    raw = mint.render_compact(doc)
    if respell is not None:
        assert respell[0] in raw
        raw = raw.replace(respell[0], respell[1])
    return raw


PIN_ARGS = (
    "--config-pubkey",
    mint.CONFIG_KEY.public_key.hex(),
    "--receipt-pubkey",
    mint.RECEIPT_KEY.public_key.hex(),
    "--allow-published-keys",
    "--format",
    "json",
)


def relabelled(doc: Receipt, session: str) -> Receipt:
    """``doc`` moved to ``session`` (its idempotency key too) and re-signed under the pins."""
    moved = parsed_receipt(mint.render_compact(doc))
    view = moved["effect_view"]
    assert isinstance(view, dict)
    old = str(view["session"])
    view["session"] = session
    view["idempotency_key"] = str(view["idempotency_key"]).replace(old, session, 1)
    return mint.resign_v3(moved, mint.RECEIPT_KEY, str(moved["signature"]["domain"]))  # type: ignore[index]


def relabel_attack() -> tuple[Receipt, Receipt, Receipt, Receipt]:
    """Session A's two calls, session B's first call, and A's first relabelled to B.

    The copy claims position 1 of B, which B's own first call holds: without session A in the
    run the two are a contradiction (one fails); A's session-pass result must not hide it.
    """
    first, second = allowed_call(1, 1), allowed_call(3, 2)
    other = relabelled(allowed_call(2, 1), "seal-host-rs/stdio:5151:1785999990000")
    copy = relabelled(first, "seal-host-rs/stdio:5151:1785999990000")
    return first, second, other, copy
