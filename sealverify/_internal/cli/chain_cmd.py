"""``sealverify chain``: verify seal-host's stderr audit chain, its anchors and its receipts."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import click

from sealverify import ChainOptions, ReceiptGroup, StoreError, __version__, chain_report
from sealverify._internal.cli import attest_run
from sealverify._internal.cli.common import (
    HEX64,
    emit,
    format_option,
    lowercase_hex,
    output_option,
    read_input,
)
from sealverify._internal.cli.helptext import examples
from sealverify._internal.cli.progress import Advance, progress
from sealverify._internal.history.databases import is_database_url, redacted
from sealverify._internal.history.state import HistoryError, HistoryStore, open_store
from sealverify._internal.reports.filenames import report_name
from sealverify._internal.run.reading import CappedFile, SpooledInput, open_capped, spool_capped
from sealverify._internal.run.refused import SourceUnreadable
from sealverify._internal.run.walk import inside
from sealverify.formats import format_named

__all__ = ["COMMANDS", "chain"]


def _receipt_inputs(paths: tuple[Path, ...]) -> list[ReceiptGroup]:
    """The receipt files of each --receipts PATH, read; errors exit 2."""
    groups: list[ReceiptGroup] = []
    for path in paths:
        if path.is_dir():
            try:
                names = sorted(p.name for p in path.iterdir())
            except OSError as exc:
                raise click.UsageError(f"cannot list {path}: {exc.strerror or exc}") from None
            root = path.resolve()
            files = [
                # never read out of the directory; named as reports show any file name
                (report_name(n), read_input(str(inside(path / n, root))))
                for n in names
                if n.startswith("receipt-") and n.endswith(".json")
            ]
            label = report_name(path.name or str(path))
            groups.append(ReceiptGroup(label, tuple(report_name(n) for n in names), tuple(files)))
        else:
            name = report_name(path.name)
            groups.append(ReceiptGroup(name, (), ((name, read_input(str(path))),)))
    return groups


_Log = bytes | Callable[[], CappedFile | SpooledInput]  # a log's bytes, or a call opening it


def _log_sources(logs: tuple[str, ...], advance: Advance) -> list[tuple[str, _Log]]:
    """Each log's name and a call that opens it: walked as read, never held whole.

    Standard input, and a path that is not a regular file (a pipe), can be read only once:
    each is copied a block at a time to an unnamed temporary file, read from there.
    """
    sources: list[tuple[str, _Log]] = []
    for log in logs:
        name = "-" if log == "-" else report_name(Path(log).name)
        if log == "-":
            sources.append((name, spool_capped(sys.stdin.buffer, "standard input", advance)))
        elif os.path.isfile(log):
            sources.append((name, open_capped(Path(log), log, advance)))
        elif _is_stream(log):
            try:
                with open(log, "rb") as stream:
                    sources.append((name, spool_capped(stream, log, advance)))
            except OSError as exc:
                raise SourceUnreadable.of(log, exc) from None
        else:
            data = read_input(log)  # a usage error naming the path
            advance(len(data))
            sources.append((name, data))
    return sources


def _is_stream(path: str) -> bool:
    """A pipe or a character device: read once, in blocks."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


@click.command(
    epilog=examples(
        "sealverify chain fixtures/chain/host.stderr --expect-count 3",
        "sealverify chain fixtures/chain/truncated.stderr --expect-count 3 --format html "
        "--output chain.html",
    )
)
@click.argument("logs", nargs=-1, required=True, metavar="LOG...")
@click.option(
    "--expect-head",
    callback=lowercase_hex,
    default=None,
    metavar="HEX",
    help="The head the log must reach (64 hex digits, either case); anchors truncation.",
)
@click.option(
    "--start-head",
    callback=lowercase_hex,
    default=None,
    metavar="HEX",
    help="The head the log continues from (64 hex digits, either case), when it does not start at "
    "genesis: anchors its start.",
)
@click.option(
    "--expect-count",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="The number of chain records the log must hold; anchors truncation.",
)
@click.option(
    "--state-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="seal-host's .seal-audit-head.state (the head it persisted last).",
)
@click.option(
    "--receipts",
    "receipts",
    type=click.Path(exists=True, path_type=Path),
    multiple=True,
    metavar="FILE|DIR",
    help="Receipt file or receipt directory to bind to the chain (repeatable).",
)
@click.option(
    "--state",
    "state",
    default=None,
    metavar="PATH|URL",
    help="sealverify history: chain head continuity across runs, in a SQLite file or a "
    "PostgreSQL URL (postgresql://...) that many runners share.",
)
@format_option()
@output_option
@attest_run.attest_options
def chain(
    logs: tuple[str, ...],
    expect_head: str | None,
    start_head: str | None,
    expect_count: int | None,
    state_file: Path | None,
    receipts: tuple[Path, ...],
    state: str | None,
    fmt: str,
    output: Path | None,
    attest_key: str | None,
    attestation_path: Path | None,
) -> int:
    """Verify seal-host's audit chain from stderr captures, in the order given.

    Each chain record must commit to the payload line before it and link to the previous head;
    breaks are classified (mutation, insertion, reordering, deletion). Truncation needs an
    anchor: --expect-head, --expect-count or --state-file; a log that does not start at genesis
    needs --start-head (or --state). Exit 0 intact and anchored at both ends, 1 broken (or no
    chain record at all), 2 could not run, 3 intact but its start or tail is unanchored.
    """
    if expect_head is not None and not HEX64.fullmatch(expect_head):
        raise click.UsageError("--expect-head must be 64 hex digits")
    if start_head is not None and not HEX64.fullmatch(start_head):
        raise click.UsageError("--start-head must be 64 hex digits")
    attesting = attest_run.start(attest_key, attestation_path, logs)
    if attesting is not None:  # hashed now and again at the end: a changed input is refused
        attesting.read_inputs(attest_run.chain_inputs(logs, state_file, receipts))
    options = ChainOptions(
        expect_head=expect_head,
        expect_count=expect_count,
        start_head=start_head,
        state_file=(
            (report_name(state_file.name), read_input(str(state_file))) if state_file else None
        ),
        display=format_named(fmt).page,
    )
    groups = _receipt_inputs(receipts)
    store: HistoryStore | None = None
    if state is not None:
        try:
            store = open_store(state, tool_version=__version__)
        except HistoryError as exc:  # a StoreError: one line, exit 2, no usage banner
            raise StoreError(f"--state: {exc}") from None
    receipt_total = sum(len(group.files) for group in groups)
    sizes = [os.path.getsize(log) if log != "-" and os.path.isfile(log) else 0 for log in logs]
    try:
        with (
            progress("reading logs", sum(sizes) or None, "B", unit_scale=True) as reading,
            progress("binding receipts", receipt_total or None, "receipt") as advance,
        ):
            report = chain_report(
                _log_sources(logs, reading),
                options,
                groups,
                store=store,
                store_name=f"history: {_store_name(state)}" if state else "history",
                on_receipt=advance,
            )
    except HistoryError as exc:
        raise StoreError(f"--state: {exc}") from None
    chain_subject = report.subjects[0]
    brk = chain_subject.facts["first_break"]
    first = f"; first break at entry {brk['entry']} ({brk['kind']})" if brk else ""
    emit(
        report,
        fmt,
        output,
        f"sealverify chain: {report.summary['records']} record(s), "
        f"{report.summary['other_lines']} other line(s) skipped, {chain_subject.outcome}{first}",
    )
    if attesting is not None:  # last: it names the report and says PASSED only for exit 0
        anchors = {
            "expect_head": [expect_head] if expect_head else [],
            "start_head": [start_head] if start_head else [],
            "expect_count": [] if expect_count is None else [str(expect_count)],
        }
        attesting.write(
            "chain",
            report.exit_code,
            "SEALVERIFY_CHAIN_INTACT_ANCHORED",
            attest_run.chain_inputs(logs, state_file, receipts),
            attest_run.policy_of(None, anchors),
            attest_run.counts(report.summary),
            {"logs": list(logs), "history": state is not None, "format": fmt},
            output,
        )
    return report.exit_code


def _store_name(state: str) -> str:
    """The ``--state`` store as the report names it: a file by its name, a URL without secrets."""
    return redacted(state) if is_database_url(state) else report_name(Path(state).name)


COMMANDS = [chain]
