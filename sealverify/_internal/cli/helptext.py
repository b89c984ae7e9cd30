"""How ``--help`` is laid out: option names kept whole, a fixed width, examples kept as written."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import click
from click import _textwrap

__all__ = ["HELP_SETTINGS", "HelpContext", "examples", "use_help_layout"]

# The widest help text: a wide terminal still reads a paragraph of about a hundred columns, and
# a narrow one (80, tmux panes) gets its own width, as click measures it.
HELP_SETTINGS: dict[str, Any] = {
    "help_option_names": ["-h", "--help"],
    "max_content_width": 100,
}

_ClickWrapper: Any = _textwrap.TextWrapper


class _WholeWords(_ClickWrapper):  # type: ignore[misc]
    """click's wrapper, breaking lines only at spaces: ``--allow-published-keys`` stays whole.

    Python's textwrap breaks after a hyphen by default, which cut option names (and key ids
    such as ``authority.published-key``) across two lines of ``--help``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.break_on_hyphens = False


@contextmanager
def _whole_words() -> Iterator[None]:
    # click.formatting.wrap_text imports its wrapper class from click._textwrap at each call
    # (click 8.1 to 8.4), so the class is swapped there for the span of one help text.
    saved = _textwrap.TextWrapper
    _textwrap.TextWrapper = _WholeWords  # type: ignore[misc]
    try:
        yield
    finally:
        _textwrap.TextWrapper = saved  # type: ignore[misc]


class _Formatter(click.HelpFormatter):
    """click's help formatter whose wrapped text never breaks at a hyphen."""

    def write_text(self, text: str) -> None:
        with _whole_words():
            super().write_text(text)

    def write_dl(
        self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
    ) -> None:
        with _whole_words():
            super().write_dl(list(rows), col_max, col_spacing)


class HelpContext(click.Context):
    """The context every sealverify command runs in: its help uses :class:`_Formatter`."""

    formatter_class = _Formatter


def use_help_layout(command: click.Command) -> click.Command:
    """Give ``command`` (and every subcommand of a group) the help layout; returns it."""
    command.context_class = HelpContext
    command.context_settings = {**HELP_SETTINGS, **command.context_settings}
    for sub in getattr(command, "commands", {}).values():
        use_help_layout(sub)
    return command


def examples(*commands: str, note: str = "") -> str:
    """An epilog: ``commands`` as written, one per line (click's ``\\b`` keeps them unwrapped).

    Each runs from the root of the sealverify source tree on its bundled fixtures
    (tests/cli/test_cli_help.py runs every one).
    """
    lines = ["\b", "Examples (from the source tree's root, on its fixtures):"]
    lines += [f"  {command}" for command in commands]
    return "\n".join(lines) + (f"\n\n{note}" if note else "")
