"""Options and output handling shared by every subcommand."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import click

from sealverify.reports.formats import FORMATS, jsonl, render
from sealverify.reports.model import Report
from sealverify.reports.visible import visible
from sealverify.wire.spelling import HEX64  # the one 64-hex spelling (pins, heads)

__all__ = [
    "HEX64",
    "allow_published_keys_option",
    "emit",
    "era_option",
    "format_option",
    "lowercase_hex",
    "output_option",
    "read_input",
    "say",
    "server_option",
    "supported_version_option",
    "transport_option",
    "write_result",
]

F = TypeVar("F", bound=Callable[..., Any])


def format_option(
    default: str = "table", choices: tuple[str, ...] | None = None
) -> Callable[[F], F]:
    names = choices or tuple(FORMATS)
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(names),
        default=default,
        show_default=True,
        callback=_no_html_to_a_terminal,
        help="Report format: "
        + ", ".join(names)
        + "."
        + (" html needs --output FILE when stdout is a terminal." if "html" in names else ""),
    )


def _stdout_is_a_terminal() -> bool:
    return sys.stdout.isatty()


def _no_html_to_a_terminal(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Refuse ``--format html`` without ``--output`` when stdout is a terminal (exit 2).

    A page of HTML scrolled through a terminal helps nobody, and the run would be wasted. Both
    ``--format`` and ``--output`` call this: click runs their callbacks in command-line order,
    so whichever comes second sees the other's value in ``ctx.params``.
    """
    params = {**ctx.params, str(param.name): value}
    if "fmt" not in params or "output" not in params:
        return value
    if params["fmt"] == "html" and params["output"] is None and _stdout_is_a_terminal():
        raise click.UsageError(
            "--format html writes a whole page: add --output FILE (e.g. --output report.html) "
            "and open it in a browser, or redirect stdout to a file"
        )
    return value


def _writable_output(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """Check ``--output`` before any work: its directory exists and this user may write there.

    The report is written only once the run completes, so a bad destination found then would
    throw the whole run away; it is a usage error (exit 2) at once instead.
    """
    _no_html_to_a_terminal(ctx, param, value)
    if value is None:
        return None
    parent = value.parent if str(value.parent) else Path(".")
    if not parent.exists():
        raise click.BadParameter(f"{value}: directory {parent} does not exist")
    if not parent.is_dir():
        raise click.BadParameter(f"{value}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise click.BadParameter(f"{value}: directory {parent} is not writable")
    if value.exists() and not os.access(value, os.W_OK):
        raise click.BadParameter(f"{value}: the file exists and is not writable")
    return value


def output_option(func: F) -> F:
    """``--output FILE``: the report goes there, once the run has completed, not to stdout."""
    return click.option(
        "--output",
        "output",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        metavar="FILE",
        callback=_writable_output,
        help="Write the report to FILE (only once the run has completed) instead of stdout.",
    )(func)


def allow_published_keys_option(func: F) -> F:
    """``--allow-published-keys`` for every command that checks signatures (docs/trust.md)."""
    return click.option(
        "--allow-published-keys",
        "allow_published_keys",
        is_flag=True,
        help="Accept signatures under published keys (RFC 8032 and Wycheproof vectors, seal and "
        "sealverify test seeds; see: sealverify explain authority.published-key), for test "
        "suites that use them knowingly. Each is still reported (authority.published-key, "
        "info) and the summary says the option was on. Without it such a signature is "
        "UNPINNED at best, even when pinned.",
    )(func)


def transport_option(help_text: str) -> Callable[[F], F]:
    """``--transport stdio|http`` (default stdio) for commands that read frames."""
    return click.option(
        "--transport",
        type=click.Choice(["stdio", "http"]),
        default="stdio",
        show_default=True,
        help=help_text,
    )


def era_option(default: str, help_text: str) -> Callable[[F], F]:
    """``--era 2026-07-28|legacy|auto``: the protocol era enforced on frames."""
    from sealverify.mcp.frame import ERA_CHOICES

    return click.option(
        "--era", type=click.Choice(ERA_CHOICES), default=default, show_default=True, help=help_text
    )


def server_option(func: F) -> F:
    """``--server``: seal's ``kernel_config.server``, the guard target's server part."""
    return click.option(
        "--server",
        default="",
        metavar="NAME",
        help="seal's kernel_config.server (guard-target server part).",
    )(func)


def supported_version_option(func: F) -> F:
    """``--supported-version`` (repeatable): protocol versions the mediated server supports."""
    return click.option(
        "--supported-version",
        "supported",
        multiple=True,
        metavar="VERSION",
        default=("2026-07-28",),
        show_default=True,
        help="A protocolVersion the mediated server supports (repeatable).",
    )(func)


def lowercase_hex(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """A click callback: hex pins are accepted in either case and used as lowercase hex.

    seal writes every key and digest in lowercase hex; a pin copied from an uppercase listing
    means the same bytes, so it is normalised rather than refused.
    """
    if isinstance(value, tuple):
        return tuple(v.lower() for v in value)
    return value.lower() if isinstance(value, str) else value


def read_input(source: str) -> bytes:
    """Read a named file, or standard input for ``-``; failures are usage errors (exit 2)."""
    if source == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(source).read_bytes()
    except OSError as exc:
        raise click.UsageError(f"cannot read {source}: {exc.strerror or exc}") from None


def emit(report: Report, fmt: str, output: Path | None, summary: str) -> None:
    """Write the rendered report (stdout or ``--output``) and the summary line to stderr.

    JSON Lines are written a line at a time, never joined into one string first.
    """
    write_result(jsonl.lines(report) if fmt == "jsonl" else [render(report, fmt)], output)
    say(summary)


def say(line: str) -> None:
    """One line for a person on stderr (a summary, a note), evidence in it shown visibly.

    Every control and invisible character in ``line`` is escaped (reports/visible.py): a
    summary may name a file or a value read from evidence. On a terminal the line is wrapped
    at its width (a pipe or a file gets it whole, on one line).
    """
    text = visible(line)
    if sys.stderr.isatty():
        import shutil
        import textwrap

        columns = shutil.get_terminal_size().columns
        text = "\n".join(textwrap.wrap(text, max(columns, 20), subsequent_indent="  ")) or text
    click.echo(text, err=True)


def write_result(pieces: Iterable[str | bytes], output: Path | None) -> None:
    """Write a command's result to stdout, or to ``output`` only once all of it is written.

    With ``output``, "report written to FILE" follows on stderr.

    A piece is text (written as UTF-8) or bytes already encoded (written as they are). The
    file is written beside ``output`` as ``<name>.partial`` and renamed into place, so an
    interrupted run never leaves a truncated report under the requested name; its bytes are
    the text's UTF-8 with the line ends as written (LF), on every platform.
    """
    if output is None:
        for piece in pieces:
            click.echo(piece, nl=False)  # bytes go to the binary stream, after a flush
        return
    tmp = output.with_name(output.name + ".partial")
    with tmp.open("wb") as out:
        for piece in pieces:
            out.write(piece.encode() if isinstance(piece, str) else piece)
    tmp.replace(output)
    # Said on stderr, so a run whose stdout stays empty still tells where its report went.
    click.echo(f"report written to {output}", err=True)
