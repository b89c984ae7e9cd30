"""``replay.decision``: the receipt's decision re-derived by sealverify's model of its kernel.

The model (``sealverify.kernel``, docs/replay.md) re-runs the step the receipt records and the
check passes only when the output equals ``emitted_bytes`` byte for byte. ``kernel.identity``
(which build the receipt names, and whether it is pinned) stays a separate check: this one says
what the named build's published rules produce, never that a binary ran.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping

from sealverify.kernel.receipt_inputs import lean_view
from sealverify.kernel.replay import (
    Rederivation,
    SessionThread,
    needs_thread,
    rederive,
    session_id,
)
from sealverify.kernel.stateless import judged_alone
from sealverify.receipts.families import pointer
from sealverify.reports.model import Check, fail, not_evaluated, passed
from sealverify.wire.strictjson import JsonError, JsonValue, parse_bytes

__all__ = [
    "CHECK_ID",
    "STATUSES",
    "check_of",
    "may_need_threading",
    "not_applicable",
    "raw_line_index",
    "raw_line_of",
    "rederivation_check",
    "threaded_rederivations",
]

CHECK_ID = "replay.decision"
STATUSES = ("pass", "fail", "not-evaluated")
# A receipt that says it is not its session's first executed call: only such receipts make a
# log worth threading, and this finds their lines without parsing every line.
_LATER_CALL = re.compile(rb"trace ok \((?!1 events\))[0-9]+ events\)|temporal policy violated")
_SESSION = re.compile(rb'"session"')


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


def check_of(result: Rederivation) -> Check:
    """The ``replay.decision`` check for one re-derivation."""
    where = pointer("emitted_bytes")
    data: dict[str, object] = {}
    if result.build:
        data["build"] = result.build
    if result.result is not None:
        data["route"] = result.result.route
    if result.status == "pass":
        return passed(CHECK_ID, result.reason, where, **data)
    if result.status == "fail":
        return fail(CHECK_ID, result.reason, where, difference=result.difference, **data)
    return not_evaluated(CHECK_ID, result.reason, where, **data)


def rederivation_check(
    doc: dict[str, JsonValue], raw_lines: Mapping[str, bytes], enabled: bool = True
) -> Check:
    """Re-derive one receipt on its own (the first executed call of its session)."""
    if not enabled:
        return not_evaluated(
            CHECK_ID, "decision not re-derived: re-derivation was switched off (--no-rederive)"
        )
    raw = raw_line_of(doc, raw_lines)
    return check_of(judged_alone(rederive(doc, raw), doc, raw))


def not_applicable(reason: str) -> Check:
    """``replay.decision`` for a document with no kernel decision to re-derive."""
    return not_evaluated(CHECK_ID, f"decision not re-derived: {reason}")


def _document(line: bytes) -> dict[str, JsonValue] | None:
    try:
        value = parse_bytes(line[:-1] if line.endswith(b"\r") else line)
    except JsonError:
        return None
    return value if isinstance(value, dict) else None


def may_need_threading(blocks: Iterable[bytes]) -> bool:
    """Whether any receipt in these consecutive blocks of a log says it is a later call.

    A C-speed search per block (blocks overlap by a few bytes so no match is cut), so a log
    without such receipts is never read line by line.
    """
    tail = b""
    for block in blocks:
        if _LATER_CALL.search(tail + block):
            return True
        tail = block[-64:]
    return False


def threaded_rederivations(
    lines: Callable[[], Iterable[bytes]], raw_lines: Mapping[str, bytes]
) -> dict[int, Rederivation]:
    """Re-derivations, in log order, of the sessions in a log that have a later-call receipt.

    ``lines`` gives the log's lines (1-based numbering) and is called at most twice: once to
    find the sessions whose receipts say they are not the session's first executed call, once
    to feed every receipt of those sessions to one :class:`SessionThread` each. Only those
    sessions' lines are parsed and kept; a log without such receipts costs one scan.
    """
    wanted: set[str] = set()
    for line in lines():
        if _LATER_CALL.search(line) and _SESSION.search(line):
            doc = _document(line)
            session = session_id(doc) if doc is not None else None
            if doc is not None and session is not None and needs_thread(doc):
                wanted.add(session)
    if not wanted:
        return {}
    threads: dict[str, SessionThread] = {}
    results: dict[int, Rederivation] = {}
    for number, line in enumerate(lines(), start=1):
        if not _SESSION.search(line):
            continue
        doc = _document(line)
        session = session_id(doc) if doc is not None else None
        if doc is None or session not in wanted:
            continue
        thread = threads.setdefault(session, SessionThread())
        raw = raw_line_of(doc, raw_lines)
        results[number] = judged_alone(thread.feed(doc, raw), doc, raw)
    return results
