"""Entry point: the ``sealverify`` command group and its exit-code contract."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from typing import IO, Any

import click

from sealverify import InternalError, SealverifyError, __version__
from sealverify._internal import cli as cli_package
from sealverify._internal.cli.common import add_color_option, add_input_cap
from sealverify._internal.cli.helptext import HELP_SETTINGS, HelpContext, use_help_layout
from sealverify._internal.reports.visible import visible

__all__ = [
    "ARGV_KEY",
    "EXIT_INTERRUPTED",
    "CouldNotRun",
    "cli",
    "command_modules",
    "debugging",
    "main",
]

EXIT_INTERRUPTED = 130  # 128 + SIGINT, the shell's convention for a run stopped by Ctrl-C
ARGV_KEY = "sealverify.argv"  # ctx.meta: the command's words after the program name
DEBUG_ENV = "SEALVERIFY_DEBUG"
_debug_flag = False  # --debug, set by the group before any command runs


class CouldNotRun(click.ClickException):
    """A :class:`~sealverify.SealverifyError` met by a command: one line, exit 2, no usage.

    The run could not be done (an unreadable input, a refused one, a store that cannot be
    used): the line says why, as ``sealverify: <why>``, evidence in it shown visibly. Made
    here once, for every command, so click's runner and :func:`main` show it alike.
    """

    exit_code = 2

    def __init__(self, error: SealverifyError) -> None:
        super().__init__(str(error))
        self.error = error

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(visible(f"sealverify: {self.error}"), err=True, file=file)


class OneLineUsage(click.UsageError):
    """A usage error (a bad flag, a missing argument, a mistyped command) as one line, exit 2.

    ``sealverify verify: Missing argument 'PATH...' (sealverify verify --help)``: the command,
    click's message and where the help is, as pip and git say it; click's own form is four
    lines (usage, a hint, a blank line, the error).
    """

    def show(self, file: IO[Any] | None = None) -> None:
        path = self.ctx.command_path if self.ctx is not None else "sealverify"
        click.echo(f"{path}: {self.message} ({path} --help)", err=True, file=file)


def _one_line(exc: click.UsageError) -> OneLineUsage:
    """``exc`` as a :class:`OneLineUsage`, its message shown visibly (reports/visible.py)."""
    return OneLineUsage(visible(exc.format_message()), exc.ctx)


class _LazyGroup(click.Group):
    """Commands found as ``sealverify/_internal/cli/<name>_cmd.py``, imported only when used.

    A run of ``verify`` so never pays for importing ``diff``, ``tools`` or ``skill`` (start-up
    is part of every benchmarked run). Each module lists its command in ``COMMANDS``; the
    command's name is the module's name without ``_cmd`` (tests/cli/test_cli_main.py holds that).
    """

    context_class = HelpContext

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *command_modules()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in command_modules():
            module = importlib.import_module(f"sealverify._internal.cli.{cmd_name}_cmd")
            for command in module.COMMANDS:
                add_input_cap(command)  # --max-input-bytes on every command
                add_color_option(command)  # --color on every command with a table
                self.add_command(use_help_layout(command))
        return self.commands.get(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        # A mistyped command names the close ones, as git and pip do: `verfy` -> `verify`.
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError:
            import difflib  # only for a command that does not exist

            names = self.list_commands(ctx)
            typed = args[0] if args else ""
            close = difflib.get_close_matches(typed, names, n=3, cutoff=0.6)
            if not close or typed in names:
                raise
            raise click.UsageError(
                f"No such command {typed!r}. Did you mean "
                + " or ".join(f"{name!r}" for name in close)
                + "?",
                ctx,
            ) from None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # The words after the program name, as given: a report may name the command line
        # that made it (verify's html footer, cli/verify_html.py report_command).
        ctx.meta[ARGV_KEY] = tuple(args)
        return super().parse_args(ctx, args)

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        try:  # the group's own options (`sealverify --bogus`)
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:
            raise _one_line(exc) from None

    def invoke(self, ctx: click.Context) -> object:
        # Integer return values of subcommands become the process exit code.
        try:
            result = super().invoke(ctx)
        except SealverifyError as exc:
            if isinstance(exc, InternalError):
                raise  # main() shows it, its traceback with --debug
            raise CouldNotRun(exc) from exc
        except OneLineUsage:
            raise
        except click.UsageError as exc:
            raise _one_line(exc) from None
        except click.ClickException as exc:
            # An error line may name a file from a directory walk or a value from evidence
            # (a frame's id): shown with its controls escaped (reports/visible.py), here, once.
            # (click >= 8.5 types ``message`` Final; the instance's own attribute is set.)
            vars(exc)["message"] = visible(exc.message)
            raise
        if isinstance(result, int) and not isinstance(result, bool):
            ctx.exit(result)
        return result


def command_modules() -> tuple[str, ...]:
    """Command names: one per ``_internal/cli/*_cmd.py`` module, found without importing it."""
    return tuple(
        sorted(
            info.name.removesuffix("_cmd")
            for info in pkgutil.iter_modules(cli_package.__path__)
            if info.name.endswith("_cmd")
        )
    )


@click.group(cls=_LazyGroup, context_settings=HELP_SETTINGS)
@click.version_option(__version__, prog_name="sealverify")
@click.option(
    "--debug",
    is_flag=True,
    help=f"Print the traceback of an internal error to stderr (also {DEBUG_ENV}=1). "
    "The exit code stays 2.",
)
def cli(debug: bool) -> None:
    """Verify seal MCP mediator evidence offline: frames, receipts, chains, approvals.

    Exit codes are documented in the README; 2 always means the run could not be done
    (bad flag, unreadable input), never a finding.
    """
    global _debug_flag
    _debug_flag = debug


def debugging() -> bool:
    """Whether an internal error's traceback is wanted: ``--debug`` or ``SEALVERIFY_DEBUG=1``."""
    return _debug_flag or os.environ.get(DEBUG_ENV, "") not in ("", "0")


def main() -> None:
    """Run the CLI; any uncaught error exits 2 (could not run), never 1 (findings).

    This is the one place an exception becomes an exit code: click's usage errors and every
    :class:`~sealverify.SealverifyError` are one line; anything else is a defect, an internal
    error, whose traceback ``--debug`` prints.
    """
    try:
        # Exit(n) from a subcommand returns n here; the program is "sealverify" in every line,
        # run as the script or as `python -m sealverify`
        code = cli.main(standalone_mode=False, prog_name="sealverify")
    except (click.exceptions.Abort, KeyboardInterrupt):
        # Ctrl-C (click turns it into Abort): one line, no traceback, from any process.
        click.echo("sealverify: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except SealverifyError as exc:
        if isinstance(exc, InternalError):
            _internal(exc)
        click.echo(visible(f"sealverify: {exc}"), err=True)
        sys.exit(2)
    except Exception as exc:  # a defect anywhere: one line (and the traceback if asked), exit 2
        _internal(exc)
    sys.exit(code if isinstance(code, int) else 0)


def _internal(exc: Exception) -> None:
    if debugging():
        import traceback  # only an internal error with --debug pays for it

        traceback.print_exception(exc, file=sys.stderr)
    click.echo(visible(f"sealverify: internal error: {type(exc).__name__}: {exc}"), err=True)
    sys.exit(2)


if __name__ == "__main__":
    main()
