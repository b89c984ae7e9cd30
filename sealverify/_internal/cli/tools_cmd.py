"""``sealverify tools``: tool-definition digests with their capture block, and comparison."""

from __future__ import annotations

from pathlib import Path

import click

from sealverify import DigestRun, ToolsSource, compare_report, profile_named
from sealverify._internal.cli.common import (
    emit,
    format_option,
    output_option,
    read_input,
    say,
    table_view,
    write_result,
)
from sealverify._internal.cli.helptext import examples
from sealverify._internal.cli.spooled import SubjectSpool
from sealverify._internal.run.reading import reopenable_input
from sealverify._internal.tools.digests import PROFILES

__all__ = ["COMMANDS", "tools"]

_PROFILE = click.Choice(sorted(PROFILES))
_HELD = 1 << 16  # a file no longer than the block a stream is read in is read once and held


def _source(source: str, requests: str | None, capture: str | None) -> ToolsSource:
    """A reading's files (exit 2 when one cannot be read).

    The captured streams are read a block at a time, a frame held at a time, never whole
    (a file read again for each pass, standard input spooled); the capture is one document.
    """
    return ToolsSource(
        reopenable_input(source, _HELD),
        name=source,
        requests=reopenable_input(requests, _HELD) if requests else None,
        capture=read_input(capture) if capture is not None else None,
        capture_name=capture or "--capture",
    )


@click.group(
    epilog=examples(
        "sealverify tools digest fixtures/tools/tools.json",
        "sealverify tools compare fixtures/tools/tools.json fixtures/tools/tools-later.json",
    )
)
def tools() -> None:
    """Tool-definition digests under named profiles, with the capture conditions beside them."""


@tools.command("digest", epilog=examples("sealverify tools digest fixtures/tools/tools.json"))
@click.argument("source", metavar="TOOLS.json|TRANSCRIPT|-")
@click.option(
    "--profile",
    "profile_name",
    type=_PROFILE,
    default="heldfast",
    show_default=True,
    help="Digest profile: heldfast (RFC 8785, heldfast-jcs-v2) or rugsnare (rugsnare-v1); "
    "the same default as tools compare. The profile id is printed beside every digest.",
)
@click.option(
    "--requests",
    type=click.Path(dir_okay=False),
    default=None,
    help="Client-to-server stream of the same stdio session (pairs responses with "
    "requests, checks cursors, records requested version and capabilities).",
)
@click.option(
    "--capture",
    "capture",
    type=click.Path(dir_okay=False),
    default=None,
    help="JSON file with capture members the bytes cannot show (observedAt, launch, "
    "versionHeader...); env values in it are never published.",
)
@click.option(
    "--placeholder",
    "placeholders",
    metavar="VALUE",
    multiple=True,
    help="A placeholder value the reader gave the server (repeatable); definitions "
    "quoting it are flagged. The value itself is never printed.",
)
@format_option(choices=("table", "json"))
@output_option
def digest(
    source: str,
    profile_name: str,
    requests: str | None,
    capture: str | None,
    placeholders: tuple[str, ...],
    fmt: str,
    output: Path | None,
) -> int:
    """Digest every tool of a tools/list result or a captured stdio transcript.

    The profile id is printed beside every digest, and the capture block beside them. Exit 0
    when every tool was digested over a complete list with nothing flagged, 1 otherwise, 2 when
    the input cannot be read.
    """
    # Flat memory: each tool's subject is rendered and spooled as it is digested (the library
    # judges each tool and the run; sealverify.digest_report does both at once).
    # an input refused raises its InputError: one line, exit 2 (cli/main.py)
    run = DigestRun(_source(source, requests, capture), profile_named(profile_name), placeholders)
    spool = SubjectSpool(fmt, "tools digest", layout="rows", view=table_view(output))
    for subject in run.subjects():
        spool.add(subject)
    report = run.report()
    with spool:
        write_result(spool.pieces(report), output)
    s = report.summary
    pages = run.block["pages"]
    listing = "complete" if pages["complete"] else "incomplete"
    say(
        f"sealverify tools digest: {s['digested']}/{s['tools']} tool(s) under "
        f"{s['profile']}; {pages['read']} page(s), listing {listing}"
    )
    return report.exit_code


@tools.command(
    "compare",
    epilog=examples(
        "sealverify tools compare fixtures/tools/tools.json fixtures/tools/tools-later.json"
    ),
)
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@click.option(
    "--profile",
    "profile_name",
    type=_PROFILE,
    default="heldfast",
    show_default=True,
    help="Profile whose digest decides drift (the same default as tools digest).",
)
@click.option(
    "--requests-a",
    type=click.Path(dir_okay=False),
    default=None,
    help="Client-to-server stream for transcript A.",
)
@click.option(
    "--requests-b",
    type=click.Path(dir_okay=False),
    default=None,
    help="Client-to-server stream for transcript B.",
)
@click.option(
    "--capture-a",
    type=click.Path(dir_okay=False),
    default=None,
    help="Declared capture members for A (else a `capture` member beside `tools`).",
)
@click.option(
    "--capture-b",
    type=click.Path(dir_okay=False),
    default=None,
    help="Declared capture members for B.",
)
@click.option(
    "--placeholder",
    "placeholders",
    metavar="VALUE",
    multiple=True,
    help="A placeholder value a reader used (repeatable); never printed.",
)
@format_option(choices=("table", "json"))
@output_option
def compare_cmd(
    a: str,
    b: str,
    profile_name: str,
    requests_a: str | None,
    requests_b: str | None,
    capture_a: str | None,
    capture_b: str | None,
    placeholders: tuple[str, ...],
    fmt: str,
    output: Path | None,
) -> int:
    """Compare two readings of a server's tools under the capture rules 1-4.

    Exit 0 when both lists are complete, their captures match and no tool drifted or was
    flagged; 1 for drift, a capture difference, an incomplete list or a flag; 2 when an input
    cannot be read.
    """
    # an input refused raises its InputError: one line, exit 2 (cli/main.py)
    report = compare_report(
        _source(a, requests_a, capture_a),
        _source(b, requests_b, capture_b),
        profile_name,
        placeholders,
    )
    s = report.summary
    emit(
        report,
        fmt,
        output,
        f"sealverify tools compare: {s['state']} under {s['profile']} (added {s['added']}, "
        f"removed {s['removed']}, changed {s['changed']}, unchanged {s['unchanged']})",
    )
    return report.exit_code


COMMANDS = [tools]
