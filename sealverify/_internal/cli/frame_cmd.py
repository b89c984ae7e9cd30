"""``sealverify frame``: report every identity a frame binds and whether it must be refused."""

from __future__ import annotations

import itertools
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, cast

import click

from sealverify import (
    MAX_FRAMES,
    FrameBytes,
    FrameOptions,
    FrameTally,
    Limits,
    OptionError,
    frame_subjects,
    read_http_frame,
    read_stdio_frames,
)
from sealverify._internal.cli.common import (
    era_option,
    format_option,
    max_input_bytes,
    output_option,
    say,
    server_option,
    supported_version_option,
    table_view,
    too_large,
    transport_option,
    write_result,
)
from sealverify._internal.cli.helptext import examples
from sealverify._internal.cli.progress import progress, shown
from sealverify._internal.cli.spooled import SubjectSpool
from sealverify._internal.reports.filenames import report_name
from sealverify._internal.run.refused import InputRefused, SourceUnreadable

__all__ = ["COMMANDS", "frame"]

_DEFAULT_LIMITS = Limits()
MAX_FRAME_BYTES = 16 << 20  # bytes of one frame parsed at most by default (16 MiB)


@contextmanager
def _opened(source: str) -> Iterator[BinaryIO]:
    """The input as a binary stream, read as it is used; a failure is a usage error."""
    if source == "-":
        yield sys.stdin.buffer
        return
    try:
        stream = open(source, "rb")  # noqa: SIM115 (closed below, after the last frame)
    except OSError as exc:
        raise SourceUnreadable.of(source, exc) from None
    with stream:
        yield stream


class _Capped:
    """A stream that refuses (exit 2) to give more than ``--max-input-bytes`` in all.

    A frame longer than ``--max-frame-bytes`` is hashed as it arrives and not held, so an
    endless one (``/dev/zero``) would be read for ever: the whole input is held to the cap.
    """

    def __init__(self, stream: BinaryIO, name: str) -> None:
        self._stream, self._name, self._left = stream, name, max_input_bytes()

    def _count(self, data: bytes) -> bytes:
        self._left -= len(data)
        if self._left < 0:
            raise too_large(self._name)
        return data

    def read(self, size: int = -1) -> bytes:
        return self._count(self._stream.read(size))

    def readline(self, size: int = -1) -> bytes:
        return self._count(self._stream.readline(size))

    def fileno(self) -> int:
        return self._stream.fileno()


def _size(stream: BinaryIO) -> int | None:
    """The bytes a regular file holds (the progress bar's total), else None (a pipe)."""
    try:
        info = os.fstat(stream.fileno())
    except (OSError, ValueError):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


@click.command(
    epilog=examples(
        "sealverify frame fixtures/frames/call.bin",
        "sealverify frame fixtures/frames/refused-meta-null.bin --format json",
    )
)
@click.argument("source", metavar="FILE|-")
@transport_option("stdio: each LF-terminated line is a frame; http: the whole input is one body.")
@era_option(
    "2026-07-28",
    "Protocol era to enforce; 'auto': the first request decides, as the reference SDK does.",
)
@click.option(
    "--index",
    "indexes",
    metavar="N",
    type=click.IntRange(min=0),
    multiple=True,
    help="Report only the frame(s) with this 0-based index in the stream (repeatable).",
)
@server_option
@supported_version_option
@click.option(
    "--max-meta-bytes",
    metavar="BYTES",
    type=click.IntRange(min=0),
    default=_DEFAULT_LIMITS.max_meta_bytes,
    show_default=True,
    help="Largest raw _meta accepted, in bytes as received.",
)
@click.option(
    "--max-meta-depth",
    metavar="N",
    type=click.IntRange(min=1),
    default=_DEFAULT_LIMITS.max_meta_depth,
    show_default=True,
    help="Deepest _meta nesting accepted (the _meta object is level 1).",
)
@click.option(
    "--max-depth",
    metavar="N",
    type=click.IntRange(min=1),
    default=_DEFAULT_LIMITS.max_depth,
    show_default=True,
    help="Deepest nesting accepted in the whole frame.",
)
@click.option(
    "--max-string-bytes",
    metavar="BYTES",
    type=click.IntRange(min=1),
    default=_DEFAULT_LIMITS.max_string_bytes,
    show_default=True,
    help="Longest string or member name accepted, in UTF-8 bytes.",
)
@click.option(
    "--max-members",
    metavar="N",
    type=click.IntRange(min=1),
    default=_DEFAULT_LIMITS.max_members,
    show_default=True,
    help="Most object members plus array elements accepted.",
)
@click.option(
    "--max-frames",
    metavar="N",
    type=click.IntRange(min=1),
    default=MAX_FRAMES,
    show_default=True,
    help="Frames analysed at most; past it the run stops reading and fails with "
    "frame.limit.frames (memory stays bounded by N).",
)
@click.option(
    "--max-frame-bytes",
    metavar="BYTES",
    type=click.IntRange(min=1),
    default=MAX_FRAME_BYTES,
    show_default=True,
    help="A longer frame is refused unread (frame.too-large): past the cap its bytes are "
    "hashed as they arrive and not held, so memory stays bounded by the cap.",
)
@format_option(choices=("table", "json", "jsonl"))
@output_option
def frame(
    source: str,
    transport: str,
    era: str,
    indexes: tuple[int, ...],
    server: str,
    supported: tuple[str, ...],
    max_meta_bytes: int,
    max_meta_depth: int,
    max_depth: int,
    max_string_bytes: int,
    max_members: int,
    max_frames: int,
    max_frame_bytes: int,
    fmt: str,
    output: Path | None,
) -> int:
    """Report the digests and identities of MCP request frames, and refusals.

    FILE holds the exact bytes received (a captured stdio stream may hold many frames; each
    is reported). Exit 0 when every reported frame is admissible, 1 when any must be
    refused, 2 when the input cannot be read.
    """
    limits = Limits(
        max_depth=max_depth,
        max_members=max_members,
        max_string_bytes=max_string_bytes,
        max_meta_bytes=max_meta_bytes,
        max_meta_depth=max_meta_depth,
    )
    options = FrameOptions(
        era=era,
        limits=limits,
        supported_versions=frozenset(supported),
        server=server,
        max_frame_bytes=max_frame_bytes,
    )
    name = "-" if source == "-" else report_name(Path(source).name)
    # Flat memory: frames are read one at a time and each subject is spooled as rendered; the
    # library makes and counts them (sealverify.frame_stream_report does both at once).
    tally = FrameTally(name, max_frames)
    with SubjectSpool(fmt, "frame", view=table_view(output)) as spool:
        _spool_frames(source, (transport, max_frame_bytes), options, indexes, tally, spool)
        report = tally.report()
        write_result(spool.pieces(report), output)
    refused = report.summary["refused"]
    say(
        f"sealverify frame: {report.summary['frames']} frame(s), {refused} refused, "
        f"{report.summary['frames'] - refused} admissible"
        + (f"; more than {max_frames} in the input, the rest not analysed" if tally.more else "")
    )
    return report.exit_code


def _spool_frames(
    source: str,
    framing: tuple[str, int],
    options: FrameOptions,
    indexes: tuple[int, ...],
    tally: FrameTally,
    spool: SubjectSpool,
) -> None:
    """Each reported frame of ``source`` into ``spool``, read one frame at a time.

    ``framing`` is the transport and the byte cap of one frame.
    """
    transport, cap = framing
    with (
        _opened(source) as stream,
        progress(
            "reading frames", _size(stream) if shown() else None, "B", unit_scale=True
        ) as advance,
    ):
        capped = cast(BinaryIO, _Capped(stream, "standard input" if source == "-" else source))
        if transport == "http":
            frames: Iterator[FrameBytes] = iter([read_http_frame(capped, cap, advance)])
        else:
            frames = read_stdio_frames(capped, cap, advance)
        first = next(frames, None)
        if first is None:
            raise InputRefused(f"{source}: no bytes to read as a frame")
        try:
            for subject in frame_subjects(
                tally, itertools.chain([first], frames), options, indexes=indexes
            ):
                spool.add(subject)
        except OptionError as exc:
            raise click.UsageError(str(exc)) from None


COMMANDS = [frame]
