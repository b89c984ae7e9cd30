"""The one report shape every command produces: subjects, each with an outcome and checks."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from operator import attrgetter
from typing import Any, Literal

from sealverify._internal import fastpath
from sealverify._internal.results.effects import Effect

__all__ = [
    "Check",
    "Compared",
    "Effect",
    "Report",
    "Status",
    "Subject",
    "fail",
    "fail_compared",
    "info",
    "not_evaluated",
    "passed",
    "reduced",
    "sorted_among",
    "unpinned",
    "waived",
]


class Status(StrEnum):
    """A check's status: a ``str`` enum whose members are the words reports write.

    A member is its word (``Status.PASS == "pass"``; JSON, SARIF and ``str()`` give the word),
    so every report keeps its bytes; its ``repr`` is the word's too.
    """

    def __repr__(self) -> str:
        return repr(self.value)

    PASS = "pass"
    FAIL = "fail"
    NOT_EVALUATED = "not-evaluated"
    INFO = "info"
    # A failed check the user explicitly waived (verify --waive); shown, never a pass.
    WAIVED = "waived"


_STATUS_ORDER = {
    Status.FAIL: 0,
    Status.WAIVED: 1,
    Status.NOT_EVALUATED: 2,
    Status.PASS: 3,
    Status.INFO: 4,
}
# A status given as its word (a check read back from JSON) becomes its member; an unknown word
# is kept as given (sorting a subject that holds one fails, as it always did: KeyError).
_STATUS_OF: dict[str, Status] = {str(status): status for status in Status}
_WORD_OF: dict[str, str] = {status: str(status) for status in Status}
_STATUS = attrgetter("status")


@dataclass(frozen=True, slots=True)
class Compared:
    """The two texts a check held side by side: what it derived and what the evidence holds.

    Only the formats for people show it (html, with the differing spans marked); ``to_dict``
    leaves it out, so the JSON, SARIF and JUnit reports stay byte-stable.
    """

    expected: str
    found: str
    expected_from: str = "derived by sealverify"
    found_from: str = "in the evidence"


@dataclass(frozen=True, slots=True)
class Check:
    """One check or finding: a stable id, a status, an actionable reason and a location.

    ``effect`` is what the check does to its subject's outcome, said where it is made
    (:class:`sealverify._internal.results.effects.Effect`): a failure FAILS, a not-evaluated check
    made by :func:`unpinned` or :func:`reduced` caps, every other check INFORMS. Reports never show
    it, and two checks that differ only in it are equal.
    """

    id: str
    status: Status
    reason: str
    location: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    compared: Compared | None = None
    effect: Effect = field(default=Effect.INFORMS, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Only Check(...) comes here (the helpers below skip __init__ and set the effect).
        status = _STATUS_OF.get(self.status)
        if status is not None and status is not self.status:
            object.__setattr__(self, "status", status)
        if status is _FAIL and self.effect is _INFORMS:
            object.__setattr__(self, "effect", _FAILS)

    def to_dict(self) -> dict[str, Any]:
        # The plain word: orjson writes an enum member by reading its ``value`` (slow, per check).
        status = _WORD_OF.get(self.status, self.status)
        out: dict[str, Any] = {"id": self.id, "status": status, "reason": self.reason}
        if self.location:
            out["location"] = self.location
        if self.data:
            out["data"] = self.data
        return out


# The slot descriptors of Check's fields. Its generated __init__ (frozen) stores each field
# with ``object.__setattr__(self, name, value)``, which finds and calls these same descriptors;
# calling them directly on a bare instance builds an identical object (same slots, so the same
# equality, repr, hash and pickling) at about half the cost. A receipt builds ~40 checks.
_NEW = object.__new__
_SET_ID, _SET_STATUS, _SET_REASON, _SET_LOCATION, _SET_DATA, _SET_COMPARED, _SET_EFFECT = (
    Check.__dict__[name].__set__
    for name in ("id", "status", "reason", "location", "data", "compared", "effect")
)
_PASS, _FAIL, _NOT_EVALUATED, _INFO, _WAIVED = (
    Status.PASS,
    Status.FAIL,
    Status.NOT_EVALUATED,
    Status.INFO,
    Status.WAIVED,
)
_FAILS, _INFORMS, _CAPS_UNPINNED, _CAPS_REDUCED = (
    Effect.FAILS,
    Effect.INFORMS,
    Effect.CAPS_UNPINNED,
    Effect.CAPS_REDUCED,
)


def _check(
    check_id: str,
    status: Status,
    reason: str,
    location: str,
    data: dict[str, Any],
    compared: Compared | None = None,
    effect: Effect = _INFORMS,
) -> Check:
    """``Check(check_id, status, reason, location, data, compared, effect)``, without __init__."""
    check: Check = _NEW(Check)
    _SET_ID(check, check_id)
    _SET_STATUS(check, status)
    _SET_REASON(check, reason)
    _SET_LOCATION(check, location)
    _SET_DATA(check, data)
    _SET_COMPARED(check, compared)
    _SET_EFFECT(check, effect)
    return check


# Passing checks without data, kept by (id, reason, location): most of a receipt's checks
# pass with a fixed text, and a check is immutable (frozen, and nothing writes to its data),
# so one object serves every receipt that passes that check that way. Only exact ``str``
# texts are kept and looked up (a ``str`` subclass, such as markup, gets its own check),
# none with a reason over ``_PASS_LONGEST``; at most ``_PASSES_KEPT`` (least recently used
# first out), none in a process started in reference mode (:func:`fastpath.cache`).
_PASSES_KEPT = 2048
_PASS_LONGEST = 1024


@fastpath.cache(maxsize=_PASSES_KEPT)
def _pass(check_id: str, reason: str, location: str) -> Check:
    """The passing check without data for exact ``str`` texts, one object per key."""
    return _check(check_id, _PASS, reason, location, {})


def passed(check_id: str, reason: str, location: str = "", **data: Any) -> Check:
    if (
        data
        or type(check_id) is not str
        or type(reason) is not str
        or type(location) is not str
        or len(reason) > _PASS_LONGEST
    ):
        return _check(check_id, _PASS, reason, location, data)
    return _pass(check_id, reason, location)


def fail(check_id: str, reason: str, location: str = "", **data: Any) -> Check:
    return _check(check_id, _FAIL, reason, location, data, None, _FAILS)


def fail_compared(
    check_id: str, reason: str, location: str, compared: Compared, **data: Any
) -> Check:
    """A failed check that also holds the two texts it compared (the html report shows them)."""
    return _check(check_id, _FAIL, reason, location, data, compared, _FAILS)


def not_evaluated(check_id: str, reason: str, location: str = "", **data: Any) -> Check:
    """A check that could not be told, which leaves the outcome as it is (it INFORMS)."""
    return _check(check_id, _NOT_EVALUATED, reason, location, data)


def unpinned(check_id: str, reason: str, location: str = "", **data: Any) -> Check:
    """A not-evaluated check whose authority is not established: it caps VERIFIED at UNPINNED."""
    return _check(check_id, _NOT_EVALUATED, reason, location, data, None, _CAPS_UNPINNED)


def reduced(check_id: str, reason: str, location: str = "", **data: Any) -> Check:
    """A not-evaluated check that reduces what is proven: it caps VERIFIED at REDUCED."""
    return _check(check_id, _NOT_EVALUATED, reason, location, data, None, _CAPS_REDUCED)


def info(check_id: str, reason: str, location: str = "", **data: Any) -> Check:
    return _check(check_id, _INFO, reason, location, data)


def waived(check: Check, why: str) -> Check:
    """``check`` (a failure) as waived: same id, location and data, the waiver in its reason."""
    return _check(
        check.id,
        _WAIVED,
        f"WAIVED ({why}): {check.reason}",
        check.location,
        check.data,
        check.compared,
    )


_BY_ID_LOCATION = attrgetter("id", "location")
_RANKS = len(_STATUS_ORDER)


def _report_order(checks: Iterable[Check]) -> list[Check]:
    """``checks`` sorted stably by (status rank, id, location): failures first.

    The checks of one status keep their input order in their group, and each group is sorted
    stably by (id, location), so checks with equal keys keep their input order; a status the
    order lacks raises KeyError.
    """
    groups: list[list[Check]] = [[] for _ in range(_RANKS)]
    for check in checks:
        groups[_STATUS_ORDER[check.status]].append(check)
    out: list[Check] = []
    for group in groups:
        if group:
            group.sort(key=_BY_ID_LOCATION)
            out += group
    return out


def sorted_among(checks: tuple[Check, ...], statuses: Collection[str]) -> list[Check]:
    """``[c for c in subject.sorted_checks() if c.status in statuses]``, sorting only those.

    A stable sort keeps the input order of equal keys in every subsequence, so filtering first
    gives the same sequence; a status the order lacks fails as the full sort does (KeyError).
    """
    # Without "pass" among ``statuses``, the passing checks (most of a receipt's) are passed
    # over in one scan, by identity (a status that is one of the words is its member); "pass"
    # is in the order, so the statuses left decide the KeyError as all of them would.
    few = checks if _PASS in statuses else [c for c in checks if c.status is not _PASS]
    if not _STATUS_ORDER.keys() >= set(map(_STATUS, few)):
        return [c for c in _report_order(checks) if c.status in statuses]
    return _report_order([c for c in few if c.status in statuses])


@dataclass(frozen=True, slots=True)
class Subject:
    """One thing a command judged (a frame, a receipt, a log line) and what it found."""

    name: str
    outcome: str
    checks: tuple[Check, ...] = ()
    facts: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    # What only the formats for people show (html): a receipt's signed time, a chain's
    # records, a diff's frame bytes. ``to_dict`` leaves it out (the JSON stays byte-stable).
    display: dict[str, Any] = field(default_factory=dict)

    def sorted_checks(self) -> list[Check]:
        """Checks in a deterministic order: failures first, then by id and location."""
        return _report_order(self.checks)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "outcome": self.outcome,
            "checks": [c.to_dict() for c in self.sorted_checks()],
            "facts": self.facts,
        }
        if self.label:
            out["label"] = self.label
        return out


@dataclass(frozen=True, slots=True)
class Report:
    """A whole run: the command, its subjects in input order, a summary and its exit code."""

    command: str
    subjects: tuple[Subject, ...]
    summary: dict[str, Any]
    exit_code: int
    findings: tuple[Check, ...] = ()
    layout: Literal["rows", "detail", "receipts"] = "rows"
    schema: str = "sealverify.report/v1"

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "command": self.command,
            "exit_code": self.exit_code,
            "summary": self.summary,
            "findings": [c.to_dict() for c in self.findings],
            "subjects": [s.to_dict() for s in self.subjects],
        }
