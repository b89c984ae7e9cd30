"""``sealverify explain``: what a check or finding id means, from the catalogue shipped inside."""

from __future__ import annotations

import json
import textwrap

import click

from sealverify import catalogue
from sealverify.cli.common import say

__all__ = ["COMMANDS", "explain"]

_WIDTH = 88


def _describe(entry: catalogue.Entry) -> str:
    body = "" if entry.full == entry.short else textwrap.fill(entry.full, _WIDTH) + "\n\n"
    return (
        f"{entry.id} ({entry.severity})\n\n{entry.short}\n\n{body}"
        f"Documented in docs/{entry.page} of the sealverify source.\n"
    )


def _rows(found: list[catalogue.Entry]) -> str:
    width = max(len(entry.id) for entry in found)
    return "".join(f"{e.id:<{width}}  {e.severity:<7}  {e.short}\n" for e in found)


@click.command()
@click.argument("check_id", metavar="[ID|PREFIX]", required=False)
@click.option("--list", "list_all", is_flag=True, help="List every id (or those under PREFIX).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text for people; json: a list of entries (id, severity, page, short, full).",
)
def explain(check_id: str | None, list_all: bool, fmt: str) -> int:
    """Explain a check or finding id (as reported by every command), or list ids.

    An exact ID prints its severity, a one-line and a full description and its documentation
    page; a PREFIX (such as binding.) lists the ids under it. Exit 0 when something matched,
    2 for an unknown id (close spellings are suggested).
    """
    if check_id is None and not list_all:
        raise click.UsageError("give an ID or PREFIX, or --list")
    listing = list_all or not check_id or check_id.endswith(".")
    exact = None if listing or check_id is None else catalogue.lookup(check_id)
    found = [exact] if exact is not None else catalogue.matching(check_id or "")
    if not found:
        close = catalogue.close_matches(check_id or "")
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        say(f"sealverify explain: unknown id '{check_id}'{hint}")
        say("'sealverify explain --list' lists every id.")
        return 2
    if fmt == "json":
        text = json.dumps([e.to_dict() for e in found], indent=2, ensure_ascii=False) + "\n"
    elif exact is not None:
        text = _describe(exact)
    else:
        text = _rows(found)
    click.echo(text, nl=False)
    return 0


COMMANDS = [explain]
