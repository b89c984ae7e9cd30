"""Flat memory for repeated findings: the first few of each kind located, the rest counted.

A hostile input can repeat one mistake a million times (a log of blank lines, an array of
non-listings); one finding kept per element would make the report, and the memory holding
it, grow with the input. :class:`Findings` keeps the first :data:`KEEP` findings of each
(id, status) as they are and counts the rest; :meth:`Findings.checks` closes each kind that
overflowed with one finding of the same id and status that says how many were not listed,
so the outcome, the exit code and every count stay what they would have been.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from sealverify._internal.results.model import Check, Status

__all__ = ["KEEP", "Findings", "overflow"]

KEEP = 100  # findings of one (id, status) kept with their locations


def overflow(check_id: str, status: Status, total: int, keep: int = KEEP) -> Check:
    """The finding that stands for ``total - keep`` more findings of one kind, not listed."""
    more = total - keep
    return Check(
        check_id,
        status,
        f"{more} more {check_id} finding(s) like the above, not listed: {total} in all, "
        f"the first {keep} located",
        "",
        {"not_listed": more, "total": total},
    )


class Findings(list[Check]):
    """A list of findings that keeps the first ``keep`` of each (id, status), counting the rest.

    It is a ``list`` so code that appends findings keeps doing so; :meth:`checks` is what a
    report holds (the kept findings, then one :func:`overflow` per kind that overflowed).
    """

    def __init__(self, checks: Iterable[Check] = (), keep: int = KEEP) -> None:
        super().__init__()
        self.keep = keep
        self.counts: Counter[tuple[str, Status]] = Counter()
        self.extend(checks)

    def append(self, check: Check) -> None:
        key = (check.id, check.status)
        seen = self.counts[key]
        self.counts[key] = seen + 1
        if seen < self.keep:
            super().append(check)

    def extend(self, checks: Iterable[Check]) -> None:
        for check in checks:
            self.append(check)

    def __iadd__(self, checks: Iterable[Check]) -> Findings:  # type: ignore[override,misc]
        self.extend(checks)
        return self

    def checks(self) -> list[Check]:
        """The kept findings, then one finding per kind that had more than ``keep``."""
        return [*self, *self.overflows()]

    def overflows(self) -> list[Check]:
        return [
            overflow(check_id, status, total, self.keep)
            for (check_id, status), total in self.counts.items()
            if total > self.keep
        ]
