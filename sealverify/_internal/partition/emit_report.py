"""The ``partition emit`` result: a frame's record (or signed attestation), or its refusal.

``sealverify partition emit`` only reads the frame and the signing key, calls
:func:`partition_emit`, and writes what it returns: the record's RFC 8785 bytes (exit 0), or
the refusal report (exit 1). :func:`select_frame` is the frame both ``partition`` commands
take from a stdio stream or an http body.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice

from sealverify._internal.mcp.frame import FrameOptions
from sealverify._internal.partition import records as pt
from sealverify._internal.results.model import Report, Subject, fail, info
from sealverify._internal.results.outcomes import Outcome, Vocabulary, decide, exit_code
from sealverify._internal.wire.framing import FrameBytes, frame_of, iter_stdio, stdio_frame_count
from sealverify.errors import OptionError

__all__ = ["VOCABULARY", "Emitted", "partition_emit", "select_frame"]

# The verdict words of ``partition emit``: a frame refused before any record exists is REFUSE
# (any refusal is a failed check); one with a record is ADMISSIBLE (reports/outcomes.decide).
VOCABULARY = Vocabulary(passed=Outcome.ADMISSIBLE, failed=Outcome.REFUSE)


def select_frame(
    data: bytes, transport: str = "stdio", index: int = 0, source: str = ""
) -> FrameBytes:
    """Frame ``index`` of a stdio stream, or the one http body (``index`` 0 only).

    Raises :class:`OptionError` for an index the input does not hold (``source`` names it).
    """
    if transport == "http":
        if index:
            raise OptionError("--index applies to stdio streams only")
        return frame_of(data, "http")
    frame = next(islice(iter_stdio(data), index, None), None)  # one frame held at a time
    if frame is None:
        count = stdio_frame_count(data)
        raise OptionError(f"--index {index}: {source} holds {count} frame(s)")
    return frame


@dataclass(frozen=True, slots=True)
class Emitted:
    """What ``partition emit`` writes: ``payload`` (a record's JCS bytes) or ``report``.

    Exactly one is set: the record (or signed attestation) of an admissible frame, exit 0;
    else the refusal report, exit 1.
    """

    payload: bytes | None
    report: Report | None

    @property
    def exit_code(self) -> int:
        """ADMISSIBLE's code (0) when a record was made, else the refusal report's (REFUSE, 1)."""
        if self.report is None:
            return exit_code([decide((), VOCABULARY).outcome])  # ADMISSIBLE: nothing refused
        return self.report.exit_code


def _refusal(name: str, refused: pt.PartitionRefused) -> Report:
    checks = [fail(r.code, r.reason, r.pointer, wire_error=r.wire_error) for r in refused.refusals]
    checks.append(info("partition.meta-state", f"_meta was observed {refused.meta_state}"))
    facts = refused.to_dict()
    del facts["refusals"]
    subject = Subject(name, decide(checks, VOCABULARY).outcome, tuple(checks), facts)
    code = exit_code([subject.outcome])
    return Report("partition emit", (subject,), {"refused": 1}, code, layout="detail")


def partition_emit(
    frame: FrameBytes,
    policy: str = pt.COMMIT_ALL,
    options: FrameOptions | None = None,
    *,
    seed: bytes | None = None,
    name: str = "frame",
) -> Emitted:
    """The `_meta` partition record of ``frame`` under ``policy``, signed when given ``seed``.

    ``seed`` is a 32-byte Ed25519 seed
    (:func:`sealverify._internal.partition.records.seed_from_key_text` reads a key file). A frame
    that must be refused before any record exists gives the refusal report, its one subject ``name``
    REFUSE; raises :class:`OptionError` for an unknown policy.
    """
    result = pt.partition_frame(frame, policy, options or FrameOptions())
    if result.record is None:
        assert result.refused is not None
        return Emitted(None, _refusal(name, result.refused))
    document = result.record if seed is None else pt.sign_record(result.record, seed)
    return Emitted(pt.payload_bytes(document), None)
