"""The ``frame`` report over a stream: the frames chosen, the frame cap, the exit code.

``sealverify frame`` only opens the input and cuts it into frames (a stdio stream or one
http body, each frame held to its byte cap), calls :func:`frame_stream_report`, and writes
the report: the library and the command give one answer, the ``--max-frames`` cap included.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from sealverify._internal.mcp.frame import FrameOptions, iter_stream
from sealverify._internal.mcp.frame_report import frame_subject
from sealverify._internal.results.model import Check, Report, Subject, fail
from sealverify._internal.results.outcomes import Outcome, exit_code
from sealverify._internal.wire.framing import FrameBytes
from sealverify.errors import OptionError

__all__ = ["FRAME_LIMIT_ID", "MAX_FRAMES", "FrameTally", "frame_stream_report", "frame_subjects"]

MAX_FRAMES = 10_000  # frames analysed per run by default
FRAME_LIMIT_ID = "frame.limit.frames"


class FrameTally:
    """The frames of one input as they are reported: the counts a report needs, not subjects.

    :func:`frame_subjects` adds each subject as it makes it, so a command may write each one
    as it comes (``sealverify frame``) and hold none; :meth:`report` is then the report
    around them, byte for byte the one :func:`frame_stream_report` gives.
    """

    def __init__(self, name: str, max_frames: int = MAX_FRAMES) -> None:
        self.name, self.max_frames = name, max_frames
        self.frames = self.refused = 0
        self.more = False  # the input held more than the cap: the rest was not read
        self._outcomes: set[str] = set()

    def add(self, subject: Subject) -> Subject:
        """Count ``subject`` and return it."""
        self.frames += 1
        self.refused += subject.outcome == Outcome.REFUSE
        self._outcomes.add(subject.outcome)
        return subject

    def report(self, subjects: tuple[Subject, ...] = ()) -> Report:
        """The report over what was counted; ``subjects`` empty when they were written."""
        findings: tuple[Check, ...] = ()
        if self.more:
            findings = (fail(FRAME_LIMIT_ID, _limit_reason(self.max_frames), self.name),)
        return Report(
            command="frame",
            subjects=subjects,
            summary={
                "frames": self.frames,
                "refused": self.refused,
                "admissible": self.frames - self.refused,
            },
            exit_code=exit_code(self._outcomes, self.more),
            findings=findings,
            layout="detail",
        )


def _limit_reason(max_frames: int) -> str:
    return (
        f"the input holds more than {max_frames} frames (--max-frames): only the first "
        f"{max_frames} were analysed, the rest were not read"
    )


def frame_subjects(
    tally: FrameTally,
    frames: Iterator[FrameBytes],
    options: FrameOptions | None = None,
    *,
    indexes: tuple[int, ...] = (),
) -> Iterator[Subject]:
    """Each reported frame's subject, one at a time, counted in ``tally``.

    At most ``tally.max_frames`` frames are analysed; a frame past them is not read, and
    ``tally.more`` says it was there. With ``indexes``, only those frames are reported
    (:class:`OptionError` for one the input does not hold, once the input is read).
    """
    analysed = iter_stream(itertools.islice(frames, tally.max_frames), options or FrameOptions())
    wanted = set(indexes)
    seen = 0
    for index, result in enumerate(analysed):
        seen = index + 1
        if not wanted or index in wanted:
            yield tally.add(frame_subject(tally.name, index, result))
    missing = [i for i in indexes if i >= seen]
    if missing:
        raise OptionError(f"--index {missing[0]}: the input has {seen} frame(s)")
    tally.more = next(frames, None) is not None


def frame_stream_report(
    name: str,
    frames: Iterator[FrameBytes],
    options: FrameOptions | None = None,
    *,
    indexes: tuple[int, ...] = (),
    max_frames: int = MAX_FRAMES,
) -> Report:
    """The report ``sealverify frame`` writes for the frames of one input, named ``name``.

    At most ``max_frames`` frames are analysed, one at a time; a frame past them fails the run
    (``frame.limit.frames``) and is not read. With ``indexes``, only those frames are reported
    (:class:`OptionError` for one the input does not hold). Exit 0 when every reported frame
    is admissible, 1 when any must be refused or the cap was passed.
    """
    tally = FrameTally(name, max_frames)
    return tally.report(tuple(frame_subjects(tally, frames, options, indexes=indexes)))
