"""A chain's records as the html report draws them: genesis, anchors, the tail, each link."""

from __future__ import annotations

from typing import Any

from sealverify._internal.history.chain import Anchor, ChainResult
from sealverify._internal.results import ids
from sealverify._internal.results.model import Status

_FAIL = Status.FAIL

__all__ = ["chain_display", "chain_facts", "tail_state"]


def chain_display(result: ChainResult, anchor: Anchor, start_head: str | None) -> dict[str, Any]:
    """Per record: where it is, its heads, whether it commits and links, the anchors at it.

    The records are the view the walk kept (``walk_logs(..., display=True)``), a
    :class:`~sealverify._internal.history.chain_views.RecordViews` read in log order.
    ``anchored_through`` is the index of the last record an anchor covers (None: none does);
    the records after it are the unanchored tail when the run says the tail is unanchored.
    """
    tail, missing = tail_state(result, anchor)
    return {
        "records": result.display if result.display is not None else (),
        "anchored_through": result.anchored_through,
        "start_head": start_head,
        "tail_unanchored": result.unanchored_tail,
        "start_unanchored": result.unanchored_start,
        "tail": tail,
        "tail_missing": missing,
    }


def tail_state(result: ChainResult, anchor: Anchor) -> tuple[str, int | None]:
    """``truncated``, ``unanchored`` or ``anchored``, and how many records are missing.

    A failed ``chain.truncated`` check means an anchor shows records missing after the last
    one: that tail is neither anchored nor merely unanchored. The count is known only from
    ``--expect-count``; an anchored head found in no record says records are missing, not
    how many (None).
    """
    if any(c.id == ids.CHAIN_TRUNCATED and c.status == _FAIL for c in result.checks):
        count = anchor.count
        short = count - result.count if count is not None else 0
        return "truncated", short if short > 0 else None
    return ("unanchored" if result.unanchored_tail else "anchored"), None


def chain_facts(result: ChainResult, anchor: Anchor) -> dict[str, Any]:
    """The chain subject's facts; ``tail_missing`` only when a truncated tail's size is known."""
    tail, missing = tail_state(result, anchor)
    facts: dict[str, Any] = {
        "records": result.count,
        "other_lines": result.other_lines,
        "malformed_records": result.malformed_records,
        "sessions": list(result.sessions),
        "final_head": result.final_head,
        "first_break": result.first_break,
        "tail": tail,
        "start": "unanchored" if result.unanchored_start else "anchored",
    }
    if missing is not None:
        facts["tail_missing"] = missing
    return facts
