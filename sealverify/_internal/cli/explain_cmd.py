"""``sealverify explain``: what a check id or an outcome word means and what to do about it."""

from __future__ import annotations

import textwrap

import click

from sealverify._internal import catalogue
from sealverify._internal.cli.common import say
from sealverify._internal.cli.helptext import examples
from sealverify.formats import listing as in_format

__all__ = ["COMMANDS", "explain"]

_WIDTH = 88


def _para(text: str) -> str:
    return textwrap.fill(
        catalogue.plain(text),
        _WIDTH,
        initial_indent="  ",
        subsequent_indent="  ",
        break_on_hyphens=False,
    )


def _describe(entry: catalogue.Entry) -> str:
    means, todo = catalogue.what_to_do(entry)
    # The one-line summary, unless the meaning says it already (or begins with its words).
    said = means.startswith(entry.short.rstrip(".…"))
    summary = "" if said else _para(entry.short) + "\n\n"
    if not todo.startswith("sealverify"):  # a sentence, but a command name keeps its case
        todo = todo[:1].upper() + todo[1:]
    return (
        f"{entry.id} ({entry.severity})\n\n{summary}"
        f"What it means:\n{_para(means)}\n\n"
        f"What to do:\n{_para(todo)}\n\n"
        f"Documented in docs/{entry.page} of the sealverify source.\n"
    )


def _describe_outcome(outcome: catalogue.Outcome) -> str:
    parts = [f"{outcome.word} (an outcome word)\n"]
    for sense in outcome.senses:
        parts.append(
            f"\nPrinted by: {', '.join(f'sealverify {c}' for c in sense.commands)}\n"
            f"What it means:\n{_para(sense.means)}\n"
            f"What to do:\n{_para(sense.todo)}\n"
            f"Documented in docs/{sense.page} of the sealverify source.\n"
        )
    return "".join(parts)


def _rows(found: list[catalogue.Entry]) -> str:
    width = max(len(entry.id) for entry in found)
    return "".join(f"{e.id:<{width}}  {e.severity:<7}  {catalogue.plain(e.short)}\n" for e in found)


@click.command(
    epilog=examples(
        "sealverify explain UNPINNED",
        "sealverify explain authority.published-key",
        "sealverify explain binding.",
        "sealverify explain --list",
    )
)
@click.argument("check_id", metavar="[ID|WORD|PREFIX]", required=False)
@click.option("--list", "list_all", is_flag=True, help="List every id (or those under PREFIX).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text for people; json: a list of entries (id, severity, page, short, full), or for "
    "an outcome word its senses (commands, page, means, todo).",
)
def explain(check_id: str | None, list_all: bool, fmt: str) -> int:
    """Explain a check id or an outcome word (as reported by every command), or list ids.

    An exact ID prints what it means and what to do, its severity and its documentation page;
    an outcome WORD (VERIFIED, UNPINNED, INTACT, "same invocation", VALID ...) what it means
    and what to do for each command that prints it; a PREFIX (such as binding.) lists the ids
    under it. Exit 0 when something matched, 2 for an unknown id (close spellings are
    suggested).
    """
    if check_id is None and not list_all:
        raise click.UsageError("give an ID, an outcome WORD or a PREFIX, or --list")
    listing = list_all or not check_id or check_id.endswith(".")
    exact = None if listing or check_id is None else catalogue.lookup(check_id)
    word = None
    if exact is None and not listing and check_id is not None:
        word = catalogue.lookup_outcome(check_id)
    if word is not None:
        said = word  # bound for the lambda: mypy narrows no closure
        click.echo(in_format(fmt, [said.to_dict()], lambda: _describe_outcome(said)), nl=False)
        return 0
    found = [exact] if exact is not None else catalogue.matching(check_id or "")
    if not found:
        close = catalogue.close_matches(check_id or "")
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        say(f"sealverify explain: unknown id '{check_id}'{hint}")
        say("'sealverify explain --list' lists every id.")
        return 2
    one = exact
    text = in_format(
        fmt,
        [e.to_dict() for e in found],
        lambda: _describe(one) if one is not None else _rows(found),
    )
    click.echo(text, nl=False)
    return 0


COMMANDS = [explain]
