"""The session state a checkpoint holds: dumped, loaded back the same, or refused by name."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.kernel import session_state
from sealverify._internal.kernel.session_pass import SessionPass

_SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)
_KERNEL = (
    "build",
    "payload",
    "approvals",
    "trace",
    "last",
    "folds",
    "linear",
    "budget",
    "principal_budget",
    "selection",
)
_BUILD = "28bb3ae71985357163e3b651791e2a70c462ea5d1313a59b4967d4c20ea77657"
_NATS = st.integers(0, 3).map(str)
# Members near what a follower writes, so a draw gets past the first check it meets.
_STATE = st.fixed_dictionaries(
    {
        "v": st.just(1) | _VALUES,
        "session": st.just("s"),
        "order": st.just("log order"),
        "count": _NATS | _VALUES,
        "stopped": st.none() | _VALUES,
        "kernel": st.none()
        | st.fixed_dictionaries(
            {
                "build": st.just(_BUILD) | _VALUES,
                "payload": st.just('{"epoch":1}') | _VALUES,
                **{m: _VALUES | _NATS for m in _KERNEL[2:]},
            }
        ),
    }
)


def test_a_session_pass_that_never_ran_a_step_round_trips() -> None:
    session_pass = SessionPass("s", "log order")
    session_pass.count, session_pass.stopped = 2, "an earlier receipt (line 1) was not re-derived"
    session_pass.executed = {1: "line 1", 3: "line 2"}
    positions = [session_state.dump_position(p, w) for p, w in session_pass.executed.items()]
    loaded, calls = session_state.load(
        session_state.dump(session_pass), "s", "log order", positions
    )
    assert (loaded.count, loaded.stopped, loaded.executed) == (
        2,
        session_pass.stopped,
        session_pass.executed,
    )
    assert (loaded.session, loaded.key, calls) == (None, None, {})


@pytest.mark.parametrize(
    ("member", "value", "why"),
    [
        ("v", 2, "version"),
        ("session", "t", "not the state of session"),
        ("count", 3, "natural number"),
        ("count", "03", "natural number"),
        ("stopped", "", "a string expected"),
        ("kernel", [], "exactly the members"),
    ],
)
def test_an_odd_member_is_refused_by_name(member: str, value: Any, why: str) -> None:
    state = session_state.dump(SessionPass("s", "log order"))
    state[member] = value
    with pytest.raises(session_state.StateError, match=why):
        session_state.load(state, "s", "log order")


def test_positions_a_pass_that_never_stopped_cannot_hold_are_refused() -> None:
    state = session_state.dump(SessionPass("s", "log order"))
    state["count"] = "1"
    with pytest.raises(session_state.StateError, match="the trace counts 0"):
        session_state.load(state, "s", "log order", [session_state.dump_position(1, "line 1")])


@settings(max_examples=300, deadline=None)
@given(_STATE, st.lists(_VALUES, max_size=3))
def test_any_stored_value_is_loaded_or_refused(value: Any, entries: list[Any]) -> None:
    with contextlib.suppress(session_state.StateError):
        session_state.load(value, "s", "log order", entries, entries)
