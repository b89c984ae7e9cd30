"""Inputs the command line refuses: one line and exit 2, never click's usage banner.

An unreadable input or a refused one (a dangling link, a loop, a file past
``--max-input-bytes``, a pattern that matches nothing) is not a misused flag: the person needs
the one sentence that names it, not the command's usage. Each is a
:class:`~sealverify.SealverifyError` of its kind (:class:`~sealverify.SourceError`, an
:class:`~sealverify.InputError`), so library code catches it by kind, and a
``click.UsageError`` too, so every command's handlers and click's own exit code (2) hold; it
shows as click's one ``Error:`` line. A worker hands one back as a value; the parent raises it.
"""

from __future__ import annotations

from typing import IO, Any

import click

from sealverify.errors import InputError, SourceError

__all__ = ["InputRefused", "SourceUnreadable"]


class _OneLine(click.UsageError):
    """A usage error shown as one line: ``Error: <message>``, without the usage banner."""

    def show(self, file: IO[Any] | None = None) -> None:
        """One line on stderr (click's ``ClickException.show``), no usage, no hint."""
        click.ClickException.show(self, file)


class SourceUnreadable(SourceError, _OneLine):
    """An input that cannot be read: ``cannot read <path>: <why>``."""

    def __init__(self, message: str) -> None:
        _OneLine.__init__(self, message)

    def __str__(self) -> str:
        return self.message

    @classmethod
    def of(cls, path: object, exc: OSError) -> SourceUnreadable:
        """The refusal of ``path``, which raised ``exc`` when read."""
        return cls(f"cannot read {path}: {exc.strerror or exc}")


class InputRefused(InputError, _OneLine):
    """An input refused as given: a dangling or looping link, too large, nothing matched."""

    def __init__(self, message: str) -> None:
        _OneLine.__init__(self, message)

    def __str__(self) -> str:
        return self.message
