"""effect_view's constant members: the at-once test equals the rule-by-rule checks."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit import mint

from sealverify._internal.receipts.bindings import approvals, effect_view
from sealverify._internal.wire.strictjson import JsonNumber

_HONEST: dict[str, Any] = mint.parse_record(next(iter(mint.mint_many(1))))["effect_view"]
_ODD = st.sampled_from(
    [None, 0, 1, False, True, "", "1", "seal.effect-view/v0", JsonNumber("1"), {}, [], {"x": 1}]
)
_SITES = st.sampled_from(
    [
        ("schema",),
        ("source",),
        ("adapter",),
        ("adapter", "type"),
        ("adapter", "version"),
        ("authoritative",),
        ("policy_version",),
        ("policy_version_enforced",),
    ]
)


def _set(view: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for step in path[:-1]:
        view = view.setdefault(step, {}) if isinstance(view.get(step), dict) else view
    if value is None and path[-1] in view:
        del view[path[-1]]
    else:
        view[path[-1]] = value


def test_the_honest_view_passes_both_ways() -> None:
    assert approvals._effect_view_constants(_HONEST) == []
    assert approvals._constant_checks(_HONEST) == []


@settings(max_examples=400, deadline=None)
@given(changes=st.lists(st.tuples(_SITES, _ODD), max_size=3))
def test_any_change_gets_the_checks_of_the_definition(
    changes: list[tuple[tuple[str, ...], Any]],
) -> None:
    view = copy.deepcopy(_HONEST)
    for path, value in changes:
        _set(view, path, value)
    assert approvals._effect_view_constants(view) == approvals._constant_checks(view)


def test_a_changed_constant_fails_the_receipt_binding() -> None:
    record = mint.parse_record(next(iter(mint.mint_many(1))))
    record["effect_view"]["authoritative"] = JsonNumber("0")
    failed = [c for c in effect_view(record) if c.status == "fail"]
    assert [c.id for c in failed] == ["format.fields"]
