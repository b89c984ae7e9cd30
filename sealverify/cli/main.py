"""Entry point: the ``sealverify`` command group and its exit-code contract."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from sealverify import __version__
from sealverify import cli as cli_package

__all__ = ["cli", "main"]


class _ExitCodeGroup(click.Group):
    """A group whose subcommands' integer return values become the process exit code."""

    def invoke(self, ctx: click.Context) -> object:
        result = super().invoke(ctx)
        if isinstance(result, int) and not isinstance(result, bool):
            ctx.exit(result)
        return result


@click.group(cls=_ExitCodeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sealverify")
def cli() -> None:
    """Verify seal MCP mediator evidence offline: frames, receipts, chains, approvals.

    Exit codes are documented in the README; 2 always means the run could not be done
    (bad flag, unreadable input), never a finding.
    """


def _register() -> None:
    """Add every command listed in ``COMMANDS`` of each ``sealverify/cli/*_cmd.py`` module."""
    for info in sorted(pkgutil.iter_modules(cli_package.__path__), key=lambda m: m.name):
        if info.name.endswith("_cmd"):
            module = importlib.import_module(f"sealverify.cli.{info.name}")
            for command in module.COMMANDS:
                cli.add_command(command)


_register()


def main() -> None:
    """Run the CLI; any uncaught error exits 2 (could not run), never 1 (findings)."""
    try:
        code = cli.main(standalone_mode=False)  # Exit(n) from a subcommand returns n here
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except Exception as exc:
        click.echo(f"sealverify: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
