"""Entry point: the ``sealverify`` command group and its exit-code contract."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from sealverify import __version__
from sealverify import cli as cli_package
from sealverify.cli.common import add_input_cap

__all__ = ["EXIT_INTERRUPTED", "cli", "command_modules", "main"]

EXIT_INTERRUPTED = 130  # 128 + SIGINT, the shell's convention for a run stopped by Ctrl-C


class _LazyGroup(click.Group):
    """Commands found as ``sealverify/cli/<name>_cmd.py``, imported only when used.

    A run of ``verify`` so never pays for importing ``diff``, ``tools`` or ``skill`` (start-up
    is part of every benchmarked run). Each module lists its command in ``COMMANDS``; the
    command's name is the module's name without ``_cmd`` (tests/test_cli_main.py holds that).
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *command_modules()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in command_modules():
            module = importlib.import_module(f"sealverify.cli.{cmd_name}_cmd")
            for command in module.COMMANDS:
                add_input_cap(command)  # --max-input-bytes on every command
                self.add_command(command)
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context) -> object:
        # Integer return values of subcommands become the process exit code.
        result = super().invoke(ctx)
        if isinstance(result, int) and not isinstance(result, bool):
            ctx.exit(result)
        return result


def command_modules() -> tuple[str, ...]:
    """Command names: one per ``sealverify/cli/*_cmd.py`` module, found without importing it."""
    return tuple(
        sorted(
            info.name.removesuffix("_cmd")
            for info in pkgutil.iter_modules(cli_package.__path__)
            if info.name.endswith("_cmd")
        )
    )


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sealverify")
def cli() -> None:
    """Verify seal MCP mediator evidence offline: frames, receipts, chains, approvals.

    Exit codes are documented in the README; 2 always means the run could not be done
    (bad flag, unreadable input), never a finding.
    """


def main() -> None:
    """Run the CLI; any uncaught error exits 2 (could not run), never 1 (findings)."""
    try:
        code = cli.main(standalone_mode=False)  # Exit(n) from a subcommand returns n here
    except (click.exceptions.Abort, KeyboardInterrupt):
        # Ctrl-C (click turns it into Abort): one line, no traceback, from any process.
        click.echo("sealverify: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except Exception as exc:
        click.echo(f"sealverify: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
