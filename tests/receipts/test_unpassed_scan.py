"""A receipt's subject read from the checks that do not pass equals one read from all of them.

``verify._subject`` finds the checks that do not pass once and hands only those (and one
passing check) to the waivers and to ``decide``; the table, SARIF and JUnit formats
(``sorted_among``) pass over passing checks by identity first. Each is compared here with
the plain rule over every check, on generated lists of checks (statuses, effects, the
bypass label's id, waivable ids).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.receipts import verify
from sealverify._internal.reports.formats import sarif, table
from sealverify._internal.results import ids
from sealverify._internal.results.model import (
    Check,
    Subject,
    fail,
    info,
    not_evaluated,
    passed,
    reduced,
    sorted_among,
    unpinned,
)
from sealverify._internal.results.model import waived as waived_check
from sealverify._internal.results.outcomes import decide
from sealverify._internal.results.waivers import WAIVER_REASON, apply_waivers

_IDS = st.sampled_from(
    [
        ids.BYPASS_NOT_MEDIATED,
        ids.LEGACY_GUARD_TARGET_OMITS_META,
        ids.REPLAY_DECISION,
        ids.AUTHORITY_PUBLISHED_KEY,
        "binding.args-hash",
        "a.b",
    ]
)
_MAKERS = st.sampled_from([passed, fail, not_evaluated, unpinned, reduced, info])


@st.composite
def _check(draw: st.DrawFn) -> Check:
    maker = draw(_MAKERS)
    made = maker(draw(_IDS), draw(st.sampled_from(["r", "s"])), draw(st.sampled_from(["", "/x"])))
    if draw(st.booleans()) and made.status == "fail":
        return waived_check(made, "earlier")
    return made


_CHECKS = st.lists(_check(), max_size=12)
_WAIVE = st.sampled_from([frozenset(), frozenset({ids.LEGACY_GUARD_TARGET_OMITS_META})])


@settings(max_examples=300, deadline=None)
@given(_CHECKS, _check(), _WAIVE)
def test_subject_decides_as_every_check(
    checks: list[Check], replay: Check, waive: frozenset[str]
) -> None:
    expected_checks = [
        waived_check(c, WAIVER_REASON) if c.status == "fail" and c.id in waive else c
        for c in checks
    ]
    facts: dict[str, object] = {}
    if any(c.status == "waived" for c in expected_checks):
        facts["waived"] = sorted({c.id for c in expected_checks if c.status == "waived"})
    expected_checks.append(replay)
    facts["rederivation"] = str(replay.status)
    expected = decide(expected_checks, verify.VOCABULARY)

    subject = verify._subject("s", list(checks), {}, replay, waive)

    assert (subject.outcome, subject.label) == tuple(expected)
    assert list(subject.checks) == expected_checks
    assert subject.facts == facts


@settings(max_examples=200, deadline=None)
@given(_CHECKS, _WAIVE)
def test_waivers_among_the_unpassed(checks: list[Check], waive: frozenset[str]) -> None:
    among = [i for i, c in enumerate(checks) if c.status != "pass"]
    assert apply_waivers(checks, waive, among) == apply_waivers(checks, waive)


@settings(max_examples=200, deadline=None)
@given(_CHECKS)
def test_formats_pass_over_passing_checks(checks: list[Check]) -> None:
    subject = Subject("log:1", "VERIFIED", tuple(checks))
    ordered = subject.sorted_checks()
    for statuses in (frozenset(("fail", "not-evaluated")), frozenset(("fail", "info", "waived"))):
        assert sorted_among(subject.checks, statuses) == [
            c for c in ordered if c.status in statuses
        ]
    failing = [c for c in checks if c.status == "fail"]
    assert table._why_checks(subject) == (
        failing
        or [
            c
            for c in checks
            if c.status in ("not-evaluated", "waived") and c.id != ids.REPLAY_DECISION
        ]
    )
    rule_ids = sorted({c.id: c.status for c in checks if c.status != "pass" and sarif._level(c)})
    assert [c.id for c in sarif.rule_subject(subject).checks] == rule_ids
