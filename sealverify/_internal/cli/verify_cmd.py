"""``sealverify verify``: verify seal decision receipts in files, directories, globs and logs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from sealverify import DEFAULT_KERNEL_SHA256, StoreError, Subject, __version__
from sealverify._internal.cli import attest_run
from sealverify._internal.cli.common import (
    allow_published_keys_option,
    format_option,
    lowercase_hex,
    max_input_bytes,
    output_option,
)
from sealverify._internal.cli.follow import follow_options, run_follow
from sealverify._internal.cli.helptext import examples
from sealverify._internal.cli.main import ARGV_KEY
from sealverify._internal.cli.progress import progress
from sealverify._internal.cli.progress import shown as progress_shown
from sealverify._internal.cli.verify_html import report_command, run_settings
from sealverify._internal.cli.verify_options import (
    VerifyArgs,
    cluster_options,
    jobs_of,
    options_of,
    parse_storage_options,
    total_of,
    trust_of,
)
from sealverify._internal.cli.verify_report import VerifyReport
from sealverify._internal.run import storage
from sealverify._internal.run.engine import Settings
from sealverify._internal.run.sources import run_results

if TYPE_CHECKING:
    from sealverify._internal.history.state import HistoryStore

__all__ = ["COMMANDS", "verify"]


@click.command(
    epilog=examples(
        "sealverify verify fixtures/demo/receipts --trust fixtures/demo/trust.json",
        "sealverify verify fixtures/demo/receipts --trust fixtures/demo/trust.json "
        "--format html --output report.html",
        "sealverify verify fixtures/demo/receipts --trust fixtures/demo/trust.json "
        "--allow-published-keys --format sarif --output sealverify.sarif",
    )
)
@click.argument("paths", metavar="PATH...", nargs=-1, required=True)
@click.option(
    "--config-pubkey",
    "config_pins",
    callback=lowercase_hex,
    multiple=True,
    metavar="HEX",
    help="Pin a config signer (Ed25519 key, 64 hex digits, either case); repeatable.",
)
@click.option(
    "--receipt-pubkey",
    "receipt_pins",
    callback=lowercase_hex,
    multiple=True,
    metavar="HEX",
    help="Pin a receipt (Object B) signing key (64 hex digits, either case); repeatable.",
)
@click.option(
    "--approval-pubkey",
    "approval_pins",
    callback=lowercase_hex,
    multiple=True,
    metavar="HEX",
    help="Pin an approver key (64 hex digits, either case; matched to an ed25519 approval's "
    "key_id); repeatable.",
)
@click.option(
    "--trust",
    "--trust-file",
    "trust_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="A trust file of pinned keys, roles and validity windows.",
)
@click.option(
    "--kernel-sha256",
    "kernel_pins",
    callback=lowercase_hex,
    multiple=True,
    metavar="HEX",
    help="Also accept this kernel wasm build (64 hex digits of its sha256, either case; the fleet "
    "build "
    f"{DEFAULT_KERNEL_SHA256[:8]}… is always pinned); repeatable.",
)
@click.option(
    "--approvals",
    "approvals_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="ApprovalRecord v2 tokens (NDJSON) to bind each consumed ed25519 approval to "
    "(sealverify explain approval.receipt); with no approver key pinned the receipt is "
    "UNPINNED at best.",
)
@click.option(
    "--state",
    "state_path",
    default=None,
    metavar="PATH|URL",
    help="History across runs: single-use nonces, operation ids, config epochs "
    "(sealverify explain history.): a SQLite file, or a PostgreSQL URL (postgresql://...) "
    "that many runners share. Written only when the run completes.",
)
@allow_published_keys_option
@click.option(
    "--jobs",
    "-j",
    "jobs_text",
    default=None,
    metavar="N|auto",
    help="Verify in N processes, N - 1 workers and this one; the report is identical. "
    "[default: auto: one per core, or this process alone for a run of a few dozen receipts or "
    "with --cluster]",
)
@click.option(
    "--raw-line",
    "raw_line_files",
    type=click.Path(dir_okay=False, path_type=Path),
    multiple=True,
    metavar="FILE",
    help="Request lines (one per line, or a captured stdio stream) for receipts that do not "
    "carry the line they judged; a line is used only for the receipt whose request_sha256 it "
    "hashes to (repeatable).",
)
@click.option(
    "--no-rederive",
    "no_rederive",
    is_flag=True,
    help="Do not re-derive decisions: replay.decision is not evaluated, so no receipt that "
    "carries a kernel decision can be VERIFIED (REDUCED at best); for measuring.",
)
@click.option(
    "--waive",
    "waive",
    multiple=True,
    metavar="CHECK_ID",
    help="Waive a legacy.* check for a fleet that knowingly runs a host predating the "
    'meta-partition ruling (repeatable; also a trust file\'s "waive" list). A waived check is '
    "shown as waived, never as a pass; signature and binding checks cannot be waived.",
)
@cluster_options
@format_option()
@click.option(
    "--color",
    "color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the outcomes of the table: auto colours on a terminal unless NO_COLOR is set "
    "(no-color.org); always also in a pipe (for less -R).",
)
@output_option
@attest_run.attest_options
@follow_options
def verify(**given: Any) -> int:
    """Verify seal decision receipts: signatures, bindings, pins and the P-ENFORCE outcome.

    PATH may be a receipt file, a directory (searched recursively for *.json, *.jsonl and
    *.ndjson), a glob, or a JSONL log (one receipt per line). Authority comes only from pins,
    never from a published key (one whose secret is public: UNPINNED at best).
    Each receipt's decision is re-derived by sealverify's model of the kernel build it names
    (replay.decision: the model's output must equal emitted_bytes byte for byte);
    the receipts of one session are re-derived in order, state carried, across every input.
    Exit 0 all VERIFIED, 1 any FAIL, 4 any REDUCED (no FAIL), 3 any UNPINNED (nothing worse),
    2 could not run (bad flag, unreadable path, no receipt found).
    """
    args = VerifyArgs(**given)
    trust = trust_of(args)
    attesting = attest_run.start(args.attest_key, args.attestation_path)
    options = options_of(args, trust)
    # --storage-option before any object is listed or read (grouping a session's receipts
    # reads them while the tasks are made).
    storage_options = parse_storage_options(args.storage_pairs)
    storage.configure(storage_options)
    if args.follow is not None:  # docs/follow.md: verify as receipts land, until stopped
        return run_follow(args.paths, options, args.state_path, args.follow)
    inputs = (args.paths, args.approvals_file, args.raw_line_files)
    if attesting is not None:  # hashed now and again at the end: a changed input is refused
        attesting.read_inputs(attest_run.verify_inputs(*inputs))
    wants_facts = args.state_path is not None
    settings = Settings(options, wants_facts, args.fmt, max_input_bytes())
    results = run_results(
        args.paths,
        settings,
        jobs=jobs_of(args),
        cluster=args.cluster_text,
        partition_size=args.partition_size,
        storage_options=storage_options,
    )
    store = _open_store(args.state_path)
    total = total_of(args.paths) if progress_shown() else None
    with VerifyReport(args.fmt) as run:
        with progress("verifying", total, "receipt") as step:
            for result, fragment, found in results:
                step(1) if isinstance(result, Subject) else step.uncount(1)  # receipts only
                run.add(result, fragment, found)
        if store is not None:
            _history(lambda: run.stage(store))
        report = run.report(args.allow_published_keys)

        def page_rows() -> tuple[list[tuple[str, str]], str]:
            argv = click.get_current_context().find_root().meta.get(ARGV_KEY)
            files = (args.trust_file, args.approvals_file, args.state_path, args.raw_line_files)
            rows = run_settings(options, *files)
            return rows, report_command(argv)

        run.write(report, args.output, args.color, page_rows)
    if store is not None:
        _history(store.commit, store.close)  # only now: the run completed, its report written
    if attesting is not None:  # last: it names the report and says PASSED only for exit 0
        attest_run.attest_verify(attesting, args, report)
    return report.exit_code


def _open_store(state_path: str | None) -> HistoryStore | None:
    if state_path is None:
        return None
    from sealverify._internal.history import state  # only a run with --state opens a database

    try:
        return state.open_store(state_path, tool_version=__version__)
    except state.HistoryError as exc:
        raise StoreError(f"--state: {exc}") from None


def _history(step: Callable[[], object], finally_: Callable[[], object] | None = None) -> None:
    """A step of the ``--state`` store; its failure is the run's (``--state: why``, exit 2)."""
    from sealverify._internal.history.state import HistoryError  # loaded with the store

    try:
        step()
    except HistoryError as exc:  # e.g. a file that cannot take the write: could not run
        raise StoreError(f"--state: {exc}") from None
    finally:
        if finally_ is not None:
            finally_()


COMMANDS = [verify]
