"""A chain's records as the html report draws them: genesis, anchors, the tail, each link."""

from __future__ import annotations

from typing import Any

from sealverify import Anchor, ChainResult

__all__ = ["chain_display"]


def chain_display(result: ChainResult, anchor: Anchor, start_head: str | None) -> dict[str, Any]:
    """Per record: where it is, its heads, whether it commits and links, the anchors at it.

    ``anchored_through`` is the index of the last record an anchor covers (None: none does);
    the records after it are the unanchored tail when the run says the tail is unanchored.
    """
    records: list[dict[str, Any]] = []
    anchored_through: int | None = None
    previous: str | None = None
    for index, rec in enumerate(result.records):
        anchors = []
        if anchor.head is not None and rec.head == anchor.head:
            anchors.append("--expect-head")
        if anchor.state_head is not None and rec.head == anchor.state_head:
            anchors.append("state file")
        if anchor.count is not None and anchor.count == index + 1:
            anchors.append("--expect-count")
        if anchors:
            anchored_through = index
        records.append(
            {
                "entry": rec.entry,
                "session": rec.session,
                "location": rec.location,
                "payload": rec.payload.location if rec.payload is not None else None,
                "prev_head": rec.prev_head,
                "head": rec.head,
                "prior_session": rec.prior_session,
                "commits": rec.recomputed == rec.head,
                "links": previous is None or rec.prev_head == previous,
                "anchors": anchors,
            }
        )
        previous = rec.head
    return {
        "records": records,
        "anchored_through": anchored_through,
        "start_head": start_head,
        "tail_unanchored": result.unanchored_tail,
        "start_unanchored": result.unanchored_start,
    }
