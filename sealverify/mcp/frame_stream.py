"""The ``frame`` report over a stream: the frames chosen, the frame cap, the exit code.

``sealverify frame`` only opens the input and cuts it into frames (a stdio stream or one
http body, each frame held to its byte cap), calls :func:`frame_stream_report`, and writes
the report: the library and the command give one answer, the ``--max-frames`` cap included.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator

from sealverify.errors import OptionError
from sealverify.mcp.frame import FrameOptions, iter_stream
from sealverify.mcp.frame_report import frame_report
from sealverify.reports.model import Report, fail
from sealverify.reports.outcomes import exit_code
from sealverify.wire.framing import FrameBytes

__all__ = ["FRAME_LIMIT_ID", "MAX_FRAMES", "frame_stream_report"]

MAX_FRAMES = 10_000  # frames analysed per run by default: the report holds each one's subject
FRAME_LIMIT_ID = "frame.limit.frames"


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
    analysed = iter_stream(itertools.islice(frames, max_frames), options or FrameOptions())
    if indexes:
        wanted = set(indexes)
        seen = 0
        chosen = []
        for index, result in enumerate(analysed):
            seen = index + 1
            if index in wanted:
                chosen.append((index, result))
        missing = [i for i in indexes if i >= seen]
        if missing:
            raise OptionError(f"--index {missing[0]}: the input has {seen} frame(s)")
        numbers = [index for index, _ in chosen]
        report = frame_report(name, [result for _, result in chosen], numbers=numbers)
    else:
        report = frame_report(name, analysed)
    if next(frames, None) is None:
        return report
    finding = fail(
        FRAME_LIMIT_ID,
        f"the input holds more than {max_frames} frames (--max-frames): only the first "
        f"{max_frames} were analysed, the rest were not read",
        name,
    )
    code = exit_code((s.outcome for s in report.subjects), findings_failed=True)
    return dataclasses.replace(report, findings=(*report.findings, finding), exit_code=code)
