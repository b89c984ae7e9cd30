"""What ``verify``'s options say: the run's arguments, its VerifyOptions, how it is run."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from sealverify import (
    DEFAULT_KERNEL_SHA256,
    InputFileError,
    TrustStore,
    VerifyOptions,
    load_trust_file,
    raw_line_index,
)
from sealverify._internal.cli.common import HEX64, read_file
from sealverify._internal.reports.filenames import report_name
from sealverify._internal.run import storage
from sealverify._internal.run.cluster import DEFAULT_PARTITION
from sealverify._internal.run.engine import LOG_SUFFIXES, expand
from sealverify._internal.run.refused import SourceUnreadable
from sealverify._internal.run.sources import Jobs

if TYPE_CHECKING:
    from sealverify._internal.cli.follow import FollowArgs

__all__ = [
    "VerifyArgs",
    "cluster_options",
    "jobs_of",
    "options_of",
    "parse_storage_options",
    "total_of",
    "trust_of",
]

_F = TypeVar("_F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class VerifyArgs:
    """Every option of ``verify``, as click hands them over (names as the options give them)."""

    paths: tuple[str, ...]
    config_pins: tuple[str, ...]
    receipt_pins: tuple[str, ...]
    approval_pins: tuple[str, ...]
    trust_file: Path | None
    kernel_pins: tuple[str, ...]
    approvals_file: Path | None
    state_path: str | None
    allow_published_keys: bool
    jobs_text: str | None
    raw_line_files: tuple[Path, ...]
    no_rederive: bool
    waive: tuple[str, ...]
    cluster_text: str | None
    partition_size: int
    storage_pairs: tuple[str, ...]
    fmt: str
    color: str
    output: Path | None
    attest_key: str | None
    attestation_path: Path | None
    follow: FollowArgs | None = None


def trust_of(args: VerifyArgs) -> TrustStore:
    """The pins of the run: ``--*-pubkey`` and ``--trust``, the kernel pins checked."""
    for pin in args.kernel_pins:
        if not HEX64.fullmatch(pin):  # lowercased by the option's callback
            raise click.UsageError(f"--kernel-sha256 {pin!r}: expected 64 hex digits (either case)")
    try:
        store = TrustStore.from_pins(
            config=args.config_pins, receipt=args.receipt_pins, approval=args.approval_pins
        )
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if args.trust_file is None:
        return store
    data = _read("--trust", args.trust_file)
    try:
        return store.merge(load_trust_file(data))
    except ValueError as exc:  # an InputFileError, or a merge the pins refuse: one line
        raise InputFileError(f"--trust {args.trust_file}: {exc}") from None


def options_of(args: VerifyArgs, trust: TrustStore) -> VerifyOptions:
    """The run's :class:`VerifyOptions`: ``trust``, the kernels, approvals, raw lines, waivers."""
    try:
        return VerifyOptions(
            trust=trust,
            kernel_pins=(DEFAULT_KERNEL_SHA256, *args.kernel_pins),
            approval_tokens=_approvals(args.approvals_file),
            raw_lines=_raw_lines(args.raw_line_files),
            rederive=not args.no_rederive,
            allow_published_keys=args.allow_published_keys,
            waive=frozenset(args.waive) | frozenset(trust.waive),
        )
    except ValueError as exc:
        raise click.UsageError(f"--waive: {exc}") from None


def _approvals(path: Path | None) -> tuple[tuple[str, bytes], ...] | None:
    if path is None:
        return None
    from sealverify import split_tokens  # the token judge loads with --approvals only

    return tuple(split_tokens(_read("--approvals", path), report_name(path.name)))


def _raw_lines(files: tuple[Path, ...]) -> dict[str, bytes]:
    index: dict[str, bytes] = {}
    for path in files:
        for sha, line in raw_line_index(_read("--raw-line", path)).items():
            index.setdefault(sha, line)
    return index


def _read(option: str, path: Path) -> bytes:
    """A file an option names, held to ``--max-input-bytes``; unreadable: one line, exit 2."""
    try:
        return read_file(path)
    except OSError as exc:
        raise SourceUnreadable(f"{option} {path}: {exc.strerror or exc}") from None


def jobs_of(args: VerifyArgs) -> Jobs:
    """``--jobs``: a count, or ``auto`` (one per core; the default, or one with ``--cluster``)."""
    value = args.jobs_text
    if value is None:
        return 1 if args.cluster_text is not None else "auto"  # the cluster has the workers
    if value == "auto":
        return os.cpu_count() or 1
    if value.isdigit() and int(value) >= 1:
        return int(value)
    raise click.UsageError(f"--jobs {value!r}: expected a positive integer or 'auto'")


def parse_storage_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``--storage-option KEY=VALUE`` pairs to fsspec storage options.

    A VALUE that reads as JSON (``true``, ``3``, ``{"region_name": "eu-west-1"}``) is taken as
    that value, anything else as the text itself.
    """
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise click.UsageError(f"--storage-option {pair!r}: expected KEY=VALUE")
        try:
            options[key] = json.loads(text)
        except ValueError:
            options[key] = text
    return options


def total_of(paths: tuple[str, ...]) -> int | None:
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


def cluster_options(command: _F) -> _F:
    """``--cluster``, ``--partition-size`` and ``--storage-option`` (docs/scale.md)."""
    for option in reversed(
        (
            click.option(
                "--cluster",
                "cluster_text",
                default=None,
                metavar="ADDRESS",
                help="Verify on a Dask cluster: a scheduler address (tcp://host:8786) or "
                "local[:N] (N worker processes here); the report is identical "
                "(needs the dask extra: pip install 'sealverify[dask]').",
            ),
            click.option(
                "--partition-size",
                "partition_size",
                type=click.IntRange(min=1),
                default=DEFAULT_PARTITION,
                show_default=True,
                metavar="N",
                help="With --cluster: about N receipts per cluster task.",
            ),
            click.option(
                "--storage-option",
                "storage_pairs",
                multiple=True,
                metavar="KEY=VALUE",
                help="An fsspec storage option for s3://, gs://, az://, https:// inputs, e.g. "
                "endpoint_url=http://127.0.0.1:9000 or anon=true (repeatable; VALUE may be "
                "JSON). The environment's credentials (AWS_*, FSSPEC_S3_*) apply too.",
            ),
        )
    ):
        command = option(command)
    return command
