"""Which receipts of a run form one session, in which order, and their threaded re-derivations.

A session is the receipts naming one ``effect_view.session``: the lines of a JSONL log (in log
order) or separate receipt files (ordered by the position each claims). Membership and claims
are read from parsed values, never from byte patterns, so no spelling of a member name or
escape in a string (``"sess\\u0069on"``, ``trace ok \\u0028``) moves a receipt out of its
session. The only byte test, :func:`may_name_session`, skips text it proves cannot name a
session. Sessions with more than one receipt, or with a receipt claiming a later call, are
threaded (:class:`sealverify.kernel.threads.SessionThread`); the rest re-derive alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

import orjson

from sealverify.kernel.replay import Rederivation
from sealverify.kernel.stateless import judged_alone
from sealverify.kernel.threads import Claim, SessionThread, claim_of, session_of
from sealverify.receipts.rederivation import raw_line_of
from sealverify.wire.strictjson import JsonError, JsonValue, parse_bytes

__all__ = [
    "Glance",
    "SessionThreads",
    "glance",
    "glance_document",
    "may_name_session",
    "may_need_threading",
    "threaded_files",
    "threaded_rederivations",
]


def may_name_session(data: bytes) -> bool:
    """False only when no JSON text in ``data`` can hold a member named ``session``.

    A JSON string spells the letters of ``session`` either as themselves or with a ``\\u``
    escape (no other escape gives a letter), so text holding neither ``"session"`` nor ``\\u``
    has no such member; anything else is parsed.
    """
    return b'"session"' in data or b"\\u" in data


def may_need_threading(blocks: Iterable[bytes]) -> bool:
    """Whether any line of these consecutive blocks of a log may name a session.

    A C-speed search per block (blocks overlap so no match is cut), so a log none of whose
    receipts names a session is never parsed here.
    """
    tail = b""
    for block in blocks:
        if may_name_session(tail + block):
            return True
        tail = block[-16:]
    return False


class Glance(NamedTuple):
    """A receipt's session, what it emitted (read for its claim), whether it names its call."""

    session: str
    emitted: object  # the parsed ``emitted_bytes``: held only while the receipt is looked at
    operation: bool  # it names its operation, so copies of one call can be recognised

    @property
    def claim(self) -> Claim | None:
        """The place the receipt claims in its session."""
        return claim_of(self.emitted)


def _document(data: bytes) -> dict[str, JsonValue] | None:
    try:
        value = parse_bytes(data[:-1] if data.endswith(b"\r") else data)
    except JsonError:
        return None
    return value if isinstance(value, dict) else None


def glance(data: bytes) -> Glance | None:
    """The session facts of one receipt's bytes, or None when it names no session.

    A fast parse first; bytes it refuses are read by the strict parser, so a receipt that
    names a session is never missed (a receipt the strict parser refuses fails on its own).
    """
    if not may_name_session(data):
        return None
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        doc = _document(data)
    return glance_document(doc) if isinstance(doc, dict) else None


def glance_document(doc: dict[str, JsonValue]) -> Glance | None:
    """The session facts of a receipt already parsed (strictly, or by :func:`glance`)."""
    session = session_of(doc)
    if session is None:
        return None
    return Glance(session, doc.get("emitted_bytes"), isinstance(doc.get("operation_id"), str))


def _later(claim: Claim | None) -> bool:
    return claim is not None and (claim.position is None or claim.position > 1)


def _wanted(items: Iterable[tuple[str, Glance | Claim | None]]) -> set[str]:
    """Sessions with two receipts or more, or with one claiming a later call.

    Each item is a session with the receipt's claim, or its glance to read the claim from
    only while it matters.
    """
    seen: set[str] = set()
    wanted: set[str] = set()
    for session, source in items:
        if session in wanted:
            continue
        if session in seen:
            wanted.add(session)
            continue
        seen.add(session)
        if _later(source.claim if isinstance(source, Glance) else source):
            wanted.add(session)
    return wanted


class _Threads:
    """One :class:`SessionThread` per session; a call seen again gets the first copy's result."""

    def __init__(self, raw_lines: Mapping[str, bytes], order: str) -> None:
        self.raw_lines = raw_lines
        self.order = order
        self.threads: dict[str, SessionThread] = {}
        self.calls: dict[str, Rederivation] = {}

    def feed(self, doc: dict[str, JsonValue], facts: Glance, where: str) -> Rederivation:
        raw = raw_line_of(doc, self.raw_lines)
        call = _same_call(doc, facts)
        if call is not None and call in self.calls:
            return self.calls[call]
        thread = self.threads.get(facts.session)
        if thread is None:
            thread = self.threads[facts.session] = SessionThread(facts.session, self.order)
        result = judged_alone(thread.feed(doc, raw, where), doc, raw)
        if call is not None:
            self.calls[call] = result
        return result


# Every member the step's inputs are read from (``kernel/receipt_inputs.py``), the operation,
# and the release frame Object A may be recovered from: two receipts equal in all of them
# claim one call; members that move with the release status (the status, the signature) and
# members no step reads do not count.
_STEP_MEMBERS = (
    "operation_id",
    "record_type",
    "bypass",
    "emitted_bytes",
    "kernel_identity",
    "signed_config",
    "kernel_config",
    "signed_artifacts",
    "release_frame",
    "request_parse_error",
    "canonical_request",
    "request_sha256",
    "granted_capabilities",
    "approval",
    "now",
)


# The threads of one ordering fed one receipt at a time, as they arrive (``verify --follow``).
SessionThreads = _Threads


def _same_call(doc: dict[str, JsonValue], facts: Glance) -> str | None:
    """What makes two receipts one call: the operation and every member its step reads.

    A copy of an ALLOW receipt re-signed as its release status moved (seal-host@099be66
    ``rust/src/release.rs``) is the same call; a receipt that shares the operation but not
    every step input is another claim and is threaded as one.
    """
    if not facts.operation:
        return None
    return repr([(member, doc.get(member)) for member in _STEP_MEMBERS])


def _glance_of(_: object, data: bytes) -> Glance | None:
    return glance(data)


def threaded_rederivations(
    lines: Callable[[], Iterable[bytes]], raw_lines: Mapping[str, bytes]
) -> dict[int, Rederivation]:
    """Re-derivations, in log order, of a log's sessions that need threading, by line number.

    ``lines`` gives the log's lines (1-based numbering) and is called at most twice: once to
    find the sessions (two receipts or more, or a later call), once to feed their receipts to
    one thread each. Only those sessions' results are kept, one small record per receipt.
    """
    glances = (g for g in map(glance, lines()) if g is not None)
    wanted = _wanted((g.session, g) for g in glances)
    if not wanted:
        return {}
    threads = _Threads(raw_lines, "log order")
    results: dict[int, Rederivation] = {}
    for number, line in enumerate(lines(), start=1):
        facts = glance(line)
        if facts is None or facts.session not in wanted:
            continue
        doc = _document(line)
        if doc is None or session_of(doc) != facts.session:
            continue  # not strict JSON, or read differently: the receipt fails on its own
        results[number] = threads.feed(doc, facts, f"line {number}")
    return results


def threaded_files(
    names: Iterable[str],
    read: Callable[[str], bytes | None],
    raw_lines: Mapping[str, bytes],
    look: Callable[[str, bytes], Glance | None] = _glance_of,
) -> dict[str, Rederivation]:
    """Re-derivations of the sessions among separate receipt files, by file name.

    Each file is read once to find its session and claim (``read`` returns None for one that
    cannot be read: it is verified, and reported, on its own), and the files of a session
    that needs threading are read again in the order their claims give: by position, a
    blocked call before the executed one at the same position, then in input order. A
    receipt that claims no position (a temporal deny) cannot be placed and re-derives alone.
    ``look`` gives a file's session facts from its name and bytes: what :func:`glance` gives
    (a caller that reads each file strictly anyway reads them from its own reading).
    """
    facts: list[tuple[str, str, Claim | None]] = []  # name, session, claim: no bytes kept
    for name in names:
        data = read(name)
        item = look(name, data) if data is not None else None
        if item is not None:
            facts.append((name, item.session, item.claim))
    wanted = _wanted((session, claim) for _, session, claim in facts)
    sessions: dict[str, list[tuple[tuple[int, bool, int], str]]] = {}
    for index, (name, session, claim) in enumerate(facts):
        if session in wanted and claim is not None and claim.position is not None:
            key = (claim.position, claim.executed, index)
            sessions.setdefault(session, []).append((key, name))
    threads = _Threads(raw_lines, "the order of the positions its receipts claim")
    results: dict[str, Rederivation] = {}
    for members in sessions.values():
        for _, name in sorted(members):
            data = read(name)
            item = glance(data) if data is not None else None
            doc = _document(data) if data is not None and item is not None else None
            if item is None or doc is None or session_of(doc) != item.session:
                continue
            results[name] = threads.feed(doc, item, name)
    return results
