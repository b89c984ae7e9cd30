"""``replay.decision``: the receipt's decision re-derived by sealverify's model of its kernel.

The model (``sealverify._internal.kernel``, docs/replay.md) re-runs the step the receipt records and
the check passes only when the output equals ``emitted_bytes`` byte for byte. ``kernel.identity``
(which build the receipt names, and whether it is pinned) stays a separate check: this one says
what the named build's published rules produce, never that a binary ran.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from sealverify._internal.kernel.receipt_inputs import Frames, carried_frames, lean_view
from sealverify._internal.kernel.replay import Rederivation, rederive_prepared
from sealverify._internal.kernel.stateless import judged_alone
from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, Status, fail, passed, reduced
from sealverify._internal.wire.spelling import pointer
from sealverify._internal.wire.strictjson import JsonValue

_PASS, _FAIL = Status.PASS, Status.FAIL

__all__ = [
    "CHECK_ID",
    "STATUSES",
    "check_of",
    "not_applicable",
    "raw_line_index",
    "raw_line_of",
    "rederivation_check",
]

CHECK_ID = ids.REPLAY_DECISION
STATUSES = ("pass", "fail", "not-evaluated")


def raw_line_index(data: bytes) -> dict[str, bytes]:
    """Index the lines of a raw-line file (or a stdio frame capture) by ``request_sha256``.

    Each line is hashed as the host's ``lean_view`` of it (one LF, then one CR, stripped), so
    a receipt takes a line only when the line hashes to its ``request_sha256``.
    """
    index: dict[str, bytes] = {}
    for line in data.split(b"\n"):
        if not line.strip(b" \t\r"):
            continue
        view = lean_view(line)
        if view is not None:
            index.setdefault(hashlib.sha256(view.encode("utf-8")).hexdigest(), line)
    return index


def raw_line_of(doc: dict[str, JsonValue], raw_lines: Mapping[str, bytes]) -> bytes | None:
    """The supplied raw line whose hash is the receipt's ``request_sha256``, if any."""
    request_sha = doc.get("request_sha256")
    return raw_lines.get(request_sha) if isinstance(request_sha, str) else None


_WHERE = pointer("emitted_bytes")


def check_of(result: Rederivation) -> Check:
    """The ``replay.decision`` check for one re-derivation."""
    where = _WHERE
    data: dict[str, object] = {}
    if result.build:
        data["build"] = result.build
    if result.result is not None:
        data["route"] = result.result.route
    if result.status == _PASS:
        return passed(CHECK_ID, result.reason, where, **data)
    if result.status == _FAIL:
        return fail(CHECK_ID, result.reason, where, difference=result.difference, **data)
    return reduced(CHECK_ID, result.reason, where, **data)


def rederivation_check(
    doc: dict[str, JsonValue],
    raw_lines: Mapping[str, bytes],
    enabled: bool = True,
    frames: Frames | None = None,
) -> Check:
    """Re-derive one receipt on its own (the first executed call of its session).

    ``frames`` are the receipt's carried frames as its view decoded them (else decoded once
    here, for both the re-derivation and the stateless judgement).
    """
    if not enabled:
        return reduced(
            CHECK_ID, "decision not re-derived: re-derivation was switched off (--no-rederive)"
        )
    raw = raw_line_of(doc, raw_lines)
    frames = frames if frames is not None else carried_frames(doc)
    result, prepared = rederive_prepared(doc, raw, frames)  # its inputs, prepared once
    return check_of(judged_alone(result, doc, raw, frames, prepared))


def not_applicable(reason: str) -> Check:
    """``replay.decision`` for a document with no kernel decision to re-derive."""
    return reduced(CHECK_ID, f"decision not re-derived: {reason}")
