"""What a check does to its subject's outcome, said where the check is made."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Effect"]


class Effect(StrEnum):
    """What a check does to its subject's outcome, declared where the check is made.

    A failed check FAILS whatever it declares (fail closed). A not-evaluated check does what it
    declares: CAPS_UNPINNED (an authority that is not established: VERIFIED becomes UNPINNED),
    CAPS_REDUCED (a reduced scope: VERIFIED becomes REDUCED), or INFORMS ("cannot be told":
    reported, not hidden, and the outcome unchanged). Passes, infos and waived checks inform.
    """

    FAILS = "fails"
    CAPS_UNPINNED = "caps-unpinned"
    CAPS_REDUCED = "caps-reduced"
    INFORMS = "informs"
