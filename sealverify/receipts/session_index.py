"""The sessions of one run and the operations each runs: what threading across inputs needs.

A verify run reads every receipt that names a session once more before its tasks are cut
(``receipts/sessions.py``); this index remembers, per session, the input it was first seen in,
and per operation the session that ran it, so that a session whose receipts sit in several
inputs is threaded across all of them (``receipts/spanning.py``) and an operation named in two
sessions is refuted wherever each half sits.
"""

from __future__ import annotations

import hashlib

__all__ = ["FILES", "SessionIndex"]

FILES = -1  # the group of every separate receipt file of the run (threaded together already)
_SPANS = -2


class SessionIndex:
    """The sessions of a run: where each was first seen, and which operation runs in which.

    A session seen in a second input spans inputs (:meth:`spanning`). An operation is one
    call, run in one session (seal-host@099be66 ``rust/src/release.rs``: the host draws each
    ``operation_id`` at random and re-signs a receipt only within its call): an operation
    named in two sessions is a contradiction (:meth:`contradiction`), wherever each half sits.
    Held: per session its name, its number and an input number; per operation a 16-byte
    digest and a session number (about 100 bytes), so it can be found in every session.
    """

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}  # session -> its number, the index into names
        self.names: list[str] = []
        self.sources: list[int] = []  # by session number: the input first seen in, or spans
        self.operations: dict[bytes, int] = {}  # operation digest -> first session number
        self.contested: dict[bytes, set[int]] = {}  # operation digest -> every session of it

    @property
    def first(self) -> dict[str, int]:
        """Each session with the input it was first seen in (or spans)."""
        return {name: self.sources[n] for name, n in self.numbers.items()}

    def see(self, session: str, source: int, operation: str | None = None) -> None:
        """A receipt of ``session`` in input ``source`` (:data:`FILES` for any separate file)."""
        number = self.numbers.get(session)
        if number is None:
            number = self.numbers[session] = len(self.names)
            self.names.append(session)
            self.sources.append(source)
        elif self.sources[number] != source:
            self.sources[number] = _SPANS
        if operation is not None:
            digest = _digest(operation)
            first = self.operations.setdefault(digest, number)
            if first != number:
                self.contested.setdefault(digest, {first}).add(number)

    def spanning(self) -> frozenset[str]:
        """The sessions seen in more than one input."""
        return frozenset(s for s, n in self.numbers.items() if self.sources[n] == _SPANS)

    def contradiction(self, session: str, operation: str | None) -> str | None:
        """Why a receipt of ``session`` naming ``operation`` is refuted, or None.

        The reason names the other sessions the operation runs in.
        """
        if operation is None or not self.contested:
            return None
        numbers = self.contested.get(_digest(operation))
        if numbers is None:
            return None
        others = sorted(self.names[n] for n in numbers if self.names[n] != session)
        difference = (
            f"operation: {operation} is in session {session} and in session "
            + ", ".join(others)
            + " (one operation is one call, in one session)"
        )
        return f"the receipts of the run contradict each other: {difference}"


def _digest(operation: str) -> bytes:
    return hashlib.sha256(operation.encode("utf-8", "surrogatepass")).digest()[:16]
