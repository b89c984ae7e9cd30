"""Inputs a run refuses: an unreadable source, or one refused as given, each one sentence.

An unreadable input or a refused one (a dangling link, a loop, a file past the byte cap, a
pattern that matches nothing) is not bad evidence: the run cannot be done, and the person
needs the one sentence that names it. Each is a :class:`~sealverify.SealverifyError` of its
kind (:class:`~sealverify.SourceError`, an :class:`~sealverify.InputError`), so library code
catches it by kind; the command line shows it as one line, exit 2 (``cli/main.py``). A
worker hands one back as a value; the parent raises it.
"""

from __future__ import annotations

from sealverify.errors import InputError, SourceError

__all__ = ["InputRefused", "SourceUnreadable"]


class SourceUnreadable(SourceError):
    """An input that cannot be read: ``cannot read <path>: <why>``, or a sentence naming it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[type[SourceUnreadable], tuple[str]]:
        return type(self), (self.message,)  # handed back from a worker whole

    @staticmethod
    def of(path: object, exc: OSError) -> SourceError:
        """The refusal of ``path``, which raised ``exc`` when read: ``cannot read <path>: <why>``.

        The sentence is :class:`~sealverify.SourceError`'s own (its ``filename`` and
        ``strerror``), so a caller reads which source and why from the error, not its text.
        """
        return SourceError(exc.errno, exc.strerror or str(exc), str(path))


class InputRefused(InputError):
    """An input refused as given: a dangling or looping link, too large, nothing matched."""
