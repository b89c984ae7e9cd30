"""``sealverify frame``: report every identity a frame binds and whether it must be refused."""

from __future__ import annotations

from pathlib import Path

import click

from sealverify import FrameOptions, Limits, analyze_stream, frame_of, frame_report, split_stdio
from sealverify.cli.common import (
    emit,
    era_option,
    format_option,
    output_option,
    read_input,
    server_option,
    supported_version_option,
    transport_option,
)

__all__ = ["COMMANDS", "frame"]

_DEFAULT_LIMITS = Limits()


@click.command()
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
@format_option(choices=("table", "json"))
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
    fmt: str,
    output: Path | None,
) -> int:
    """Report the digests and identities of MCP request frames, and refusals.

    FILE holds the exact bytes received (a captured stdio stream may hold many frames; each
    is reported). Exit 0 when every reported frame is admissible, 1 when any must be
    refused, 2 when the input cannot be read.
    """
    data = read_input(source)
    limits = Limits(
        max_depth=max_depth,
        max_members=max_members,
        max_string_bytes=max_string_bytes,
        max_meta_bytes=max_meta_bytes,
        max_meta_depth=max_meta_depth,
    )
    options = FrameOptions(
        era=era, limits=limits, supported_versions=frozenset(supported), server=server
    )
    frames = [frame_of(data, "http")] if transport == "http" else split_stdio(data)
    if not frames:
        raise click.UsageError(f"{source}: no bytes to read as a frame")
    results = analyze_stream(frames, options)
    if indexes:
        missing = [i for i in indexes if i >= len(results)]
        if missing:
            raise click.UsageError(f"--index {missing[0]}: the input has {len(results)} frame(s)")
        results = [results[i] for i in sorted(set(indexes))]
    name = "-" if source == "-" else Path(source).name
    report = frame_report(name, results)
    refused = report.summary["refused"]
    emit(
        report,
        fmt,
        output,
        f"sealverify frame: {len(results)} frame(s), {refused} refused, "
        f"{len(results) - refused} admissible",
    )
    return report.exit_code


COMMANDS = [frame]
