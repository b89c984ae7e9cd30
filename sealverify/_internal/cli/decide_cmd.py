"""``sealverify decide``: what the kernel would decide for a frame under a signed config.

The lines are read, decided and written one at a time (``what_if_stream``): memory is bounded
by the longest line, not by the input, and the summary line keeps counts and the first routes.
"""

from __future__ import annotations

import functools
import json
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import click

from sealverify import (
    DEFAULT_KERNEL_SHA256,
    KERNEL_PROFILES,
    HostApproval,
    ModelLimit,
    WhatIfStream,
    what_if_stream,
)
from sealverify._internal.cli.common import (
    HEX64,
    lowercase_hex,
    max_input_bytes,
    output_option,
    read_input,
    say,
    table_view,
    too_large,
    write_result,
)
from sealverify._internal.cli.helptext import examples
from sealverify._internal.reports.formats.grid import ID, TEXT, View, grid, wrap
from sealverify._internal.reports.formats.jsonfmt import dumps_compact
from sealverify._internal.reports.visible import visible
from sealverify._internal.run.refused import SourceUnreadable

__all__ = ["COMMANDS", "decide_command"]

# Lines decided per run by default: frame's --max-frames default (mcp/frame_stream.py
# MAX_FRAMES, held equal by a test), not imported from there, which would load the frame stack.
MAX_FRAMES = 10_000


def _approval(text: str) -> HostApproval:
    target, _, issued = text.partition("@")
    if not HEX64.fullmatch(target):
        raise click.BadParameter(f"{text!r}: TARGET must be 64 hex digits")
    if issued and not issued.isdigit():
        raise click.BadParameter(f"{text!r}: @MS must be a natural number of milliseconds")
    return HostApproval(target, int(issued) if issued else None)


def _build(value: str) -> str:
    matches: list[str] = [sha for sha in KERNEL_PROFILES if sha.startswith(value)]
    if len(value) < 8:
        matches = []
    if len(matches) != 1:
        known = ", ".join(sha[:8] for sha in sorted(KERNEL_PROFILES))
        raise click.BadParameter(f"{value!r}: not a kernel build this model has ({known})")
    return matches[0]


@contextmanager
def _lines(source: str) -> Iterator[Iterator[bytes]]:
    """The non-blank lines of FILE (or stdin for ``-``), read one at a time.

    An input with none gives one empty line. The input is held to ``--max-input-bytes`` (a
    regular file by its size, before any line is decided).
    """
    if source == "-":
        yield _read_lines(sys.stdin.buffer, "standard input")
        return
    try:
        stream = open(source, "rb")  # noqa: SIM115 (closed below, after the last line)
    except OSError as exc:
        raise SourceUnreadable.of(source, exc) from None
    with stream:
        info = os.fstat(stream.fileno())
        if stat.S_ISREG(info.st_mode) and info.st_size > max_input_bytes():
            raise too_large(source)
        yield _read_lines(stream, source)


def _read_lines(stream: BinaryIO, name: str) -> Iterator[bytes]:
    """Each non-blank line of ``stream``, held to the bytes the cap has left.

    A line is read at most to that many bytes, so an endless line (``/dev/zero``) is refused
    at the cap, never held whole.
    """
    left, seen = max_input_bytes(), False
    try:
        while line := stream.readline(left + 1):
            left -= len(line)
            if left < 0:
                raise too_large(name)
            line = line[:-1] if line.endswith(b"\n") else line
            if line.strip(b" \t\r"):
                seen = True
                yield line
    except OSError as exc:
        raise SourceUnreadable.of(name, exc) from None
    if not seen:
        yield b""


def _indented(text: str, by: str) -> str:
    return by + text.replace("\n", "\n" + by)


def _json(run: WhatIfStream) -> Iterator[str]:
    """``json.dumps(what_if_report(...), indent=2, sort_keys=True)``, written a step at a time.

    ``steps`` sorts after every other member, so the head is written first; each step is its
    own ``json.dumps`` indented to its depth (a JSON text holds no raw line feed).
    """
    head = json.dumps(run.head(), indent=2, sort_keys=True)
    yield head[: -len("\n}")] + ',\n  "steps": ['
    separator = "\n"
    for step in run.steps():
        yield separator + _indented(json.dumps(step, indent=2, sort_keys=True), "    ")
        separator = ",\n"
    tail = "]" if separator == "\n" else "\n  ]"
    if run.more:
        tail += ',\n  "truncated": ' + json.dumps(run.limit_reason)
    yield tail + "\n}\n"


def _typed(kind: str, value: dict[str, object]) -> str:
    """One JSON Lines line, ``"type"`` first, then ``value`` sorted (as the jsonl format)."""
    return f'{{"type":"{kind}",' + dumps_compact(value)[1:] + "\n"


def _jsonl(run: WhatIfStream) -> Iterator[str]:
    """A ``step`` line per line decided, then one ``summary`` line.

    The summary holds the json report's other members, the exit code and the count per route;
    a stream without it did not complete.
    """
    for step in run.steps():
        yield _typed("step", step)
    summary = {**run.head(), "exit_code": run.exit_code, "counts": run.counts}
    if run.more:
        summary["truncated"] = run.limit_reason
    yield _typed("summary", summary)


def _table(run: WhatIfStream, view: View) -> Iterator[str]:
    """Each line decided as a block drawn to ``view`` (reports/formats/grid.py).

    The certs are a table (kernel, verdict and certHash whole, the reason wrapped); the
    emitted bytes are wrapped inside, never cut (--format json has them as one string).
    """
    # Every text from the frame or the config is shown visibly (reports/visible.py): a tool
    # name, a principal or the emitted bytes may hold a terminal control sequence.
    info = run.head()
    head = [f"model: {info['model']}", f"config signature: {run.signature}"]
    yield "\n".join(line for text in head for line in wrap(text, view.columns, "  "))
    for index, step in enumerate(run.steps(), 1):
        route = f"{step['route']}" + (
            f" (refused by the {step['refused_by']} guard)" if step["refused"] else ""
        )
        title = f"line {index}: route {route}" + (
            f", tool {visible(str(step['tool']))}" if step["tool"] else ""
        )
        out = ["", *wrap(title, view.columns, "  ")]
        certs = step["certs"]
        assert isinstance(certs, list)
        rows = [
            (str(c["kernel"]), str(c["verdict"]), visible(str(c["reason"])), str(c["certHash"]))
            for c in certs
        ]
        if rows:
            inner = View(max(view.columns - 2, 20), view.colour)
            table = grid(_CERT_HEADERS, rows, _CERT_KINDS, inner)
            out.extend("  " + line for line in table)
        if step["principal"]:
            out.extend(
                wrap(f"  principal: {visible(str(step['principal']))}", view.columns, "    ")
            )
        emitted = f"  emitted bytes: {visible(str(step['emitted_bytes']))}"
        out.extend(wrap(emitted, view.columns, "    "))
        yield "".join("\n" + piece for piece in out)
    if run.more:
        yield "\n\n" + "\n".join(wrap(run.limit_reason, view.columns, "  "))
    yield "\n"


_CERT_HEADERS = ("kernel", "verdict", "reason", "certHash")
_CERT_KINDS = (ID, ID, TEXT, ID)


def _summary(run: WhatIfStream) -> str:
    routes = ", ".join(run.routes)
    if run.decided > len(run.routes):
        counts = ", ".join(f"{count} {route}" for route, count in run.counts.items())
        routes += f", ... ({run.decided} lines: {counts})"
    more = f"; more than {run.max_frames} in the input, the rest not decided" if run.more else ""
    return f"sealverify decide: {routes} ({run.build.short}){more}"


def _usage_errors(pieces: Iterator[str]) -> Iterator[str]:
    try:
        yield from pieces
    except (ValueError, ModelLimit) as exc:
        raise click.UsageError(str(exc)) from None


@click.command(
    "decide",
    epilog=examples(
        "sealverify decide --config fixtures/decide/signed-config.json fixtures/decide/calls.bin"
    ),
)
@click.option(
    "--config",
    "config_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="The signed config envelope {payload, signature} (or a bare payload, unsigned).",
)
@click.argument("frame", type=str)
@click.option(
    "--now",
    metavar="MS",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="The clock (ms) the host hands the kernel; it only matters for approvals.",
)
@click.option(
    "--approval",
    "approvals",
    callback=lowercase_hex,
    multiple=True,
    metavar="TARGET[@MS]",
    help="An approval record for a guard target, optionally issued at MS (repeatable).",
)
@click.option(
    "--config-pubkey",
    callback=lowercase_hex,
    default=None,
    metavar="HEX",
    help="Verify the envelope's signature with this Ed25519 key (else its pubkey).",
)
@click.option(
    "--kernel-sha256",
    "build",
    default=DEFAULT_KERNEL_SHA256,
    show_default=False,
    metavar="SHA256",
    callback=lambda _ctx, _param, value: _build(value),
    help="The kernel build to model, by its seal.wasm SHA-256 or a unique prefix of at least "
    "8 hex digits (default: the current pin 28bb3ae7…); the replay page of the documentation "
    "lists the builds.",
)
@click.option(
    "--max-frames",
    metavar="N",
    type=click.IntRange(min=1),
    default=MAX_FRAMES,
    show_default=True,
    help="Lines decided at most; past it the run stops reading and fails (exit 1, "
    '"truncated" in json) (memory stays bounded by the longest line).',
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "jsonl"]),
    default="table",
    show_default=True,
    help="Output format (jsonl: a step line per line decided, then a summary line).",
)
@output_option
def decide_command(
    config_path: str,
    frame: str,
    now: int,
    approvals: tuple[str, ...],
    config_pubkey: str | None,
    build: str,
    max_frames: int,
    fmt: str,
    output: Path | None,
) -> int:
    """Decide FRAME (a file of request lines, or - for stdin) as seal's kernel would.

    Each line of FRAME is one step of one session, kernel state carried from line to line;
    the approvals go to the first step. Prints the route, every gating kernel's cert and the
    exact bytes the kernel emits. This is sealverify's model of the kernel, written from its
    Lean source: a what-if for policy authors, not the pinned seal.wasm.

    Exit 0 when every line is forwarded or passed through, 1 when any is blocked or refused,
    2 when the run could not be done (unreadable input, a config the kernel rejects).
    """
    config_text = read_input(config_path).decode("utf-8", errors="replace")
    with _lines(frame) as lines:
        try:
            run = what_if_stream(
                config_text,
                lines,
                KERNEL_PROFILES[build],
                now=now,
                approvals=tuple(_approval(a) for a in approvals),
                config_pubkey=config_pubkey,
                max_frames=max_frames,
            )
        except (ValueError, ModelLimit) as exc:
            raise click.UsageError(str(exc)) from None
        if not run.started:
            raise click.UsageError(
                f"the kernel does not start under this config: {run.init_output}"
            )
        writers: dict[str, Callable[[WhatIfStream], Iterator[str]]] = {
            "json": _json,
            "jsonl": _jsonl,
            "table": functools.partial(_table, view=table_view(output)),
        }
        pieces = writers[fmt](run)
        write_result(_usage_errors(pieces), output)
    say(_summary(run))
    return run.exit_code


COMMANDS = [decide_command]
