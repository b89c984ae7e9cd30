"""``sealverify verify``: verify seal decision receipts in files, directories, globs and logs."""

from __future__ import annotations

import itertools
import os
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

import click

from sealverify import (
    DEFAULT_KERNEL_SHA256,
    Check,
    Report,
    Subject,
    TrustStore,
    VerifyOptions,
    __version__,
    load_trust_file,
    raw_line_index,
)
from sealverify.cli import attest_run, cluster, storage
from sealverify.cli.common import (
    HEX64,
    allow_published_keys_option,
    format_option,
    lowercase_hex,
    max_input_bytes,
    output_option,
    read_file,
    say,
    write_result,
)
from sealverify.cli.follow import FollowArgs, follow_options, run_follow
from sealverify.cli.helptext import examples
from sealverify.cli.main import ARGV_KEY
from sealverify.cli.progress import progress
from sealverify.cli.progress import shown as progress_shown
from sealverify.cli.verify_html import report_command, run_settings
from sealverify.cli.verify_runner import (
    LOG_SUFFIXES,
    Settings,
    Task,
    expand,
    load_approvals,
    tasks,
)
from sealverify.history import facts
from sealverify.receipts.pin_use import PinUse
from sealverify.receipts.verify import build_report_from_tally
from sealverify.reports.caps import Findings
from sealverify.reports.formats import jsonfmt, jsonl, junit, sarif, table, terminal

if TYPE_CHECKING:
    from sealverify.history.state import HistoryStore
    from sealverify.reports.formats.html.verify_page import VerifyPage

__all__ = ["COMMANDS", "verify"]


def _jobs(value: str) -> int:
    if value == "auto":
        return os.cpu_count() or 1
    if value.isdigit() and int(value) >= 1:
        return int(value)
    raise click.UsageError(f"--jobs {value!r}: expected a positive integer or 'auto'")


# What a run in one process (--jobs 1) keeps of what the session grouping read, for the tasks:
# receipt bytes and their strict readings (cli/handoff.py charges a reading three times its
# bytes), so about 1,000 receipts of 8 KB are read once and parsed once; the rest are read
# and parsed again, and peak memory stays within this much of a run that keeps nothing.
_KEEP = 32 << 20


def auto_jobs(work: Iterator[Task], cores: int) -> tuple[int, Iterator[Task]]:
    """``--jobs auto``: one process per core, unless the whole run is one task.

    A task is up to a few dozen receipts (``verify_runner.tasks``); a run that makes only one
    stays in this process, where starting workers would cost more than it saves. The first two
    tasks are looked at and given back in order, so the report is the same either way.
    """
    first = list(itertools.islice(work, 2))
    jobs = cores if len(first) > 1 else 1
    return jobs, itertools.chain(first, work)


def _raw_lines(files: tuple[Path, ...]) -> dict[str, bytes]:
    index: dict[str, bytes] = {}
    for path in files:
        try:
            data = read_file(path)
        except OSError as exc:
            raise click.UsageError(f"--raw-line {path}: {exc.strerror or exc}") from None
        for sha, line in raw_line_index(data).items():
            index.setdefault(sha, line)
    return index


def _trust(
    config: tuple[str, ...],
    receipt: tuple[str, ...],
    approval: tuple[str, ...],
    trust_file: Path | None,
) -> TrustStore:
    try:
        store = TrustStore.from_pins(config=config, receipt=receipt, approval=approval)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if trust_file is None:
        return store
    try:
        data = read_file(trust_file)
    except OSError as exc:
        raise click.UsageError(f"--trust {trust_file}: {exc.strerror or exc}") from None
    try:
        return store.merge(load_trust_file(data))
    except ValueError as exc:
        raise click.UsageError(f"--trust {trust_file}: {exc}") from None


def _total(paths: tuple[str, ...]) -> int | None:
    """Subjects a run will report, for the progress bar: a file each, a log a line each.

    None (a bar without a total) when an input is a URL: counting would read the store twice.
    """
    if any(storage.is_url(arg) for arg in paths):
        return None
    total = 0
    for path, _ in expand(paths):
        if path.suffix not in LOG_SUFFIXES:
            total += 1
            continue
        try:
            with path.open("rb") as log:
                last = b"\n"
                while block := log.read(1 << 20):
                    total += block.count(b"\n")
                    last = block[-1:]
        except OSError:
            continue  # the run itself names the unreadable file (exit 2)
        total += last != b"\n"  # an unterminated last line is a subject too
    return total


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
@cluster.cluster_options
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
def verify(
    paths: tuple[str, ...],
    config_pins: tuple[str, ...],
    receipt_pins: tuple[str, ...],
    approval_pins: tuple[str, ...],
    trust_file: Path | None,
    kernel_pins: tuple[str, ...],
    approvals_file: Path | None,
    state_path: str | None,
    allow_published_keys: bool,
    jobs_text: str | None,
    raw_line_files: tuple[Path, ...],
    no_rederive: bool,
    waive: tuple[str, ...],
    cluster_text: str | None,
    partition_size: int,
    storage_pairs: tuple[str, ...],
    fmt: str,
    color: str,
    output: Path | None,
    attest_key: str | None,
    attestation_path: Path | None,
    follow: FollowArgs | None = None,
) -> int:
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
    for pin in kernel_pins:
        if not HEX64.fullmatch(pin):  # lowercased by the option's callback
            raise click.UsageError(f"--kernel-sha256 {pin!r}: expected 64 hex digits (either case)")
    trust = _trust(config_pins, receipt_pins, approval_pins, trust_file)
    attesting = attest_run.start(attest_key, attestation_path)
    try:
        options = VerifyOptions(
            trust=trust,
            kernel_pins=(DEFAULT_KERNEL_SHA256, *kernel_pins),
            approval_tokens=load_approvals(approvals_file),
            raw_lines=_raw_lines(raw_line_files),
            rederive=not no_rederive,
            allow_published_keys=allow_published_keys,
            waive=frozenset(waive) | frozenset(trust.waive),
        )
    except ValueError as exc:
        raise click.UsageError(f"--waive: {exc}") from None
    # --storage-option before any object is listed or read (grouping a session's receipts reads
    # them while the tasks are made).
    storage.configure(storage.parse_storage_options(storage_pairs))
    if follow is not None:  # docs/follow.md: verify as receipts land, until stopped
        return run_follow(paths, options, state_path, follow)
    if attesting is not None:  # hashed now and again at the end: a changed input is refused
        attesting.read_inputs(attest_run.verify_inputs(paths, approvals_file, raw_line_files))
    jobs = _jobs(jobs_text) if jobs_text is not None else 0
    # One process (--jobs 1) verifies what the session grouping read and parsed, up to _KEEP,
    # rather than read each file twice; workers and cluster tasks read their own files.
    keep = _KEEP if jobs == 1 and cluster_text is None else 0
    work: Iterator[Task] = tasks(expand(paths), options, max_input_bytes(), keep)
    if cluster_text is not None and jobs_text is None:
        jobs = 1  # the cluster has the workers
    elif jobs_text is None:
        jobs, work = auto_jobs(work, _jobs("auto"))
    run = cluster.runner(cluster_text, jobs, partition_size, storage_pairs)
    store: HistoryStore | None = None
    if state_path is not None:
        from sealverify.history import state  # only a run with --state opens a database

        try:
            store = state.open_store(state_path, tool_version=__version__)
        except state.HistoryError as exc:
            raise click.UsageError(f"--state: {exc}") from None
    found_facts: list[facts.ReceiptFacts] = []
    tally: Counter[tuple[str, str]] = Counter()  # (outcome, label) -> receipts
    rederived: Counter[str] = Counter()  # replay.decision status -> receipts
    # Run-level findings, flat: a log of a million blank lines keeps the first few, counted.
    findings = Findings()
    pins_used = PinUse.of(options)  # a pin that matched no receipt is a run note
    # The fitted terminal view (its brief cells spooled too) only for a table on a terminal.
    on_terminal = fmt == "table" and output is None and sys.stdout.isatty()
    settings = Settings(options, store is not None, fmt, max_input_bytes(), brief=on_terminal)
    # Every format is spooled as receipts complete (flat memory): a JSON subject, a subject's
    # SARIF results or JUnit case (rendered by the worker), or a table row's cells. Only
    # small things stay: counts, column widths, SARIF rule ids, the JUnit failure count.
    spool = _byte_spool()
    spooled = failures = 0  # fragments in the spool; JUnit cases that are failures
    rules: set[str] = set()  # SARIF rule ids of the spooled results
    widths = table.column_widths(())
    page: VerifyPage | None = None
    if fmt == "html":  # spools of its own
        from sealverify.reports.formats.html.verify_page import VerifyPage

        page = VerifyPage(_spool)
    total = _total(paths) if progress_shown() else None
    with progress("verifying", total, "receipt") as advance:
        for result, fragment, found in run(work, settings):
            advance(1) if isinstance(result, Subject) else advance.uncount(1)  # receipts only
            if isinstance(result, Exception):  # what stopped a task: the run cannot be done
                raise result
            if isinstance(result, Subject):
                if page is not None and isinstance(fragment, tuple):  # html rows and detail
                    page.add(result, fragment)
                elif fmt == "table" and isinstance(fragment, tuple):  # tab-separated cells
                    cells = fragment
                    widths = [
                        max(w, table.display_width(c))
                        for w, c in zip(widths, cells[: len(widths)], strict=True)
                    ]
                    spool.write(("\t".join(cells) + "\n").encode())
                elif isinstance(fragment, bytes | str) and fragment:  # "": no SARIF results
                    spool.write(_SEPARATOR[fmt] if spooled else b"")
                    spool.write(fragment if isinstance(fragment, bytes) else fragment.encode())
                    spooled += 1
                    if fmt == "junit" and isinstance(fragment, str) and junit.case_failed(fragment):
                        failures += 1
                    elif fmt == "sarif":  # rule_subject: one bare check per rule id
                        rules.update(c.id for c in result.checks)
                tally[result.outcome, result.label] += 1
                pins_used.add(result)
                rederived[str(result.facts.get("rederivation"))] += 1
            else:
                findings.append(result)
            if found is not None:
                found_facts.append(found)
    if not tally and not any(f.status == "fail" for f in findings):
        # A log whose every line is broken matched: its findings are the result (exit 1).
        raise click.UsageError("no receipts matched: " + " ".join(paths))
    findings.extend(pins_used.notes())
    if store is not None:
        from sealverify.history.state import HistoryError  # loaded with the store above

        try:
            staged = store.check_and_stage(found_facts)
        except HistoryError as exc:
            raise click.UsageError(f"--state: {exc}") from None
        for check in staged:
            findings.append(check if check.location else _located(check, store.where))
    report = build_report_from_tally(
        tally, findings.checks(), rederived=rederived, allow_published_keys=allow_published_keys
    )
    summary = report.summary
    failed = sum(f.status == "fail" for f in findings)  # each one alone makes the exit 1
    # Passing run checks (--state's history checks) are counted here, not listed in a table.
    passing = sum(map(terminal.counted_pass, findings))
    line = (
        f"sealverify verify: {summary['receipts']} receipt(s): {summary['VERIFIED']} VERIFIED, "
        f"{summary['REDUCED']} REDUCED, {summary['UNPINNED']} UNPINNED, {summary['FAIL']} FAIL "
        f"({summary['not_mediated']} NOT MEDIATED)"
        + (f", {failed} failed run finding(s)" if failed else "")
        + (f", {passing} passing run check(s)" if passing else "")
        + "; "
        + table.rederivation_summary(summary)
        + table.published_keys_note(summary)
    )
    with spool:
        spool.seek(0)
        if page is not None:
            with page:
                rows = run_settings(options, trust_file, approvals_file, state_path, raw_line_files)
                argv = click.get_current_context().find_root().meta.get(ARGV_KEY)
                command = report_command(argv)
                _write(page.pieces(report, rows, command), output, line)
        elif fmt == "table":
            colour = color == "always" or (
                color == "auto" and on_terminal and not os.environ.get("NO_COLOR")
            )
            text = (
                _terminal_table(report, spool, colour)
                if on_terminal
                else _spooled_table(report, spool, widths, colour)
            )
            # click strips colour from text written to a pipe; bytes are written as they are
            _write((t.encode() for t in text) if colour else text, output, line)
        else:
            head, tail = _around(report, fmt, spooled, rules, failures)
            body = iter(lambda: spool.read(1 << 20), b"")
            _write(itertools.chain([head], body, [tail]), output, line)
    if store is not None:
        from sealverify.history.state import HistoryError

        try:
            store.commit()  # only now: the whole run completed and its report was written
        except HistoryError as exc:  # e.g. a file that cannot take the write: could not run
            raise click.UsageError(f"--state: {exc}") from None
        finally:
            store.close()
    if attesting is not None:  # last: it names the report and says PASSED only for exit 0
        pins = {"config": config_pins, "receipt": receipt_pins, "approval": approval_pins}
        attesting.write(
            "verify",
            report.exit_code,
            "SEALVERIFY_VERIFIED_REDERIVED",
            attest_run.verify_inputs(paths, approvals_file, raw_line_files),
            attest_run.policy_of(trust_file, {**pins, "kernel": kernel_pins}),
            attest_run.counts(summary),
            {
                "paths": list(paths),
                "allow_published_keys": allow_published_keys,
                "rederive": not no_rederive,
                "waive": sorted(waive),
                "history": state_path is not None,
                "format": fmt,
            },
            output,
        )
    return report.exit_code


def _spool() -> IO[str]:
    return tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n")


def _byte_spool() -> IO[bytes]:
    """The fragments as UTF-8, encoded once: copied to the output as they are, never decoded."""
    return tempfile.TemporaryFile("w+b")


_SEPARATOR = {
    "json": jsonfmt.SUBJECT_SEPARATOR.encode(),
    "jsonl": b"",  # each line ends in its own newline
    "sarif": sarif.RESULT_SEPARATOR.encode(),
    "junit": b"\n",
}


def _around(
    report: Report, fmt: str, spooled: int, rules: set[str], failures: int
) -> tuple[str, str]:
    """The text of ``render(report, fmt)`` before and after its spooled fragments.

    ``report`` has no subjects: its subjects' fragments (``spooled`` of them, joined by
    ``_SEPARATOR[fmt]``) are in the spool, and for SARIF ``rules`` holds their rule ids, for
    JUnit ``failures`` counts their failed cases.
    """
    if fmt == "json":
        return jsonfmt.render_around_subjects(report)
    if fmt == "jsonl":
        return "", jsonl.tail_text(report)
    if fmt == "sarif":
        if not spooled:  # no subject has a result: the findings' are the whole list
            return sarif.render(report), ""
        return sarif.render_around_results(report, rules)
    cases = junit.finding_cases(report.command, report.findings)  # after the subjects' cases
    head = junit.render_head(report, spooled + len(cases), failures + len(cases))
    return head, ("\n" if spooled else "") + "".join(c + "\n" for c in cases) + junit.FOOTER


def _spooled_rows(spool: IO[bytes]) -> Iterator[tuple[str, ...]]:
    """The spooled rows from the start: five cells each, eight on a terminal (Settings.brief)."""
    # receipt_cells puts every cell on one line with tabs escaped (\x09): a tab and a line end
    # separate cells and rows exactly (the spool neither writes nor reads translated newlines).
    spool.seek(0)
    return (tuple(line[:-1].decode().split("\t")) for line in spool)


def _spooled_table(
    report: Report, spool: IO[bytes], widths: list[int], colour: bool = False
) -> Iterator[str]:
    """The table format of ``report`` with its rows read back from ``spool``, line by line."""
    findings = table.findings_table(report)
    if findings:
        yield findings + "\n\n"
    rows = (row[: len(widths)] for row in _spooled_rows(spool))
    for text in table.receipt_table_lines(rows, widths, colour=colour):
        yield text + "\n"
    # The run's summary line is printed once, on stderr (with the NOT MEDIATED count).


def _terminal_table(report: Report, spool: IO[bytes], colour: bool) -> Iterator[str]:
    """The table fitted to the terminal's width (reports/formats/terminal.py), line by line."""
    columns = shutil.get_terminal_size().columns
    for text in terminal.lines(lambda: _spooled_rows(spool), report.findings, columns, colour):
        yield text + "\n"


def _write(pieces: Iterable[str | bytes], output: Path | None, summary: str) -> None:
    """:func:`emit` for a report assembled from spooled pieces."""
    write_result(pieces, output)
    say(summary)


def _located(check: Check, state: str) -> Check:
    return Check(check.id, check.status, check.reason, f"history:{state}", check.data)


COMMANDS = [verify]
