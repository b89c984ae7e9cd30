"""The one root of every error sealverify raises when a run cannot be done, and its kinds.

Bad evidence never raises: it is a failed check in a report. An exception means the run
itself could not be done, and says which way: what it was given is unusable (``InputError``),
a source could not be read (``SourceError``), the history store cannot be used
(``StoreError``), or sealverify itself is at fault (``InternalError``). The command line maps
every ``SealverifyError`` to exit 2 with one line (``sealverify/_internal/cli/main.py``); anything
else that escapes is a defect, shown as an internal error (its traceback with ``--debug``).

Each class raised where ``ValueError`` or ``OSError`` was raised before keeps that base too
(``class JsonError(InputError, ValueError)``), so an ``except ValueError`` written against an
earlier release still catches it. The classes here carry no such second base: a caller
catches them by kind.
"""

from __future__ import annotations

__all__ = [
    "InputError",
    "InputFileError",
    "InternalError",
    "OptionError",
    "SealverifyError",
    "SourceError",
    "StoreError",
]


class SealverifyError(Exception):
    """The run cannot be done; the message says why in one line (the CLI: exit 2)."""


class InputError(SealverifyError):
    """What the run was given cannot be used: a bad option, trust file, rule file or input."""


class OptionError(InputError, ValueError):
    """An option's value the library refuses (an unknown policy name, a waiver it never gives)."""


class InputFileError(InputError, ValueError):
    """A file the run was given (trust file, rule file, chain state, signing key) is malformed."""


class SourceError(SealverifyError, OSError):
    """A source could not be read: a file, an object in object storage, a URL.

    An :class:`OSError` too, so code that reads local files and remote objects alike catches
    both the same way; ``strerror`` says why and ``filename`` names the source.
    """

    def __str__(self) -> str:
        if self.strerror is None:
            return super().__str__()
        if self.filename is None:
            return str(self.strerror)
        return f"cannot read {self.filename}: {self.strerror}"


class StoreError(SealverifyError):
    """The history store (``--state``) cannot be used: unreadable, unreachable, newer schema."""


class InternalError(SealverifyError):
    """sealverify itself is at fault (a defect, not the input): report it with ``--debug``."""
