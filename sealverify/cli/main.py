"""Entry point: the ``sealverify`` command group and its exit-code contract."""

from __future__ import annotations

import sys

import click

from sealverify import __version__
from sealverify.cli.frame_cmd import frame

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sealverify")
def cli() -> None:
    """Verify seal MCP mediator evidence offline: frames, receipts, chains, approvals.

    Exit codes are documented in the README; 2 always means the run could not be done
    (bad flag, unreadable input), never a finding.
    """


cli.add_command(frame)


def main() -> None:
    """Run the CLI; any uncaught error exits 2 (could not run), never 1 (findings)."""
    try:
        code = cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except Exception as exc:  # noqa: BLE001 - the contract: a crash is exit 2, not a finding
        click.echo(f"sealverify: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)
