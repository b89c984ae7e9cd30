"""Reading seal-host's stderr captures into audit chain records, one line at a time.

``emit_audit`` prints each audit payload line, then its chain record (seal-host@099be66
``rust/src/main.rs``); :mod:`sealverify._internal.history.chain` judges the records this module
reads. Every other line is counted and let go: a log is never held as an object per line.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sealverify._internal.history.chain_records import COMMITMENT, ChainRecord, LogLine
from sealverify._internal.results.model import Check, fail, info
from sealverify._internal.results.repeats import Findings
from sealverify._internal.wire.framing import Reader, Source
from sealverify._internal.wire.spelling import HEX64
from sealverify._internal.wire.strictjson import JsonError, JsonValue, parse_bytes, uint_value

__all__ = [
    "RECORD_MEMBERS",
    "LogData",
    "LogReading",
    "LogStream",
    "log_lines",
    "parse_log",
    "read_records",
]

RECORD_MEMBERS = frozenset(
    {"seal_record", "entry", "commitment", "session", "prev_head", "prior_session", "head"}
)

_WINDOW = 1 << 16  # bytes of a log split at once: one window's lines are all that is held


def _split_lines(data: bytes) -> Iterator[bytes]:
    """Each line of ``data`` without its LF, in order; a last empty piece is not a line.

    The log is split a window at a time (the window, rounded up to a line's end), so one
    ``bytes.split`` keeps its speed while only one window's lines are held, never an object
    for every line of the log: 12 MB of LF once took 1.3 GB.
    """
    start, size = 0, len(data)
    while start < size:
        end = data.find(b"\n", start + _WINDOW)
        if end < 0:
            pieces = data[start:].split(b"\n")
            if pieces[-1] == b"":
                pieces.pop()
            yield from pieces
            return
        yield from data[start:end].split(b"\n")
        start = end + 1


def _looks_like_record(data: bytes) -> bool:
    return data.lstrip().startswith(b"{") and b'"seal_record"' in data


def _looks_like_audit(data: bytes) -> bool:
    """True for a Lean audit line (``{certs,epoch,request_sha256,tool,verdict}``).

    Found by parsing, whatever its spacing or member order: a byte prefix would let an edited
    or re-serialised audit line (the one a deleted record leaves behind) pass unnoticed.
    """
    if b"{" not in data[:64]:
        return False  # a strict JSON object starts with "{" after at most some whitespace
    try:
        doc = parse_bytes(data.strip(b" \t\r"))
    except JsonError:
        return False
    return isinstance(doc, dict) and {"certs", "verdict", "tool"} <= doc.keys()


def _record_problems(doc: JsonValue) -> list[str]:
    if not isinstance(doc, dict):
        return ["a chain record must be a JSON object"]
    problems: list[str] = []
    missing = sorted(RECORD_MEMBERS - doc.keys())
    extra = sorted(doc.keys() - RECORD_MEMBERS)
    if missing:
        problems.append("missing member(s) " + ", ".join(missing))
    if extra:
        problems.append("unknown member(s) " + ", ".join(extra))
    if doc.get("seal_record") != "v1":
        problems.append('seal_record is not "v1"')
    if "commitment" in doc and doc["commitment"] != COMMITMENT:
        problems.append(f"commitment is not {COMMITMENT!r}")
    if "entry" in doc and uint_value(doc["entry"]) is None:
        problems.append("entry is not a non-negative integer")
    for name in ("prev_head", "head"):
        value = doc.get(name)
        if name in doc and not (isinstance(value, str) and HEX64.fullmatch(value)):
            problems.append(f"{name} is not 64 lowercase hex digits")
    session = doc.get("session")
    if "session" in doc and not (isinstance(session, str) and session):
        problems.append("session is not a non-empty string")
    prior = doc.get("prior_session")
    if prior is not None and not (isinstance(prior, str) and prior):
        problems.append("prior_session is neither null nor a non-empty string")
    return problems


# An open log (``read(size)``, closed on leaving), and a log as the reader takes it: its bytes,
# or a call that opens it for reading (then read a window at a time, never held whole, and
# opened again only to classify a break). The wire layer's block reader's types, one for all.
LogStream = Reader
LogData = Source


def _stream_lines(stream: LogStream) -> Iterator[bytes]:
    """Each line of ``stream`` without its LF, read a window at a time; as :func:`_split_lines`.

    What is held is one window and the line it ends inside, so memory follows the longest
    line, not the log.
    """
    parts: list[bytes] = []  # the line being read, in the pieces its windows brought
    while block := stream.read(_WINDOW):
        parts.append(block)
        if b"\n" not in block:
            continue
        pieces = b"".join(parts).split(b"\n")
        parts = [pieces.pop()]
        yield from pieces
    tail = b"".join(parts)
    if tail:
        yield tail


def log_lines(data: LogData) -> Iterator[bytes]:
    """Each line of one log (its bytes, or opened by ``data()``), without its LF, in order."""
    if isinstance(data, bytes):
        yield from _split_lines(data)
        return
    with data() as stream:
        yield from _stream_lines(stream)


class LogReading:
    """What reading the logs finds beside the records: findings by source, and line counts.

    ``buckets`` holds, per source, its malformed records and then its unchained audit lines,
    each a :class:`~sealverify._internal.results.repeats.Findings` keeping the first ``keep`` of a
    kind.
    """

    def __init__(self, keep: int | None = None) -> None:
        self.keep = keep
        self.buckets: list[list[Check]] = []
        self.other = 0
        self.malformed = 0

    def bucket(self) -> list[Check]:
        found: list[Check] = [] if self.keep is None else Findings(keep=self.keep)
        self.buckets.append(found)
        return found

    def checks(self) -> list[Check]:
        """Every finding kept, in the order the logs gave them (capped findings not closed)."""
        return [check for bucket in self.buckets for check in bucket]


def parse_log(sources: Sequence[tuple[str, bytes]]) -> tuple[list[ChainRecord], list[Check], int]:
    """Read stderr captures, in the order given, into chain records.

    A record's payload is the line printed immediately before it (``emit_audit`` prints the
    payload, then the record). Lines that are neither a record nor the payload just before one
    (``{"authorization_decision":…}``, ``{"approval_drop":…}``, ``{"error":…}``, any text) are
    skipped and counted. Returns ``(records, findings, other_line_count)``. Each log is read
    line by line, holding the line before (a payload's) and the records.
    """
    reading = LogReading()
    records = list(read_records(sources, reading))
    return records, reading.checks(), reading.other


def read_records(
    sources: Sequence[tuple[str, LogData]], reading: LogReading
) -> Iterator[ChainRecord]:
    """The chain records of the logs, in order, as they are read; see :func:`parse_log`.

    Findings and line counts go to ``reading``; nothing but the line before (a payload's) and
    the previous record's head is held between records.
    """
    last = [""]  # the previous record's head: a record linking to it shares the string
    sessions: dict[str, str] = {}  # one string per session name, whatever its record count
    for source, data in sources:
        findings = (reading.bucket(), reading.bucket())  # unchained after malformed records
        lines = _Lines()
        yield from _read_source(source, log_lines(data), findings, (last, sessions), lines)
        reading.other += lines.number - lines.used
        reading.malformed += lines.malformed


class _Lines:
    """One log's line count, the lines records used, and its malformed records."""

    number = used = malformed = 0


def _read_source(
    source: str,
    lines: Iterator[bytes],
    findings: tuple[list[Check], list[Check]],
    shared: tuple[list[str], dict[str, str]],
    counts: _Lines,
) -> Iterator[ChainRecord]:
    """One log's records, as read; its line count and the lines used go to ``counts``.

    ``findings`` takes the malformed records and, apart, the unchained audit lines. A line is
    judged an unchained audit line only when the next is read: a record there takes it as
    its payload.
    """
    checks, unchained = findings
    last, sessions = shared
    number = used = 0
    before: bytes | None = None  # the previous line, while it is free to be a payload
    for number, line in enumerate(lines, 1):
        taken = False
        if b'"seal_record"' in line and _looks_like_record(line):  # the test first: no call
            payload = None
            if before is not None and not _looks_like_record(before):
                payload = LogLine(source, number - 1, before)
            taken, record = _read_record(
                LogLine(source, number, line), payload, checks, (last[0], sessions)
            )
            counts.malformed += taken and record is None
            if record is not None:
                last[0] = record.head
                if record.payload is not None:
                    used += 1
                    before = None
                yield record
        if before and b"{" in before and _looks_like_audit(before):
            _unchained(LogLine(source, number - 1, before), line, unchained)
        used += taken
        before = None if taken else line
    if before and _looks_like_audit(before):
        _unchained(LogLine(source, number, before), b"", unchained)
    counts.number, counts.used = number, used


def _read_record(
    line: LogLine,
    payload: LogLine | None,
    checks: list[Check],
    shared: tuple[str, dict[str, str]],
) -> tuple[bool, ChainRecord | None]:
    """The well-formed record on ``line``, with ``payload`` (the free line before it, if any).

    ``shared`` is the previous record's head and the session names seen: a record that links
    to that head, or names a session seen, holds those strings rather than copies of them.
    Returns whether the line is taken as a record (well-formed or not), and the record.
    """
    try:
        doc = parse_bytes(line.data)
    except JsonError as exc:
        checks.append(
            fail(
                "chain.record-malformed",
                f"chain record line is not strict JSON: {exc}",
                line.location,
            )
        )
        return True, None
    if not isinstance(doc, dict) or "seal_record" not in doc:
        return False, None
    problems = _record_problems(doc)
    if problems:
        checks.append(
            fail(
                "chain.record-malformed",
                "chain record refused: " + "; ".join(problems),
                line.location,
            )
        )
        return True, None
    prior = doc["prior_session"]
    last, sessions = shared
    prev_head, session = str(doc["prev_head"]), str(doc["session"])
    return True, ChainRecord(
        line=line,
        entry=uint_value(doc["entry"]) or 0,
        session=sessions.setdefault(session, session),
        prev_head=last if prev_head == last else prev_head,
        prior_session=prior if isinstance(prior, str) else None,
        head=str(doc["head"]),
        payload=payload,
    )


def _unchained(line: LogLine, following: bytes, checks: list[Check]) -> None:
    """An audit payload line no chain record follows: deleted record or inserted line."""
    if b"audit head persistence failure" in following:
        checks.append(
            info(
                "chain.unchained-payload",
                "audit line without a chain record; the host reported "
                "an audit head persistence failure right after it",
                line.location,
            )
        )
    else:
        checks.append(
            fail(
                "chain.unchained-payload",
                "an audit line with no chain record after it: its record "
                "was deleted or the line was inserted",
                line.location,
            )
        )
