"""``sealverify verify``: verify seal decision receipts in files, directories, globs and logs."""

from __future__ import annotations

import glob
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from sealverify import __version__, approvals, history
from sealverify.cli.common import emit, format_option, output_option
from sealverify.outcome import FAIL
from sealverify.report import Check, Subject, info
from sealverify.strictjson import JsonError, JsonValue, parse_bytes
from sealverify.trust import TrustStore, load_trust_file
from sealverify.verify import (
    DEFAULT_KERNEL_SHA256,
    VerifyOptions,
    build_report,
    is_receipt_like,
    verify_jsonl,
    verify_receipt,
)

__all__ = ["COMMANDS", "verify"]

_SUFFIXES = (".json", ".jsonl", ".ndjson")
_SIDE_SUFFIX = ".partition.json"
_LOG_SUFFIXES = (".jsonl", ".ndjson")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_GLOB = re.compile(r"[*?\[]")


def _walk(directory: Path) -> list[Path]:
    return sorted(
        p
        for p in directory.rglob("*")
        if p.is_file() and p.suffix in _SUFFIXES and not p.name.endswith(_SIDE_SUFFIX)
    )


def _side_attestation(path: Path) -> JsonValue | None:
    """A partition attestation beside a receipt: ``<receipt file>.partition.json``."""
    side = path.with_name(path.name + _SIDE_SUFFIX)
    if not side.is_file():
        return None
    try:
        return parse_bytes(side.read_bytes())
    except (OSError, JsonError) as exc:
        raise click.UsageError(f"cannot read partition attestation {side}: {exc}") from None


def _load_approvals(path: Path | None) -> tuple[tuple[str, bytes], ...] | None:
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise click.UsageError(f"--approvals {path}: {exc.strerror or exc}") from None
    return tuple(approvals.split_tokens(data, path.name))


def _history_facts(raw: bytes, name: str) -> history.ReceiptFacts | None:
    try:
        doc = parse_bytes(raw)
    except JsonError:
        return None
    return history.receipt_facts(doc, name) if isinstance(doc, dict) else None


def _expand(paths: Iterable[str]) -> list[tuple[Path, bool]]:
    """Files to read, each with whether it was found by a walk (then non-receipts are skipped)."""
    found: list[tuple[Path, bool]] = []
    for arg in paths:
        path = Path(arg)
        if path.is_dir():
            found.extend((p, True) for p in _walk(path))
        elif path.is_file():
            found.append((path, False))
        elif _GLOB.search(arg):
            matches = sorted(glob.glob(arg, recursive=True))
            if not matches:
                raise click.UsageError(f"{arg}: no file matches this pattern")
            for match in map(Path, matches):
                if match.is_dir():
                    found.extend((p, True) for p in _walk(match))
                elif match.is_file():
                    found.append((match, True))
        else:
            raise click.UsageError(f"{arg}: no such file or directory")
    seen: set[Path] = set()
    unique: list[tuple[Path, bool]] = []
    for path, walked in found:
        if path not in seen:
            seen.add(path)
            unique.append((path, walked))
    return unique


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
        data = trust_file.read_bytes()
    except OSError as exc:
        raise click.UsageError(f"--trust {trust_file}: {exc.strerror or exc}") from None
    try:
        return store.merge(load_trust_file(data))
    except ValueError as exc:
        raise click.UsageError(f"--trust {trust_file}: {exc}") from None


@contextmanager
def _progress(items: list[tuple[Path, bool]]) -> Iterator[Iterable[tuple[Path, bool]]]:
    """A progress bar on stderr, only when stderr is a terminal (never in captured output)."""
    if sys.stderr.isatty() and len(items) > 1:
        with click.progressbar(items, label="verifying", file=sys.stderr) as bar:
            yield bar
    else:
        yield items


@click.command()
@click.argument("paths", metavar="PATH...", nargs=-1, required=True)
@click.option(
    "--config-pubkey",
    "config_pins",
    multiple=True,
    metavar="HEX",
    help="Pin a config signer (64 lowercase hex Ed25519 key); repeatable.",
)
@click.option(
    "--receipt-pubkey",
    "receipt_pins",
    multiple=True,
    metavar="HEX",
    help="Pin a receipt (Object B) signing key; repeatable.",
)
@click.option(
    "--approval-pubkey",
    "approval_pins",
    multiple=True,
    metavar="HEX",
    help="Pin an approver key (matched to an ed25519 approval's key_id); repeatable.",
)
@click.option(
    "--trust",
    "--trust-file",
    "trust_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="A trust file of pinned keys, roles and validity windows (docs/trust.md).",
)
@click.option(
    "--kernel-sha256",
    "kernel_pins",
    multiple=True,
    metavar="HEX",
    help="Also accept this kernel wasm build (the fleet build "
    f"{DEFAULT_KERNEL_SHA256[:8]}… is always pinned); repeatable.",
)
@click.option(
    "--approvals",
    "approvals_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="ApprovalRecord v2 tokens (NDJSON) to bind each consumed ed25519 approval to "
    "(docs/approvals.md).",
)
@click.option(
    "--state",
    "state_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="PATH",
    help="SQLite history across runs: single-use nonces, operation ids, config epochs "
    "(docs/history.md). Written only when the run completes.",
)
@format_option()
@output_option
def verify(
    paths: tuple[str, ...],
    config_pins: tuple[str, ...],
    receipt_pins: tuple[str, ...],
    approval_pins: tuple[str, ...],
    trust_file: Path | None,
    kernel_pins: tuple[str, ...],
    approvals_file: Path | None,
    state_path: Path | None,
    fmt: str,
    output: Path | None,
) -> int:
    """Verify seal decision receipts: signatures, bindings, pins and the P-ENFORCE outcome.

    PATH may be a receipt file, a directory (searched recursively for *.json, *.jsonl and
    *.ndjson), a glob, or a JSONL log (one receipt per line). Authority comes only from pins.
    Exit 0 all VERIFIED, 1 any FAIL, 4 any REDUCED (no FAIL), 3 any UNPINNED (nothing worse),
    2 could not run (bad flag, unreadable path, no receipt found). Decision replay is never
    performed and every report says so.
    """
    for pin in kernel_pins:
        if not _HEX64.fullmatch(pin):
            raise click.UsageError(f"--kernel-sha256 {pin!r}: expected 64 lowercase hex digits")
    options = VerifyOptions(
        trust=_trust(config_pins, receipt_pins, approval_pins, trust_file),
        kernel_pins=(DEFAULT_KERNEL_SHA256, *kernel_pins),
        approval_tokens=_load_approvals(approvals_file),
    )
    store: history.HistoryStore | None = None
    if state_path is not None:
        try:
            store = history.HistoryStore(state_path, tool_version=__version__)
        except history.HistoryError as exc:
            raise click.UsageError(f"--state: {exc}") from None
    facts: list[history.ReceiptFacts] = []

    def remember(raw: bytes, subject: Subject) -> None:
        # Only receipts whose own checks held may teach history: a forged receipt must not
        # mark a real nonce as spent.
        if store is not None and subject.outcome != FAIL:
            found = _history_facts(raw, subject.name)
            if found is not None:
                facts.append(found)

    files = _expand(paths)
    subjects: list[Subject] = []
    findings: list[Check] = []
    with _progress(files) as items:
        for path, walked in items:
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise click.UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
            name = path.as_posix()
            if path.suffix in _LOG_SUFFIXES:
                found, log_findings = verify_jsonl(data, name, options, remember)
                subjects.extend(found)
                findings.extend(log_findings)
            elif walked and not is_receipt_like(data):
                findings.append(
                    info("input.not-a-receipt", "skipped: JSON without any receipt member", name)
                )
            else:
                subject = verify_receipt(data, name, options, _side_attestation(path))
                remember(data, subject)
                subjects.append(subject)
    if not subjects:
        raise click.UsageError("no receipts matched: " + " ".join(paths))
    if store is not None:
        for check in store.check_and_stage(facts):
            findings.append(check if check.location else _located(check, state_path))
    report = build_report(subjects, findings)
    summary = report.summary
    emit(
        report,
        fmt,
        output,
        f"sealverify verify: {summary['receipts']} receipt(s): {summary['VERIFIED']} VERIFIED, "
        f"{summary['REDUCED']} REDUCED, {summary['UNPINNED']} UNPINNED, {summary['FAIL']} FAIL "
        f"({summary['not_mediated']} NOT MEDIATED); decision replay: not evaluated",
    )
    if store is not None:
        store.commit()  # only now: the whole run completed and its report was written
        store.close()
    return report.exit_code


def _located(check: Check, state: Path | None) -> Check:
    return Check(check.id, check.status, check.reason, f"history:{state}", check.data)


COMMANDS = [verify]
