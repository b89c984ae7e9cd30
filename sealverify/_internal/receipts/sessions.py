"""Which receipts of a run form one session, in which order, and their session re-derivations.

A session is the receipts naming one ``effect_view.session``: the lines of a JSONL log (in log
order) or separate receipt files (ordered by the position each claims). Membership and claims
are read from parsed values, never from byte patterns, so no spelling of a member name or
escape in a string (``"sess\\u0069on"``, ``trace ok \\u0028``) moves a receipt out of its
session. The only byte test, :func:`may_name_session`, skips text it proves cannot name a
session. Sessions with more than one receipt, or with a receipt claiming a later call, are
re-derived in order, the model's state carried from one receipt to the next
(:class:`sealverify._internal.kernel.session_pass.SessionPass`: the session pass); the rest
re-derive alone.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import NamedTuple

import orjson

from sealverify._internal.kernel.receipt_inputs import Frames, carried_frames
from sealverify._internal.kernel.replay import Rederivation
from sealverify._internal.kernel.session import StepResult
from sealverify._internal.kernel.session_pass import Claim, SessionPass, claim_of, session_of
from sealverify._internal.kernel.stateless import judged_alone
from sealverify._internal.receipts.families import ReceiptDocument, read_document
from sealverify._internal.receipts.rederivation import raw_line_of
from sealverify._internal.receipts.session_index import SessionIndex
from sealverify._internal.receipts.view import ReceiptView, read_view
from sealverify._internal.wire.strictjson import DEFAULT_LIMITS, JsonError, JsonValue, parse_bytes

__all__ = [
    "CHANGED",
    "ORDER_OF_POSITIONS",
    "Contested",
    "FileFact",
    "Glance",
    "LineFeed",
    "LogSessions",
    "Reading",
    "Room",
    "SessionPasses",
    "SessionRederivation",
    "feed_file",
    "file_facts",
    "frames_weight",
    "glance",
    "glance_document",
    "may_name_session",
    "may_need_session_pass",
    "refuted_by",
    "session_rederivations",
    "session_rederivations_of_facts",
    "session_rederivations_of_files",
    "session_rederivations_of_log",
    "strict_document",
]


# A line's feed of its log's session pass: its re-derivation in its session from its strictly
# read document and the frames its view decoded, or None (:meth:`LogSessions.line`).
LineFeed = Callable[[dict[str, JsonValue], Frames], "Rederivation | None"]

# What the run's other receipts refute in a receipt of ``session`` naming ``operation`` (the
# operation in another session), or None: see ``receipts/spanning.py`` ``SessionIndex``.
Contested = Callable[[str, "str | None"], "str | None"]


def _uncontested(session: str, operation: str | None) -> str | None:
    return None


def may_name_session(data: bytes) -> bool:
    """False only when no JSON text in ``data`` can hold a member named ``session``.

    A JSON string spells the letters of ``session`` either as themselves or with a ``\\u``
    escape (no other escape gives a letter), so text holding neither ``"session"`` nor ``\\u``
    has no such member; anything else is parsed.
    """
    return b'"session"' in data or b"\\u" in data


def may_need_session_pass(blocks: Iterable[bytes]) -> bool:
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
    """A receipt's session, what it emitted (read for its claim), the operation it names."""

    session: str
    emitted: object  # the parsed ``emitted_bytes``: held only while the receipt is looked at
    operation: str | None  # its ``operation_id``: copies of one call are recognised by it

    @property
    def claim(self) -> Claim | None:
        """The place the receipt claims in its session."""
        return claim_of(self.emitted)


def strict_document(data: bytes) -> dict[str, JsonValue] | None:
    """The receipt object in ``data`` read strictly (a final CR dropped), or None."""
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
        doc = strict_document(data)
    return glance_document(doc) if isinstance(doc, dict) else None


def glance_document(doc: dict[str, JsonValue]) -> Glance | None:
    """The session facts of a receipt already parsed (strictly, or by :func:`glance`)."""
    session = session_of(doc)
    if session is None:
        return None
    operation = doc.get("operation_id")
    return Glance(
        session, doc.get("emitted_bytes"), operation if isinstance(operation, str) else None
    )


# Report text (its bytes are held by the golden reports): the word "threaded" stays in it.
CHANGED = (
    "decision not re-derived: these bytes are not the ones its session was threaded with "
    "(the input changed between the session pass and this read)"
)


class SessionRederivation(NamedTuple):
    """A re-derivation made in the session's order, with the SHA-256 of the bytes it was made of.

    It is handed from the session pass to the task that verifies the receipt, which reads the
    input again (past the hand-over budget, in a worker, on a cluster): the result holds only
    for the very bytes it was computed from (:meth:`for_bytes`). The frames the pass decoded
    may travel with it, so the task's view of those bytes decodes nothing again.
    """

    sha256: bytes
    result: Rederivation
    frames: Frames | None = None

    @classmethod
    def of(
        cls, data: bytes, result: Rederivation, frames: Frames | None = None
    ) -> SessionRederivation:
        """``result``, computed from ``data``, bound to it (with the frames decoded of it)."""
        return cls(hashlib.sha256(data).digest(), result, frames)

    def for_bytes(
        self, data: bytes, body: bytes | None = None
    ) -> tuple[Rederivation, ReceiptDocument | None, ReceiptView | None]:
        """The result when ``data`` are the bytes it was made of; else not evaluated, named.

        Bytes that changed since the session pass are another receipt: handing them this
        result would judge them by another receipt's replay, and their place in the session
        is unknown, so the decision is not re-derived. With the result come the receipt's
        reading and view made with the pass's frames, when they travelled (``body``: the
        receipt within ``data``, a log line less its final CR); the view takes a frame only
        as the canonical decoding of the text the document carries (``receipts/view.py``).
        """
        if hashlib.sha256(data).digest() != self.sha256:
            return Rederivation("not-evaluated", CHANGED), None, None
        if self.frames is None:
            return self.result, None, None
        read = read_document(data if body is None else body)
        if read.document is None:
            return self.result, read, None
        return self.result, read, read_view(read.document, read.family, self.frames)

    @property
    def weight(self) -> int:
        """The bytes its frames hold (what a task carries beside the result), or 0."""
        return 0 if self.frames is None else frames_weight(self.frames)

    def lean(self) -> SessionRederivation:
        """The result alone, its frames let go (the task decodes the receipt again)."""
        return SessionRederivation(self.sha256, self.result)


def frames_weight(frames: Frames) -> int:
    """The bytes decoded frames hold."""
    return sum(len(f) for f in (frames.object_a, frames.release, frames.recovered) if f)


# Whether a budget has room for so many more bytes (then charged): ``run/handoff.py``.
Room = Callable[[int], bool]


def _kept(frames: Frames, room: Room | None) -> Frames | None:
    """``frames``, when ``room`` grants what they hold, to travel with their result."""
    return frames if room is not None and room(frames_weight(frames)) else None


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


class SessionPasses:
    """One :class:`SessionPass` per session; a call seen again in its session gets its result."""

    def __init__(
        self,
        raw_lines: Mapping[str, bytes],
        order: str,
        contested: Contested | None = None,
        copies: Callable[[str], bool] | None = None,
    ) -> None:
        self.raw_lines = raw_lines
        self.order = order
        # Whether an operation may be named again (``SessionIndex.repeated``): a call's result
        # is kept for its copies only then, so what is held grows with copies, not receipts.
        self.copies = copies
        # What the run's other receipts refute in this one: its operation in another session.
        self.contested = contested or _uncontested
        self.by_session: dict[str, SessionPass] = {}
        # Each call's result by the SHA-256 of what makes it one call (32 bytes a call, not
        # the step members' text), by session: a copy seen again in its session is handed it.
        self.calls: dict[str, dict[bytes, Rederivation]] = {}

    def feed(
        self, doc: dict[str, JsonValue], facts: Glance, where: str, frames: Frames | None = None
    ) -> Rederivation:
        """The receipt's re-derivation in its session; ``frames`` as its reader decoded them."""
        raw = raw_line_of(doc, self.raw_lines)
        call = _same_call(doc, facts)
        calls = self.calls.setdefault(facts.session, {})
        if call is not None and call in calls:
            return calls[call]
        session_pass = self.by_session.get(facts.session)
        if session_pass is None:
            session_pass = self.by_session[facts.session] = SessionPass(facts.session, self.order)
        contradiction = self.contested(facts.session, facts.operation)
        frames = frames if frames is not None else carried_frames(doc)  # decoded once for both
        fed = session_pass.feed(doc, raw, where, contradiction, frames)
        result = _held(judged_alone(fed, doc, raw, frames))
        if call is not None and (self.copies is None or self.copies(str(facts.operation))):
            calls[call] = result
        return result

    def drop(self, session: str) -> bool:
        """Forget a session's pass and its calls (it is fed again from its first receipt)."""
        self.calls.pop(session, None)
        return self.by_session.pop(session, None) is not None


def _held(result: Rederivation) -> Rederivation:
    """``result`` as it is held until its task takes it: the model's output less its text.

    A session re-derivation waits for its task (and travels to a worker): of the model's output the
    report reads only the route (``receipts/rederivation.py`` ``check_of``), so the emitted
    text, a few KB a receipt, is not kept.
    """
    step = result.result
    if step is None:
        return result
    return replace(result, result=StepResult("", step.route))


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


def _same_call(doc: dict[str, JsonValue], facts: Glance) -> bytes | None:
    """What makes two receipts one call: the session, the operation and every step input.

    A copy of an ALLOW receipt re-signed as its release status moved (seal-host@099be66
    ``rust/src/release.rs``) is the same call; a receipt that shares the operation but not
    every step input is another claim and is re-derived as one. The session is part of the
    call: a receipt relabelled to another session and re-signed is a claim in that session,
    re-derived there, never handed the first session's result.
    """
    if facts.operation is None:
        return None
    members = repr([("session", facts.session)] + [(m, doc.get(m)) for m in _STEP_MEMBERS])
    return hashlib.sha256(members.encode("utf-8", "surrogatepass")).digest()


def _glance_of(_: object, data: bytes) -> Glance | None:
    return glance(data)


def session_rederivations(
    lines: Callable[[], Iterable[bytes]], raw_lines: Mapping[str, bytes]
) -> dict[int, Rederivation]:
    """Re-derivations, in log order, of a log's sessions that need the session pass, by line.

    ``lines`` gives the log's lines (1-based numbering) and is called at most twice: once to
    find the sessions (two receipts or more, or a later call), once to feed their receipts to
    one session pass each. Only those sessions' results are kept, one small record per receipt.
    For a log held in memory (its bytes cannot change between the two passes).
    """
    made = session_rederivations_of_log(lines, raw_lines, index=SessionIndex())
    return {n: t.result for n, t in made}


def session_rederivations_of_log(
    lines: Callable[[], Iterable[bytes]],
    raw_lines: Mapping[str, bytes],
    skip: Container[str] = frozenset(),
    contested: Contested | None = None,
    index: SessionIndex | None = None,
    copies: Callable[[str], bool] | None = None,
    hand_on: bool = False,
) -> Iterator[tuple[int, SessionRederivation]]:
    """:func:`session_rederivations`, each bound to its line's bytes (:class:`SessionRederivation`).

    For a log the task reads again (in a worker, on a cluster): a line that changed since is
    not handed the result. Yielded by line number in log order, as the log is read the
    second time, so a caller can hand them on slice by slice and hold none of them for long.
    ``skip``, ``contested``, ``index`` and ``copies`` are :class:`LogSessions`'s (the one that
    decides). With ``hand_on``, the frames each line's session pass decoded travel with its
    result (:class:`SessionRederivation`), so its checks decode nothing again.
    """
    log = LogSessions(lines(), raw_lines, skip, contested, index, copies)
    if log.idle:
        return
    for number, line in enumerate(lines(), start=1):
        facts = glance(line)
        if facts is None:
            continue
        doc = strict_document(line) if facts.session in log.wanted else None
        if doc is not None and session_of(doc) != facts.session:
            continue  # read differently by the strict parser: the receipt fails on its own
        frames = carried_frames(doc) if doc is not None else None
        result = log.judged(number, facts, doc, frames)
        if result is not None:
            yield number, SessionRederivation.of(line, result, frames if hand_on else None)


class LogSessions:
    """A log's session pass: which sessions need it, fed in log order, and what is refuted.

    The sessions that need the pass are found up front (one glance a line; sessions in
    ``skip`` are re-derived elsewhere, their receipts sitting in other inputs too). With
    ``contested``, a receipt whose operation the run's other receipts place in another session
    is ``fail`` wherever it sits; a run of this one log (neither ``contested`` nor ``index``
    given, or an empty ``index``) indexes the log's own sessions and operations on this pass.
    ``copies`` says whether an operation is named again in the run (the run's index does);
    a call's result is kept for its copies only then (the log's own index, when it has one).
    A verifier in one process then hands each line's strictly read document, in log order, to
    :meth:`rederivation` with the frames its view decoded, so a line is read, decoded and
    parsed once for its checks and its re-derivation alike. What is held is the session
    passes: state per open session, and the result of each call named again (for its copies).
    """

    def __init__(
        self,
        lines: Iterable[bytes],
        raw_lines: Mapping[str, bytes],
        skip: Container[str] = frozenset(),
        contested: Contested | None = None,
        index: SessionIndex | None = None,
        copies: Callable[[str], bool] | None = None,
    ) -> None:
        if index is None and contested is None:
            index = SessionIndex()
        glances = _glances(lines, index)
        self.wanted = _wanted((g.session, g) for g in glances if g.session not in skip)
        if index is not None:
            if index.contested:
                contested = index.contradiction
            index.close()  # every receipt is seen: its contested and repeated operations held
            copies = index.repeated
        self.contested = contested
        self.passes = SessionPasses(raw_lines, "log order", contested, copies)

    @property
    def idle(self) -> bool:
        """Whether no line of the log is in the session pass or refuted: each re-derives alone."""
        return not self.wanted and self.contested is None

    def line(self, number: int, size: int) -> LineFeed | None:
        """Line ``number``'s feed of this pass for its verifier; None past the strict size limit.

        The pass reads a line as :func:`strict_document` does, which refuses a document over
        the size limit (the verifier reads it, and it is never in the session pass).
        """
        if size > DEFAULT_LIMITS.max_document_bytes:
            return None
        return functools.partial(self.rederivation, number)

    def rederivation(
        self, number: int, doc: dict[str, JsonValue], frames: Frames
    ) -> Rederivation | None:
        """Line ``number``'s re-derivation in its session, or None when it is not in the pass."""
        facts = glance_document(doc)
        return None if facts is None else self.judged(number, facts, doc, frames)

    def judged(
        self,
        number: int,
        facts: Glance,
        doc: dict[str, JsonValue] | None,
        frames: Frames | None,
    ) -> Rederivation | None:
        """A line's result from its facts and (for a session in the pass) its strict document."""
        if facts.session not in self.wanted:
            refuted = self.contested(facts.session, facts.operation) if self.contested else None
            return refuted_by(refuted) if refuted is not None else None
        if doc is None:
            return None  # not strict JSON: the receipt fails on its own
        return self.passes.feed(doc, facts, f"line {number}", frames)


def _glances(lines: Iterable[bytes], index: SessionIndex | None) -> Iterator[Glance]:
    """The glance of each line that names a session, each seen by ``index`` when given."""
    for item in map(glance, lines):
        if item is not None:
            if index is not None:
                index.see(item.session, 0, item.operation)
            yield item


def refuted_by(contradiction: str) -> Rederivation:
    """The result of a receipt the run's other receipts refute (its operation elsewhere)."""
    return Rederivation("fail", contradiction, difference=contradiction)


class FileFact(NamedTuple):
    """A separate receipt file's session and claim, read once; no bytes kept."""

    name: str
    session: str
    claim: Claim | None
    operation: str | None = None


def file_facts(
    names: Iterable[str],
    read: Callable[[str], bytes | None],
    look: Callable[[str, bytes], Glance | None] = _glance_of,
) -> list[FileFact]:
    """The session and claim of each file that names a session, in input order.

    ``read`` returns None for a file that cannot be read: it is verified, and reported, on
    its own. ``look`` gives a file's session facts from its name and bytes: what
    :func:`glance` gives (a caller that reads each file strictly anyway reads them from its
    own reading).
    """
    facts: list[FileFact] = []
    for name in names:
        data = read(name)
        item = look(name, data) if data is not None else None
        if item is not None:
            facts.append(FileFact(name, item.session, item.claim, item.operation))
    return facts


ORDER_OF_POSITIONS = "the order of the positions its receipts claim"


# A caller's own reading of a file it kept: the strict document and the frames its view
# decoded, or None when it kept none of these bytes (``run/handoff.py`` ``Handoff.view``).
Reading = Callable[[str, bytes], "tuple[dict[str, JsonValue], Frames] | None"]


def feed_file(
    passes: SessionPasses,
    name: str,
    read: Callable[[str], bytes | None],
    reading: Reading | None = None,
    room: Room | None = None,
) -> SessionRederivation | None:
    """The next receipt of a session, a file read again, re-derived; None when unreadable.

    ``reading`` gives the caller's kept reading of the file, when it has one: its document
    and decoded frames are the ones the receipt's checks will read, so it is read once.
    Without one, the frames decoded here travel with the result while ``room`` grants them.
    """
    data = read(name)
    if data is None:
        return None
    kept = reading(name, data) if reading is not None else None
    if kept is not None:
        doc: dict[str, JsonValue] | None = kept[0]
        item = glance_document(kept[0])
    else:
        item = glance(data)
        doc = strict_document(data) if item is not None else None
    if item is None or doc is None or session_of(doc) != item.session:
        return None
    if kept is not None:
        return SessionRederivation.of(data, passes.feed(doc, item, name, kept[1]))
    frames = carried_frames(doc)
    result = passes.feed(doc, item, name, frames)
    return SessionRederivation.of(data, result, _kept(frames, room))


def session_rederivations_of_files(
    names: Iterable[str],
    read: Callable[[str], bytes | None],
    raw_lines: Mapping[str, bytes],
    look: Callable[[str, bytes], Glance | None] = _glance_of,
    skip: Container[str] = frozenset(),
) -> dict[str, SessionRederivation]:
    """Re-derivations of the sessions among separate receipt files, by file name.

    Each file is read once to find its session and claim (:func:`file_facts`), and the files
    of a session that needs the session pass are read again in the order their claims give: by
    position, a blocked call before the executed one at the same position, then in input
    order. A receipt that claims no position (a temporal deny) cannot be placed and
    re-derives alone. Each result is bound to the bytes it was made of
    (:class:`SessionRederivation`): the task reads again. Sessions in ``skip`` are
    re-derived elsewhere.
    """
    return session_rederivations_of_facts(file_facts(names, read, look), read, raw_lines, skip)


def session_rederivations_of_facts(
    facts: Sequence[FileFact],
    read: Callable[[str], bytes | None],
    raw_lines: Mapping[str, bytes],
    skip: Container[str] = frozenset(),
    contested: Contested | None = None,
    reading: Reading | None = None,
    room: Room | None = None,
) -> dict[str, SessionRederivation]:
    """:func:`session_rederivations_of_files` from the facts :func:`file_facts` read.

    With ``contested``, a file whose operation the run's other receipts place in another
    session is ``fail``, in the session pass or not (a file of a session in ``skip`` too).
    ``reading`` and ``room`` as :func:`feed_file`'s.
    """
    kept = [f for f in facts if f.session not in skip]
    wanted = _wanted((f.session, f.claim) for f in kept)
    sessions: dict[str, list[tuple[tuple[int, bool, int], str]]] = {}
    for index, (name, session, claim, _) in enumerate(kept):
        if session in wanted and claim is not None and claim.position is not None:
            key = (claim.position, claim.executed, index)
            sessions.setdefault(session, []).append((key, name))
    passes = SessionPasses(raw_lines, ORDER_OF_POSITIONS, contested)
    results: dict[str, SessionRederivation] = {}
    for members in sessions.values():
        for _, name in sorted(members):
            if (bound := feed_file(passes, name, read, reading, room)) is not None:
                results[name] = bound
    if contested is not None:  # a file no session pass fed, its operation in another session
        for fact in facts:
            refuted = None if fact.name in results else contested(fact.session, fact.operation)
            if refuted is not None and (data := read(fact.name)) is not None:
                results[fact.name] = SessionRederivation.of(data, refuted_by(refuted))
    return results
