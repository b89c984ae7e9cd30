"""``sealverify diff``: compare two frames, two receipts, or a receipt and a frame."""

from __future__ import annotations

from pathlib import Path

import click

from sealverify import DiffInput, DiffOptions, diff_inputs
from sealverify._internal.cli.common import (
    emit,
    era_option,
    format_option,
    output_option,
    transport_option,
)
from sealverify._internal.cli.helptext import examples
from sealverify._internal.reports.filenames import report_name
from sealverify._internal.run.reading import reopenable_input

__all__ = ["COMMANDS", "diff"]

_HELD = 1 << 16  # a file no longer than the block diff reads at a time is read once and held


@click.command(
    epilog=examples(
        "sealverify diff fixtures/frames/call.bin fixtures/frames/call-other-trace.bin",
        "sealverify diff fixtures/demo/receipts/verified-allow.receipt.json \\\n"
        "      fixtures/demo/receipts/fail-edited-arguments.receipt.json --format html "
        "--output diff.html",
    )
)
@click.argument("source_a", metavar="A")
@click.argument("source_b", metavar="B")
@click.option(
    "--index-a",
    metavar="N",
    type=click.IntRange(min=0),
    default=None,
    help="0-based frame (or JSON-lines receipt) index in A; default: the first "
    "tools/call, and the report says so.",
)
@click.option(
    "--index-b",
    metavar="N",
    type=click.IntRange(min=0),
    default=None,
    help="0-based frame (or JSON-lines receipt) index in B.",
)
@transport_option("stdio: each LF-terminated line is a frame; http: each whole input is one body.")
@era_option("auto", "Protocol era to enforce on raw frames; 'auto' lets the first request decide.")
@click.option(
    "--server",
    default=None,
    metavar="NAME",
    help="seal's kernel_config.server for both sides (guard-target and effect server part); "
    "a receipt side uses its own kernel_config unless --server-a/--server-b is given.",
)
@click.option(
    "--server-a",
    metavar="NAME",
    default=None,
    help="The server for side A only (overrides --server and a receipt's kernel_config).",
)
@click.option(
    "--server-b",
    metavar="NAME",
    default=None,
    help="The server for side B only (overrides --server and a receipt's kernel_config).",
)
@click.option(
    "--unknown-keys",
    type=click.Choice(["refuse", "commit"]),
    default="refuse",
    show_default=True,
    help="Option-C policy for _meta keys outside the key table: refuse (C-refuse-unknown) "
    "or commit (C-commit-unknown). Changes the option-C rows, never the verdict.",
)
@click.option(
    "--reply-a",
    "reply_a",
    default=None,
    metavar="FILE",
    help="The server's output (s2c capture) holding its reply to A; lets the retry "
    "view check that B echoes requestState exactly.",
)
@format_option(choices=("table", "json", "html"))
@output_option
def diff(
    source_a: str,
    source_b: str,
    index_a: int | None,
    index_b: int | None,
    transport: str,
    era: str,
    server: str | None,
    server_a: str | None,
    server_b: str | None,
    unknown_keys: str,
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
    # Each input is read a block at a time at each pass (a pipe or standard input copied to
    # a temporary file first), never held whole: memory is bounded by its largest frame.
    a, b = (
        DiffInput(reopenable_input(source, _HELD), _name(source), index, own)
        for source, index, own in ((source_a, index_a, server_a), (source_b, index_b, server_b))
    )
    options = DiffOptions(
        transport=transport,
        era=era,
        server=server,
        unknown_keys=unknown_keys,
        reply=reopenable_input(reply_a, _HELD) if reply_a is not None else None,
        reply_name=reply_a or "",
    )
    # an input refused raises its InputError: one line, exit 2 (cli/main.py)
    report = diff_inputs(a, b, options)
    emit(report, fmt, output, f"sealverify diff: {report.subjects[0].outcome}")
    return report.exit_code


def _name(source: str) -> str:
    return "-" if source == "-" else report_name(Path(source).name)


COMMANDS = [diff]
