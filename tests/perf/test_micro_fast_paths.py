"""Fast paths of the per-check bookkeeping, each compared with the computation it replaces.

- the check factories build checks without the dataclass __init__: same objects as ``Check(...)``;
- ``decide`` reads every check once: same outcome as the rule-by-rule reference;
- the receipts table sorts only the checks it shows: same cells as from ``sorted_checks``;
- the container depth recurses, with the level walk as the fallback: same depth.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.receipts.verify import VOCABULARY
from sealverify._internal.reports.formats import table
from sealverify._internal.results.effects import Effect
from sealverify._internal.results.model import (
    Check,
    Subject,
    fail,
    info,
    not_evaluated,
    passed,
    sorted_among,
)
from sealverify._internal.results.outcomes import NOT_MEDIATED, Outcome, decide
from sealverify._internal.wire import strictjson
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue

_FACTORIES: list[tuple[Callable[..., Check], str]] = [
    (passed, "pass"),
    (fail, "fail"),
    (not_evaluated, "not-evaluated"),
    (info, "info"),
]
_TEXT = st.text(max_size=12)
_DATA = st.dictionaries(
    st.sampled_from(["digest", "count", "keys", "x", "nested"]),
    st.none() | st.integers() | _TEXT | st.lists(_TEXT, max_size=3),
    max_size=4,
)


@settings(max_examples=400)
@given(st.sampled_from(_FACTORIES), _TEXT, _TEXT, st.none() | _TEXT, _DATA)
def test_check_factories_build_what_the_constructor_builds(
    factory: tuple[Callable[..., Check], str],
    check_id: str,
    reason: str,
    location: str | None,
    data: dict[str, Any],
) -> None:
    make, status = factory
    given_data = dict(data)
    if location is None:
        fast = make(check_id, reason, **data)
        slow = Check(check_id, status, reason, data=dict(data))  # type: ignore[arg-type]
    else:
        fast = make(check_id, reason, location, **data)
        slow = Check(check_id, status, reason, location, dict(data))  # type: ignore[arg-type]
    assert type(fast) is Check
    assert fast == slow
    assert not fast != slow  # noqa: SIM202 (the generated __ne__, not only __eq__)
    assert repr(fast) == repr(slow)
    assert fast.to_dict() == slow.to_dict()
    assert dataclasses.astuple(fast) == dataclasses.astuple(slow)
    assert dataclasses.replace(fast) == slow
    assert pickle.loads(pickle.dumps(fast)) == slow
    assert copy.deepcopy(fast) == slow and copy.copy(fast) == slow
    assert fast.data == given_data and fast.data is not data  # a fresh dict, as **data gives
    with pytest.raises(TypeError):  # a dict field: neither is hashable
        hash(fast)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.reason = "changed"  # type: ignore[misc]
    assert _setattr_error(fast, "extra") == _setattr_error(slow, "extra")
    assert _setattr_error(fast, "id") == _setattr_error(slow, "id")


def _setattr_error(check: Check, name: str) -> type[BaseException] | None:
    """What assigning ``name`` raises (a new name's error depends on the Python version)."""
    try:
        setattr(check, name, 1)
    except Exception as exc:  # the type is what is compared
        return type(exc)
    return None


def test_check_factories_give_each_check_with_data_its_own_data() -> None:
    first, second = passed("a", "r", key="k"), passed("a", "r", key="k")
    assert first == second and first.data is not second.data
    # a pass without data and with exact str texts is one kept object (nothing writes to it)
    assert passed("a", "r") is passed("a", "r") == Check("a", "pass", "r")
    assert passed("a", "r", "loc") is not passed("a", "r")


class _Markup(str):
    pass


def test_only_exact_str_passes_are_kept() -> None:
    kept = passed("a", "text")
    fresh = passed("a", _Markup("text"))
    assert fresh is not kept and type(fresh.reason) is _Markup
    assert passed(_Markup("a"), "text") is not kept
    assert passed("a", "text", _Markup("")) is not kept


# The id sets that decided the caps before each check declared its effect where it is made; the
# checks below are built with the effect their receipt creation sites declare (_declared).
_UNPINNED_IDS = frozenset(
    {
        "approval.receipt-key",
        "authority.config-key",
        "authority.receipt-key",
        "authority.approval-key",
        "authority.published-key",
    }
)
_REDUCED_IDS = frozenset(
    {
        "scope.request-unparseable",
        "decision.authenticated",
        "replay.decision",
        "claims.unbound",
        "approval.time",
    }
)


def _decide_reference(checks: Sequence[Check]) -> tuple[str, str]:
    """``decide`` as it was: one scan per rule, in the rules' order."""
    if not checks or not any(c.status == "pass" for c in checks):
        return Outcome.FAIL, ""
    failed = [c for c in checks if c.status == "fail"]
    if failed:
        bypass = any(c.id == "bypass.not-mediated" for c in failed)
        return Outcome.FAIL, NOT_MEDIATED if bypass else ""
    if any(c.id in _UNPINNED_IDS and c.status == "not-evaluated" for c in checks):
        return Outcome.UNPINNED, ""
    if any(c.id in _REDUCED_IDS and c.status == "not-evaluated" for c in checks):
        return Outcome.REDUCED, ""
    return Outcome.VERIFIED, ""


_IDS = st.sampled_from(
    [
        "bypass.not-mediated",
        "authority.config-key",
        "authority.receipt-key",
        "scope.request-unparseable",
        "replay.decision",
        "format.fields",
        "a",
        "b",
    ]
)
_STATUSES = st.sampled_from(["pass", "fail", "not-evaluated", "info"])
_LOCATIONS = st.sampled_from(["", "/a", "/b", "/a/0"])
_CHECKS = st.lists(
    st.builds(Check, _IDS, _STATUSES, st.sampled_from(["r1", "r2", "r\n3"]), _LOCATIONS),
    max_size=12,
)


def _declared(checks: list[Check]) -> list[Check]:
    """``checks`` with the effect a receipt creation site declares for a not-evaluated id."""
    out = []
    for check in checks:
        if check.status == "not-evaluated" and check.id in _UNPINNED_IDS:
            check = dataclasses.replace(check, effect=Effect.CAPS_UNPINNED)
        elif check.status == "not-evaluated" and check.id in _REDUCED_IDS:
            check = dataclasses.replace(check, effect=Effect.CAPS_REDUCED)
        out.append(check)
    return out


def _decide(checks: Sequence[Check]) -> tuple[str, str]:
    return decide(checks, VOCABULARY)


@settings(max_examples=1500)
@given(_CHECKS)
def test_decide_equals_the_reference(checks: list[Check]) -> None:
    checks = _declared(checks)
    assert _decide(checks) == _decide_reference(checks)
    assert _decide(tuple(checks)) == _decide_reference(checks)


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        ([], (Outcome.FAIL, "")),
        ([("x", "info"), ("y", "not-evaluated")], (Outcome.FAIL, "")),
        ([("x", "pass"), ("bypass.not-mediated", "fail")], (Outcome.FAIL, NOT_MEDIATED)),
        ([("x", "pass"), ("bypass.not-mediated", "pass"), ("y", "fail")], (Outcome.FAIL, "")),
        ([("x", "pass"), ("authority.receipt-key", "not-evaluated")], (Outcome.UNPINNED, "")),
        ([("x", "pass"), ("scope.request-unparseable", "not-evaluated")], (Outcome.REDUCED, "")),
        (
            [
                ("x", "pass"),
                ("scope.request-unparseable", "not-evaluated"),
                ("authority.config-key", "not-evaluated"),
            ],
            (Outcome.UNPINNED, ""),
        ),
        # A decision not re-derived is never VERIFIED (seal-check@0632f31 README's rule).
        (
            [("authority.config-key", "pass"), ("replay.decision", "not-evaluated")],
            (Outcome.REDUCED, ""),
        ),
        ([("authority.config-key", "pass"), ("replay.decision", "pass")], (Outcome.VERIFIED, "")),
    ],
)
def test_decide_reaches_every_outcome(
    statuses: list[tuple[str, Any]], expected: tuple[str, str]
) -> None:
    checks = _declared([Check(check_id, status, "r") for check_id, status in statuses])
    assert _decide(checks) == expected == _decide_reference(checks)


def _receipt_row_reference(subject: Subject) -> tuple[str, str, str, str, str]:
    """``table._receipt_row`` as it was: filtered from the fully sorted checks."""
    checks = subject.sorted_checks()
    failing = [c for c in checks if c.status == "fail"]
    # The cell's order and width are table.decisive_reason's (tests/reports/test_table_reason.py);
    # this reference holds the fast path's filtering equal to filtering the sorted checks.
    if failing:
        why = table.decisive_reason(failing)
    else:
        why = table.decisive_reason(
            c for c in checks if c.status == "not-evaluated" and c.id != "replay.decision"
        )
    label = f" ({subject.label})" if subject.label else ""
    family = str(subject.facts.get("family") or "-")
    verdict = str(subject.facts.get("verdict") or "-")
    return subject.name, subject.outcome + label, family, verdict, why


@settings(max_examples=1500)
@given(_CHECKS, st.sampled_from(["", NOT_MEDIATED]), st.sampled_from([{}, {"family": "v3"}]))
def test_receipt_row_equals_the_reference(
    checks: list[Check], label: str, facts: dict[str, Any]
) -> None:
    subject = Subject("r.json", Outcome.FAIL, tuple(checks), facts, label)
    assert table._receipt_row(subject) == _receipt_row_reference(subject)


def test_receipt_row_orders_ties_as_the_full_sort() -> None:
    # Same id, locations out of order, equal keys in input order: the stable-sort corner.
    checks = (
        Check("b", "fail", "b-late", "/b"),
        Check("a", "pass", "p"),
        Check("b", "fail", "b-early", "/a"),
        Check("a", "fail", "a-1", "/a"),
        Check("a", "fail", "a-2", "/a"),
    )
    subject = Subject("r.json", Outcome.FAIL, checks)
    row = table._receipt_row(subject)
    assert row == _receipt_row_reference(subject)
    # One check of each family first, then the rest; equal keys keep their input order.
    assert row[4] == "a: a-1; b: b-early; a: a-2; b: b-late"


def _nested(depth: int) -> JsonValue:
    value: JsonValue = JsonNumber("1")
    for level in range(depth):
        value = {"k": value, "s": "x"} if level % 2 else [True, value, None]
    return value


@st.composite
def _values(draw: st.DrawFn, depth: int = 0) -> JsonValue:
    if depth > 6 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from([None, True, "s", "[", JsonNumber("2")]))
    items = draw(st.lists(_values(depth + 1), max_size=4))
    if draw(st.booleans()):
        return items
    return {str(i): item for i, item in enumerate(items)}


@settings(max_examples=800)
@given(_values())
def test_nesting_depth_equals_the_level_walk(value: JsonValue) -> None:
    assert strictjson._nesting_depth(value) == strictjson._level_depth(value)


@contextmanager
def _recursion_limit(limit: int) -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def test_nesting_depth_falls_back_to_the_level_walk_under_a_low_recursion_limit() -> None:
    value = _nested(300)
    expected = strictjson._level_depth(value)
    assert expected == 300 and strictjson._nesting_depth(value) == expected
    with _recursion_limit(200):
        with pytest.raises(RecursionError):  # the fast path cannot take it here...
            strictjson._container_height(value)
        assert strictjson._nesting_depth(value) == expected  # ...and the fallback answers


@pytest.mark.parametrize("value", [None, True, "[[", JsonNumber("0"), [], {}, [[]], {"a": {}}])
def test_nesting_depth_of_scalars_and_empty_containers(value: JsonValue) -> None:
    assert strictjson._nesting_depth(value) == strictjson._level_depth(value)


# The report order by its definition (docs/report-format.md): failures first, then by id and
# location.
_RANK = {"fail": 0, "waived": 1, "not-evaluated": 2, "pass": 3, "info": 4}

_SORTABLE = st.lists(
    st.builds(
        Check,
        st.sampled_from(["a", "a.b", "b", "b.a"]),
        st.sampled_from(["pass", "fail", "not-evaluated", "info", "waived"]),
        st.sampled_from(["r1", "r2"]),  # equal keys with different reasons: stability shows
        st.sampled_from(["", "/x", "/y"]),
    ),
    max_size=12,
).map(tuple)


@settings(max_examples=800)
@given(_SORTABLE, st.sets(st.sampled_from(["pass", "fail", "not-evaluated", "info", "waived"])))
def test_sorted_checks_and_sorted_among_equal_the_one_sort(
    checks: tuple[Check, ...], statuses: set[str]
) -> None:
    subject = Subject("n", "FAIL", checks)
    reference = sorted(checks, key=lambda c: (_RANK[c.status], c.id, c.location))
    assert subject.sorted_checks() == reference
    assert [id(c) for c in subject.sorted_checks()] == [id(c) for c in reference]
    assert sorted_among(checks, statuses) == [c for c in reference if c.status in statuses]


def test_an_unknown_status_fails_every_sort_alike() -> None:
    odd = (Check("a", "pass", "r"), Check("b", "odd", "r"))  # type: ignore[arg-type]
    for sort in (
        Subject("n", "FAIL", odd).sorted_checks,
        lambda: sorted_among(odd, {"fail"}),
    ):
        with pytest.raises(KeyError):
            sort()
