"""``sealverify decide``: what the kernel would decide for a frame under a signed config."""

from __future__ import annotations

import json
from pathlib import Path

import click

from sealverify import (
    DEFAULT_KERNEL_SHA256,
    KERNEL_PROFILES,
    HostApproval,
    ModelLimit,
    WhatIf,
    what_if,
    what_if_report,
)
from sealverify.cli.common import HEX64, lowercase_hex, output_option, read_input, say, write_result
from sealverify.cli.helptext import examples
from sealverify.reports.visible import visible

__all__ = ["COMMANDS", "decide_command"]


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


def _table(what: WhatIf) -> str:
    # Every text from the frame or the config is shown visibly (reports/visible.py): a tool
    # name, a principal or the emitted bytes may hold a terminal control sequence.
    info = what_if_report(what)
    out = [f"model: {info['model']}", f"config signature: {what.signature}"]
    steps = info["steps"]
    assert isinstance(steps, list)
    for index, step in enumerate(steps, 1):
        route = step["route"] + (
            f" (refused by the {step['refused_by']} guard)" if step["refused"] else ""
        )
        out.append(
            f"\nline {index}: route {route}"
            + (f", tool {visible(step['tool'])}" if step["tool"] else "")
        )
        for cert in step["certs"]:
            out.append(
                f"  {cert['kernel']:<16} {cert['verdict']:<5} {visible(cert['reason'])}  "
                f"(certHash {cert['certHash']})"
            )
        if step["principal"]:
            out.append(f"  principal: {visible(step['principal'])}")
        out.append(f"  emitted bytes: {visible(step['emitted_bytes'])}")
    return "\n".join(out) + "\n"


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
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="Output format.",
)
@output_option
def decide_command(
    config_path: str,
    frame: str,
    now: int,
    approvals: tuple[str, ...],
    config_pubkey: str | None,
    build: str,
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
    data = read_input(frame)
    frames = [line for line in data.split(b"\n") if line.strip(b" \t\r")] or [b""]
    try:
        what = what_if(
            config_text,
            frames,
            KERNEL_PROFILES[build],
            now=now,
            approvals=tuple(_approval(a) for a in approvals),
            config_pubkey=config_pubkey,
        )
    except (ValueError, ModelLimit) as exc:
        raise click.UsageError(str(exc)) from None
    if not what.results:
        raise click.UsageError(f"the kernel does not start under this config: {what.init_output}")
    text = (
        json.dumps(what_if_report(what), indent=2, sort_keys=True) + "\n"
        if fmt == "json"
        else _table(what)
    )
    write_result([text], output)
    routes = ", ".join(r.route for r in what.results)
    say(f"sealverify decide: {routes} ({what.build.short})")
    return what.exit_code


COMMANDS = [decide_command]
