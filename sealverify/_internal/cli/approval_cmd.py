"""``sealverify approval``: check ApprovalRecord v2 tokens against a pinned key and a frame."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import click

from sealverify import (
    ApprovalOptions,
    ApprovalTally,
    OptionError,
    approval_subject,
    split_tokens,
)
from sealverify._internal.cli import attest_run
from sealverify._internal.cli.common import (
    allow_published_keys_option,
    format_option,
    lowercase_hex,
    max_input_bytes,
    output_option,
    say,
    table_view,
    too_large,
    write_result,
)
from sealverify._internal.cli.helptext import examples
from sealverify._internal.cli.spooled import SubjectSpool
from sealverify._internal.primitives.signatures import hex_key
from sealverify._internal.reports.filenames import report_name
from sealverify._internal.reports.formats import table
from sealverify._internal.run.reading import stdio_frame_of
from sealverify._internal.run.refused import InputRefused, SourceUnreadable
from sealverify._internal.wire.strictjson import JsonError, JsonValue, parse_bytes

__all__ = ["COMMANDS", "approval"]


@click.command(
    epilog=examples(
        "sealverify approval fixtures/approval/tokens.ndjson \\\n"
        "      --frame fixtures/approval/frame.bin --server sealverify-demo@1.0.0 \\\n"
        "      --approval-pubkey "
        "33eeb75bcee9e2349937c1cc205a4673e0e0563e19a1dc8617995bcd7f9174de \\\n"
        "      --at 1786000060000 --allow-published-keys",
    )
)
@click.argument("tokens", nargs=-1, required=True, metavar="TOKEN...")
@click.option(
    "--approval-pubkey",
    "pubkey",
    callback=lowercase_hex,
    required=True,
    metavar="HEX",
    help="The pinned approver Ed25519 public key (64 hex digits, either case), as given to "
    "seal-host --approval-pubkey.",
)
@click.option(
    "--frame",
    "frame_path",
    required=True,
    metavar="FILE",
    help="The exact request frame the approval is for, delimiter included.",
)
@click.option(
    "--server",
    default="",
    metavar="NAME",
    show_default=True,
    help="kernel_config.server, the guard target's server part (empty: none).",
)
@click.option(
    "--target-spec",
    "target_spec_text",
    default=None,
    metavar="JSON",
    help="The guarded rule's target spec from the policy, e.g. "
    '\'[{"literal":"prod"},{"arg":"db.name"}]\'; default: [{"full_arguments":true}].',
)
@click.option(
    "--at",
    "at_ms",
    type=click.IntRange(min=0),
    default=None,
    metavar="MS",
    help="Judge expiry at this time (epoch milliseconds, e.g. a receipt's now); without it, "
    "expiry is judged at the current time and the report says so.",
)
@allow_published_keys_option
@click.option(
    "--waive",
    "waive",
    multiple=True,
    metavar="CHECK_ID",
    help="Waive a legacy.* check for an approver that knowingly signs the guard target of a "
    "host predating the meta-partition ruling (repeatable), as verify --waive does. A waived "
    "check is shown as waived, never as a pass; signature and binding checks cannot be waived.",
)
@format_option()
@output_option
@attest_run.attest_options
def approval(
    tokens: tuple[str, ...],
    pubkey: str,
    frame_path: str,
    server: str,
    target_spec_text: str | None,
    at_ms: int | None,
    allow_published_keys: bool,
    waive: tuple[str, ...],
    fmt: str,
    output: Path | None,
    attest_key: str | None,
    attestation_path: Path | None,
) -> int:
    """Check ApprovalRecord v2 token files (NDJSON, one token per line).

    Every token line is one subject: exact members, the renderer byte rule, the Ed25519
    signature by the pinned key, the subject bound to the exact frame and the target equal to
    the guard target recomputed from it. v1 allows are refused; a v1 decline is read only when
    the pinned key signed it (else it is INVALID). A valid
    token under a published key (sealverify explain authority.published-key) is UNPINNED,
    unless --allow-published-keys. A token for the deployed host's guard target, which leaves
    the call's _meta unbound, is INVALID (legacy.guard-target-omits-meta) unless --waive'd.
    Exit 0 when every token is valid or a readable decline, 1 when any is invalid or refused,
    3 when the worst is UNPINNED, 2 when it could not run.
    """
    try:
        key = hex_key(pubkey)
    except ValueError as exc:
        raise click.UsageError(f"--approval-pubkey: {exc}") from None
    target_spec: JsonValue | None = None
    if target_spec_text is not None:
        try:
            target_spec = parse_bytes(target_spec_text.encode("utf-8"))
        except JsonError as exc:
            raise click.UsageError(f"--target-spec: not strict JSON: {exc}") from None
    # Expiry is always judged: at --at, else now (the CLI reads the clock; the core never does).
    judged_at = at_ms if at_ms is not None else time.time_ns() // 1_000_000
    attesting = attest_run.start(attest_key, attestation_path, (*tokens, frame_path))
    if attesting is not None:  # hashed now and again at the end: a changed input is refused
        attesting.read_inputs([*map(Path, tokens), Path(frame_path)])
    # Read a block at a time: only the first line is kept (a file of many lines was held whole).
    frame, frames = stdio_frame_of(frame_path, 0)
    if frame is None or frames != 1:
        raise click.UsageError(f"--frame {frame_path}: must hold exactly one frame (one line)")
    try:
        options = ApprovalOptions(
            key,
            frame,
            judged_at,
            clock=at_ms is None,
            server=server,
            target_spec=target_spec,
            allow_published_keys=allow_published_keys,
            waive=frozenset(waive),
        )
    except OptionError as exc:
        raise click.UsageError(f"--waive: {exc}") from None
    # Flat memory: token lines are read one at a time and each subject is spooled as rendered;
    # the library judges each token and the run (sealverify.approval_report does both at once).
    spool = SubjectSpool(fmt, "approval", view=table_view(output))
    tally = ApprovalTally(options)
    for source in tokens:
        name = "-" if source == "-" else report_name(Path(source).name)
        before = spool.count
        for location, line in _token_lines(source, name):
            spool.add(tally.add(approval_subject(line, location, options)))
        if spool.count == before:
            raise InputRefused(f"{source}: no token lines")
    report = tally.report()
    with spool:
        write_result(spool.pieces(report), output)
    say(
        f"sealverify approval: {tally.tokens} token(s), {tally.bad} invalid or refused, "
        f"{tally.unpinned} UNPINNED (published key)" + table.published_keys_note(report.summary)
    )
    if attesting is not None:  # last: it names the report and says PASSED only for exit 0
        attesting.write(
            "approval",
            report.exit_code,
            "SEALVERIFY_APPROVAL_VALID",
            [*map(Path, tokens), Path(frame_path)],
            attest_run.policy_of(None, {"approval": [pubkey], "waive": sorted(waive)}),
            attest_run.counts(report.summary),
            {"server": server, "at": at_ms, "allow_published_keys": allow_published_keys},
            output,
        )
    return report.exit_code


def _token_lines(source: str, name: str) -> Iterator[tuple[str, bytes]]:
    """``split_tokens`` of ``source``, a line at a time, the whole held to --max-input-bytes."""
    stream: BinaryIO
    if source == "-":
        stream, label = sys.stdin.buffer, "standard input"
    else:
        try:
            stream, label = open(source, "rb"), source  # noqa: SIM115 (closed below)
        except OSError as exc:
            raise SourceUnreadable.of(source, exc) from None
    left = max_input_bytes()
    try:
        number = 0
        while line := stream.readline(left + 1):  # never more than the cap at once
            number += 1
            left -= len(line)
            if left < 0:
                raise too_large(label)
            yield from split_tokens(line.removesuffix(b"\n"), name, number)
    except OSError as exc:
        raise SourceUnreadable.of(source, exc) from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


COMMANDS = [approval]
