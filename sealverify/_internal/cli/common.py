"""Options and output handling shared by every subcommand."""

from __future__ import annotations

import functools
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click

from sealverify import InputError
from sealverify._internal.cli.spooled import Ending, SubjectSpool
from sealverify._internal.reports.formats.grid import DEFAULT_COLUMNS
from sealverify._internal.reports.visible import visible
from sealverify._internal.results.model import Report
from sealverify._internal.run.reading import (  # every command reads its inputs by these
    DEFAULT_MAX_INPUT_BYTES,
    max_input_bytes,
    read_capped,
    read_file,
    set_max_input_bytes,
    too_large,
)
from sealverify._internal.run.refused import SourceUnreadable
from sealverify._internal.wire.spelling import HEX64  # the one 64-hex spelling (pins, heads)
from sealverify.formats import FORMATS, STREAMS, View

__all__ = [
    "DEFAULT_MAX_INPUT_BYTES",
    "HEX64",
    "OutputOverInput",
    "add_color_option",
    "add_input_cap",
    "allow_published_keys_option",
    "emit",
    "era_option",
    "format_option",
    "lowercase_hex",
    "max_input_bytes",
    "output_option",
    "read_capped",
    "read_file",
    "read_input",
    "say",
    "server_option",
    "summary_first",
    "supported_version_option",
    "table_view",
    "too_large",
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
        + "".join(f" {n} needs --output FILE when stdout is a terminal." for n in _pages(names)),
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
    if _pages([params["fmt"]]) and params["output"] is None and _stdout_is_a_terminal():
        raise click.UsageError(
            f"--format {params['fmt']} writes a whole page: add --output FILE (e.g. --output "
            "report.html) and open it in a browser, or redirect stdout to a file"
        )
    return value


def _pages(names: Iterable[str]) -> list[str]:
    """Those of ``names`` that are whole pages for a browser (``Format.page``)."""
    return [n for n in names if n in STREAMS and STREAMS[n].page]


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


class OutputOverInput(InputError):
    """``--output`` names one of the run's inputs: a report never replaces evidence."""


# Options that name a file the command writes, not one it reads (inventory --trust-template,
# the signed summary of --attestation).
_WRITTEN = frozenset({"output", "template", "attestation_path"})
_INPUT_METAVARS = ("FILE", "PATH", "DIR")


def _inputs(ctx: click.Context) -> Iterator[tuple[str, str]]:
    """Every value of the command's inputs, each with the option or argument that gave it.

    An input is a positional argument, an option of type ``click.Path``, or an option whose
    metavar names a file or path (``--state PATH|URL``, ``--frame FILE``).
    """
    for param in ctx.command.params:
        if param.name is None or (isinstance(param, click.Option) and param.name in _WRITTEN):
            continue
        metavar = param.metavar or ""
        if not (
            isinstance(param, click.Argument)
            or isinstance(param.type, click.Path)
            or any(word in metavar for word in _INPUT_METAVARS)
        ):
            continue
        value = ctx.params.get(param.name)
        label = param.opts[0] if isinstance(param, click.Option) else "input"
        for item in value if isinstance(value, tuple | list) else (value,):
            if isinstance(item, str | Path) and str(item):
                yield label, str(item)


def _covers(value: str, output: Path) -> str | None:
    """How the input ``value`` names ``output`` (the same file, or a tree holding it), or None.

    Standard input (``-``) and URLs other than ``file://`` name no local file; a glob names
    what it would match (``run/walk.py``), a directory every file below it.
    """
    if value == "-":
        return None
    if value.startswith("file://"):
        value = value[len("file://") :]
    elif "://" in value:
        return None
    path = Path(value)
    if not os.path.lexists(path) and re.search(r"[*?\[]", value):
        from sealverify._internal.run.walk import glob_covers  # only a glob pays for the walker

        return "matched by the pattern" if glob_covers(value, output) else None
    try:
        if os.path.samefile(path, output):
            return "the same file as"
    except (OSError, ValueError):
        pass  # one of them does not exist (yet): compared by the paths they resolve to
    try:
        target, resolved = output.resolve(), path.resolve()
    except (OSError, RuntimeError):  # a link loop (RuntimeError on Python 3.11): not one file
        return None
    if target == resolved:
        return "the same file as"
    if path.is_dir() and target.is_relative_to(resolved):
        return "inside the input directory"
    return None


def refuse_output_over_input(ctx: click.Context, output: Path, flag: str = "--output") -> None:
    """Refuse (exit 2, one line) an ``--output`` (or ``flag``) naming one of the run's inputs.

    The report would replace the evidence it speaks of (``verify R.json --output R.json``),
    or be read as evidence by the next run over the same directory or pattern. Compared
    after links: the same file by device and inode, else by the resolved paths.
    """
    for label, value in _inputs(ctx):
        how = _covers(value, output)
        if how is not None:
            raise OutputOverInput(
                f"{flag} {output}: {how} {label} {value}; a report never replaces "
                "evidence: write it elsewhere"
            )


def output_option(func: F) -> F:
    """``--output FILE``: the report goes there, once the run has completed, not to stdout.

    Before the command runs, an ``--output`` (or an ``--attestation``) naming one of its
    inputs is refused (:func:`refuse_output_over_input`).
    """

    @functools.wraps(func)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        for name, flag in (("output", "--output"), ("attestation_path", "--attestation")):
            written = kwargs.get(name)
            if isinstance(written, Path):
                refuse_output_over_input(click.get_current_context(), written, flag)
        return func(*args, **kwargs)

    return click.option(  # type: ignore[return-value]
        "-o",  # as pip-audit and ruff spell it
        "--output",
        "output",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        metavar="FILE",
        callback=_writable_output,
        help="Write the report to FILE (only once the run has completed) instead of stdout; "
        "never one of the run's inputs.",
    )(guarded)


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
    from sealverify._internal.mcp.frame import ERA_CHOICES

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


_SIZE = re.compile(r"([0-9]+)([KMG]i?B?)?", re.IGNORECASE)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def _set_max_input(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    match = _SIZE.fullmatch((value or "").strip())
    if match is None or int(match.group(1)) == 0:
        raise click.BadParameter(f"{value!r}: expected a positive byte count (1048576, 64M, 2G)")
    unit = (match.group(2) or "")[:1].upper()
    set_max_input_bytes(int(match.group(1)) * _UNITS[unit])


def _input_cap_option() -> click.Option:
    return click.Option(
        ["--max-input-bytes"],
        metavar="N",
        default=str(DEFAULT_MAX_INPUT_BYTES),
        show_default="256 MiB",
        expose_value=False,
        is_eager=True,
        callback=_set_max_input,
        help="Refuse (exit 2) any one input larger than N bytes (K, M, G: binary units), "
        "such as an endless stream; logs verify reads a slice at a time, held to N per slice.",
    )


def add_input_cap(command: click.Command) -> None:
    """Give ``command`` (each command of a group) the ``--max-input-bytes`` option."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            add_input_cap(sub)
    elif not any(p.name == "max_input_bytes" for p in command.params):
        command.params.append(_input_cap_option())


def read_input(source: str) -> bytes:
    """Read a named file, or standard input for ``-``; failures are usage errors (exit 2).

    Either is held to ``--max-input-bytes``: an endless input is refused, never read on.
    """
    if source == "-":
        return read_capped(sys.stdin.buffer, "standard input")
    try:
        return read_file(Path(source), source)
    except OSError as exc:
        raise SourceUnreadable.of(source, exc) from None


_colour_choice = ["auto"]  # --color of a command other than verify (verify has its own)


def _set_colour(ctx: click.Context, param: click.Parameter, value: str) -> None:
    _colour_choice[0] = value


def add_color_option(command: click.Command) -> None:
    """Give a command with a table format (each command of a group) ``--color``.

    ``verify`` declares its own; the others get this one, read by :func:`table_view`.
    """
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            add_color_option(sub)
        return
    names = {p.name for p in command.params}
    fmt = next((p for p in command.params if p.name == "fmt"), None)
    choices = getattr(fmt.type, "choices", ()) if fmt is not None else ()
    if "color" in names or not any(c in STREAMS and STREAMS[c].coloured for c in choices):
        return
    command.params.append(
        click.Option(
            ["--color"],
            type=click.Choice(["auto", "always", "never"]),
            default="auto",
            show_default=True,
            expose_value=False,
            is_eager=True,
            callback=_set_colour,
            help="Colour the table's status words: auto (on a terminal, unless NO_COLOR is "
            "set; no-color.org), always (also in a pipe, for less -R), never.",
        )
    )


def table_view(output: Path | None = None, color: str | None = None) -> View:
    """How wide a table is drawn, and whether in colour (docs/report-format.md "Table").

    On a terminal (stdout, no ``--output``) its width; off one ``$COLUMNS`` when it is a
    positive number, else the width of the terminal stderr is on (``| less``, ``| grep``: the
    table comes back to that screen), else
    :data:`~sealverify._internal.reports.formats.grid.DEFAULT_COLUMNS` (a CI log, a cron job).
    Colour with ``--color always``, or ``auto`` on a terminal unless ``NO_COLOR`` is set
    (no-color.org).
    """
    on_terminal = output is None and _stdout_is_a_terminal()
    columns = DEFAULT_COLUMNS
    text = os.environ.get("COLUMNS", "")
    if on_terminal:
        import shutil

        columns = shutil.get_terminal_size((DEFAULT_COLUMNS, 24)).columns
    elif text.isdigit() and int(text) > 0:
        columns = int(text)
    elif output is None and sys.stderr.isatty():
        import contextlib

        with contextlib.suppress(OSError, ValueError):  # not a real terminal: the default
            columns = os.get_terminal_size(sys.stderr.fileno()).columns or DEFAULT_COLUMNS
    color = _colour_choice[0] if color is None else color
    colour = color == "always" or (
        color == "auto" and on_terminal and not os.environ.get("NO_COLOR")
    )
    return View(max(columns, 20), colour)


def summary_first(output: Path | None) -> bool:
    """Whether the summary line goes to stderr before the report rather than after it.

    So it does when stdout is a pipe and stderr a terminal (``sealverify ... | less``): the
    pager paints its screen over a line already written, instead of the line being drawn over
    the pager's screen at the end. A table then also ends with the summary line, so the pager
    shows it where the person reads.
    """
    if output is not None or not sys.stderr.isatty():
        return False
    try:
        return stat.S_ISFIFO(os.fstat(sys.stdout.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is both
        return False


def emit(report: Report, fmt: str, output: Path | None, summary: str) -> None:
    """Write the report (stdout or ``--output``) and the summary line to stderr.

    Written through the one spooler (cli/spooled.py), as every command's report is. A table
    is fitted to :func:`table_view`'s width; coloured text is written as bytes (click would
    strip its colour in a pipe).
    """
    first = summary_first(output)
    if first:
        say(summary)
    with SubjectSpool(fmt, report.command, report.layout, table_view(output)) as spool:
        for subject in report.subjects:
            spool.add(subject)
        write_result(spool.pieces(report, Ending(said=summary if first else "")), output)
    if not first:
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

        from sealverify._internal.reports.formats.grid import (
            wrap,  # the tables' rule: ids never cut
        )

        columns = shutil.get_terminal_size().columns
        text = "\n".join(wrap(text, max(columns, 20), "  ")) or text
    click.echo(text, err=True)


def _not_a_regular_file(path: Path) -> bool:
    """Whether ``path`` names something that exists and is not a regular file (nor a folder)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # absent (it will be made), or unreadable: the rename says
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def write_result(pieces: Iterable[str | bytes], output: Path | None) -> None:
    """Write a command's result to stdout, or to ``output`` only once all of it is written.

    With ``output``, "report written to FILE" follows on stderr.

    A piece is text (written as UTF-8) or bytes already encoded (written as they are). The
    file is written beside ``output`` as ``<name>.partial`` and renamed into place, so an
    interrupted run never leaves a truncated report under the requested name; its bytes are
    the text's UTF-8 with the line ends as written (LF), on every platform. An ``output`` that
    is not a regular file (``/dev/null``, ``/dev/stdout``, a named pipe) is written as it is:
    renaming a file over it would replace the device or pipe with that file.
    """
    if output is None:
        for piece in pieces:
            click.echo(piece, nl=False)  # bytes go to the binary stream, after a flush
        return
    in_place = _not_a_regular_file(output)
    tmp = output if in_place else output.with_name(output.name + ".partial")
    try:
        with tmp.open("wb") as out:
            for piece in pieces:
                out.write(piece.encode() if isinstance(piece, str) else piece)
    except BaseException:
        if not in_place:  # a run that fails while its pieces are made leaves no partial file
            tmp.unlink(missing_ok=True)
        raise
    if not in_place:
        tmp.replace(output)
    # Said on stderr, so a run whose stdout stays empty still tells where its report went.
    click.echo(f"report written to {output}", err=True)
