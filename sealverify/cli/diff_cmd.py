"""``sealverify diff``: compare two frames, two receipts, or a receipt and a frame."""

from __future__ import annotations

from pathlib import Path

import click

from sealverify import DiffInputError, FrameOptions, diff_report, input_required_reply, load_side
from sealverify.cli.common import (
    emit,
    era_option,
    format_option,
    output_option,
    read_input,
    server_option,
    transport_option,
)

__all__ = ["COMMANDS", "diff"]


@click.command()
@click.argument("source_a", metavar="A")
@click.argument("source_b", metavar="B")
@click.option(
    "--index-a",
    type=click.IntRange(min=0),
    default=None,
    help="0-based frame (or JSON-lines receipt) index in A; default: the first "
    "tools/call, and the report says so.",
)
@click.option(
    "--index-b",
    type=click.IntRange(min=0),
    default=None,
    help="0-based frame (or JSON-lines receipt) index in B.",
)
@transport_option("stdio: each LF-terminated line is a frame; http: each whole input is one body.")
@era_option("auto", "Protocol era to enforce on raw frames; 'auto' lets the first request decide.")
@server_option
@click.option(
    "--reply-a",
    "reply_a",
    default=None,
    metavar="FILE",
    help="The server's output (s2c capture) holding its reply to A; lets the retry "
    "view check that B echoes requestState exactly.",
)
@format_option(choices=("table", "json"))
@output_option
def diff(
    source_a: str,
    source_b: str,
    index_a: int | None,
    index_b: int | None,
    transport: str,
    era: str,
    server: str,
    reply_a: str | None,
    fmt: str,
    output: Path | None,
) -> int:
    """Forensically compare A and B: bytes, identities, meaning, retry view and a verdict.

    A and B are raw frames (or captures), receipts, or one of each (a receipt's own frame
    bytes are used). Exit 0 when both are the same invocation, 1 when the invocation
    differs (or cannot be shown equal), 2 when an input cannot be read.
    """
    if source_a == "-" and source_b == "-":
        raise click.UsageError("only one of A and B can be standard input")
    options = FrameOptions(era=era, server=server)
    try:
        a = load_side(
            read_input(source_a),
            "A",
            _name(source_a),
            index=index_a,
            options=options,
            transport=transport,
        )
        b = load_side(
            read_input(source_b),
            "B",
            _name(source_b),
            index=index_b,
            options=options,
            transport=transport,
        )
    except DiffInputError as exc:
        raise click.UsageError(str(exc)) from None
    reply = None
    if reply_a is not None:
        reply = input_required_reply(read_input(reply_a), a.request_id)
        if reply is None:
            raise click.UsageError(f"{reply_a}: no response to A's id {a.request_id!s}")
    report = diff_report(a, b, reply)
    emit(report, fmt, output, f"sealverify diff: {report.subjects[0].outcome}")
    return report.exit_code


def _name(source: str) -> str:
    return "-" if source == "-" else Path(source).name


COMMANDS = [diff]
