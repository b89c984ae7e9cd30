"""``sealverify partition emit|verify``: `_meta` partition records and signed attestations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from sealverify import (
    FrameBytes,
    FrameOptions,
    InputFileError,
    OptionError,
    attestation_report,
    partition_emit,
    select_frame,
)
from sealverify._internal.cli.common import (
    allow_published_keys_option,
    emit,
    era_option,
    format_option,
    lowercase_hex,
    output_option,
    read_input,
    say,
    supported_version_option,
    transport_option,
    write_result,
)
from sealverify._internal.cli.helptext import examples
from sealverify._internal.partition import records as pt
from sealverify._internal.primitives import signatures
from sealverify._internal.reports.filenames import report_name
from sealverify._internal.reports.formats import table
from sealverify._internal.run.reading import stdio_frame_of
from sealverify._internal.run.refused import SourceUnreadable

__all__ = ["COMMANDS", "partition"]


def _select_frame(data: bytes, transport: str, index: int, source: str) -> FrameBytes:
    try:
        return select_frame(data, transport, index, source)
    except OptionError as exc:
        raise click.UsageError(str(exc)) from None


def _read_frame(source: str, transport: str, index: int) -> FrameBytes:
    """Frame ``index`` of ``source`` (a file or ``-``); a stdio stream is never held whole.

    A stdio stream is read a block at a time and only the frame asked for is kept (it was
    read whole, then split, to take one frame); an http body is one frame, read whole.
    """
    if transport != "stdio":
        return _select_frame(read_input(source), transport, index, source)
    found, frames = stdio_frame_of(source, index)
    if found is None:
        raise click.UsageError(f"--index {index}: {source} holds {frames} frame(s)")
    return _select_frame(found, transport, 0, source)  # the frame alone: its only frame


def _frame_options(func: Any) -> Any:
    func = transport_option(
        "stdio: FRAME is a captured stream of LF-terminated frames; http: one body."
    )(func)
    func = click.option(
        "--index",
        metavar="N",
        type=click.IntRange(min=0),
        default=0,
        show_default=True,
        help="0-based index of the frame in a stdio stream.",
    )(func)
    return supported_version_option(func)


class _EmitByDefault(click.Group):
    """``partition FRAME ...`` means ``partition emit FRAME ...`` (the issue's spelling).

    A first argument that is not a subcommand name is taken as the FRAME of ``emit``; a frame
    file literally named ``emit`` or ``verify`` is reached as ``partition emit ./verify``.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if (
            args
            and (args[0] == "-" or not args[0].startswith("-"))
            and args[0] not in self.commands
        ):
            args = ["emit", *args]
        return super().parse_args(ctx, args)


@click.group(
    cls=_EmitByDefault,
    epilog=examples(
        "sealverify partition fixtures/partition/frame.bin",
        "sealverify partition verify fixtures/partition/attestation.json \\\n"
        "      --frame fixtures/partition/frame.bin --allow-published-keys \\\n"
        "      --pubkey 0545a4cf42aa36b761dc2bdfe0b11bd71d45a2ea15be33e3ee9ca610c608fe2d",
    ),
)
def partition() -> None:
    """Make and check `_meta` partition records (sealverify explain partition.).

    `partition FRAME` (short for `partition emit FRAME`) writes the record, or with
    --sign-key a signed attestation; `partition verify ATTESTATION --frame FRAME --pubkey HEX`
    recomputes it from the frame and checks every field.
    """


@partition.command(
    "emit", epilog=examples("sealverify partition emit fixtures/partition/frame.bin")
)
@click.argument("source", metavar="FRAME|-")
@click.option(
    "--policy",
    type=click.Choice(pt.POLICIES),
    default=pt.COMMIT_ALL,
    show_default=True,
    help="commit-all is Option A (ruled); the c-* policies read older evidence.",
)
@click.option(
    "--sign-key",
    "sign_key",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="File holding 64 lowercase hex digits: a 32-byte Ed25519 seed.",
)
@era_option("2026-07-28", "Protocol era to enforce; 'auto' infers it from the frame.")
@_frame_options
@format_option(choices=("table", "json"))
@output_option
def emit_cmd(
    source: str,
    policy: str,
    sign_key: Path | None,
    era: str,
    transport: str,
    index: int,
    supported: tuple[str, ...],
    fmt: str,
    output: Path | None,
) -> int:
    """Write the partition record (or signed attestation) of one frame as RFC 8785 JSON.

    Exit 0 with the record on stdout; exit 1 with a refusal report (--format) when the frame
    must be refused before any record exists; exit 2 when FRAME or the key cannot be read.
    """
    seed: bytes | None = None
    if sign_key is not None:
        try:
            seed = pt.seed_from_key_text(sign_key.read_text(encoding="ascii"))
        except OSError as exc:
            raise SourceUnreadable.of(f"--sign-key {sign_key}", exc) from None
        except ValueError as exc:  # not ASCII, or not a key: one line, exit 2
            raise InputFileError(f"--sign-key {sign_key}: {exc}") from None
    frame = _read_frame(source, transport, index)
    options = FrameOptions(era=era, supported_versions=frozenset(supported))
    name = f"{'-' if source == '-' else report_name(Path(source).name)}#{index}"
    emitted = partition_emit(frame, policy, options, seed=seed, name=name)
    if emitted.report is not None:
        emit(emitted.report, fmt, output, f"sealverify partition emit: {name} refused, no record")
        return emitted.exit_code
    assert emitted.payload is not None
    write_result([emitted.payload.decode("utf-8") + "\n"], output)
    kind = "signed attestation" if seed is not None else "record"
    say(f"sealverify partition emit: {name} {policy} {kind}")
    return emitted.exit_code


@partition.command(
    "verify",
    epilog=examples(
        "sealverify partition verify fixtures/partition/attestation.json \\\n"
        "      --frame fixtures/partition/frame.bin --allow-published-keys \\\n"
        "      --pubkey 0545a4cf42aa36b761dc2bdfe0b11bd71d45a2ea15be33e3ee9ca610c608fe2d",
    ),
)
@click.argument("attestation_path", metavar="ATTESTATION")
@click.option(
    "--frame",
    "frame_path",
    required=True,
    metavar="FILE|-",
    help="The exact frame bytes (file or -).",
)
@click.option(
    "--pubkey",
    "pubkeys",
    callback=lowercase_hex,
    metavar="HEX",
    multiple=True,
    required=True,
    help="Trusted Ed25519 public key, 64 hex digits, either case (repeatable).",
)
@_frame_options
@allow_published_keys_option
@format_option()
@output_option
def verify_cmd(
    attestation_path: str,
    frame_path: str,
    pubkeys: tuple[str, ...],
    transport: str,
    index: int,
    supported: tuple[str, ...],
    allow_published_keys: bool,
    fmt: str,
    output: Path | None,
) -> int:
    """Recompute the record from the frame and check the signature and every field.

    An attestation signed by a published key (sealverify explain authority.published-key) is
    UNPINNED, not VERIFIED, unless --allow-published-keys. Exit 0 when every check passes, 1
    when any fails, 3 when it is UNPINNED, 2 when an input cannot be read.
    """
    if attestation_path == "-" and frame_path == "-":
        raise click.UsageError("ATTESTATION and --frame cannot both be standard input")
    try:
        keys = [signatures.hex_key(k) for k in pubkeys]
    except ValueError as exc:
        raise click.UsageError(f"--pubkey: {exc}") from None
    raw = read_input(attestation_path)
    name = "-" if attestation_path == "-" else report_name(Path(attestation_path).name)
    frame = _read_frame(frame_path, transport, index)
    report = attestation_report(
        raw,
        frame.data,
        keys,
        name=name,
        transport=transport,
        options=FrameOptions(supported_versions=frozenset(supported)),
        allow_published_keys=allow_published_keys,
    )
    outcome = report.subjects[0].outcome
    summary = report.summary
    emit(
        report,
        fmt,
        output,
        f"sealverify partition verify: {name} {outcome}" + table.published_keys_note(summary),
    )
    return report.exit_code


COMMANDS = [partition]
