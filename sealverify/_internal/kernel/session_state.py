"""A session pass's state as checkpoint values, read back only when every field holds.

:class:`~sealverify._internal.kernel.session_pass.SessionPass` carries a session from call to
call: the model session (its build and config, and every ``IO.Ref`` of seal-host@099be66
``Host/Registry.lean``: the approvals held, the temporal trace, the linear capabilities,
the budgets, the M.2 revision selection), the claims its executed calls made, and why it
stopped, if it did. :func:`dump` gives the part whose size does not grow with the calls
(the kernels' states are bounded by the config and the evidence held, the trace by its
per-policy folds); what does grow, one entry per call, is given one value per call by
:func:`dump_position` and :func:`dump_call`, so a checkpoint appends a call's entries once and
rewrites only the flat part.

:func:`load` takes them back and refuses, with :class:`StateError` naming the field, any value
this module would not have written: a member missing or extra, a type, a number that is not
a natural, a build this model has no profile for, a config the model refuses, a budget over
its cap or not in the config, a temporal fold that records a violation (a violating call
never executes, so no trace holds one), executed positions that are not the calls the trace
counts. A state edited into another well-formed one that keeps every such invariant is not
detected here; the store holding it is the auditor's own (``docs/follow.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from sealverify._internal.kernel import kernels as K
from sealverify._internal.kernel.config import BudgetSpec, TrustedConfig
from sealverify._internal.kernel.evidence import Approval
from sealverify._internal.kernel.gate import CONFLICT, CURRENT, LEGACY
from sealverify._internal.kernel.profiles import profile_for
from sealverify._internal.kernel.replay import Rederivation
from sealverify._internal.kernel.session import KernelSession, SessionState, StepResult
from sealverify._internal.kernel.session_pass import SessionPass
from sealverify._internal.wire.spelling import HEX64
from sealverify.errors import StoreError

__all__ = [
    "STATE_VERSION",
    "StateError",
    "dump",
    "dump_call",
    "dump_position",
    "load",
]

STATE_VERSION = 1

_NAT = re.compile(r"0|[1-9][0-9]{0,77}")  # a natural in decimal: Lean's Nat, no 64-bit bound
_STATUSES = frozenset({"pass", "fail", "not-evaluated"})
_ROUTES = frozenset({"passthrough", "forward", "block", "refuse", "reject", "error"})
_SELECTIONS = frozenset({"", CONFLICT, CURRENT, LEGACY})


class StateError(StoreError):
    """A stored session state this module would not have written: refused, never guessed."""


def _nat(value: int) -> str:
    return str(value)


def dump(session_pass: SessionPass) -> dict[str, Any]:
    """The flat part of ``session_pass``'s state: its size does not grow with its calls."""
    kernel: dict[str, Any] | None = None
    if session_pass.session is not None and session_pass.key is not None:
        state = session_pass.session.state
        temporal = state.temporal
        safety = state.safety
        kernel = {
            "build": session_pass.key[0],
            "payload": session_pass.key[1],
            "approvals": [[target, _nat(deadline)] for target, deadline in safety.items()],
            "trace": _nat(temporal.length),
            "last": temporal.last,
            "folds": [list(fold) for fold in temporal.folds],
            "linear": {cap: _nat(n) for cap, n in state.linear.remaining.items()},
            "budget": {name: _nat(n) for name, n in state.budget.items()},
            "principal_budget": [[p, b, _nat(n)] for (p, b), n in state.principal_budget.items()],
            "selection": state.selection,
        }
    return {
        "v": STATE_VERSION,
        "session": session_pass.name,
        "order": session_pass.order,
        "count": _nat(session_pass.count),
        "stopped": session_pass.stopped,
        "kernel": kernel,
    }


def dump_position(position: int, where: str) -> dict[str, Any]:
    """One executed call's claimed position and where its receipt was read."""
    return {"position": _nat(position), "where": where}


def dump_call(call: bytes, result: Rederivation) -> dict[str, Any]:
    """One call's result, by the digest that makes it one call, as a copy of it is handed it."""
    step = result.result
    return {
        "call": call.hex(),
        "status": result.status,
        "reason": result.reason,
        "build": result.build,
        "route": None if step is None else step.route,
        "difference": result.difference,
    }


# --- reading back -------------------------------------------------------------------------


def _object(value: object, members: Iterable[str], what: str) -> Mapping[str, Any]:
    names = set(members)
    if not isinstance(value, dict) or set(value) != names:
        raise StateError(f"{what}: an object with exactly the members {sorted(names)} expected")
    return value


def _read_nat(value: object, what: str) -> int:
    if not isinstance(value, str) or _NAT.fullmatch(value) is None:
        raise StateError(f"{what}: a natural number in decimal expected, got {value!r:.60}")
    return int(value)


def _text(value: object, what: str, empty: bool = False) -> str:
    if not isinstance(value, str) or (not value and not empty):
        raise StateError(f"{what}: a string expected")
    return value


def _optional_text(value: object, what: str) -> str | None:
    return None if value is None else _text(value, what)


def load(
    value: object,
    session: str,
    order: str,
    positions: Iterable[object] = (),
    calls: Iterable[object] = (),
) -> tuple[SessionPass, dict[bytes, Rederivation]]:
    """The session pass :func:`dump` was given and its calls' results, or :class:`StateError`.

    ``session`` and ``order`` are what the reader expects (the state must say the same);
    ``positions`` and ``calls`` are the values :func:`dump_position` and :func:`dump_call`
    gave, in the order they were made.
    """
    doc = _object(value, ("v", "session", "order", "count", "stopped", "kernel"), "state")
    if doc["v"] != STATE_VERSION:
        raise StateError(f"state: version {doc['v']!r:.20} is not {STATE_VERSION}")
    if doc["session"] != session or doc["order"] != order:
        raise StateError(f"state: not the state of session {session!r} in {order}")
    session_pass = SessionPass(session, order)
    session_pass.count = _read_nat(doc["count"], "count")
    session_pass.stopped = _optional_text(doc["stopped"], "stopped")
    session_pass.executed = _positions(positions, session_pass.count)
    if doc["kernel"] is not None:
        session_pass.session, session_pass.key = _kernel(doc["kernel"])
    model = session_pass.session
    length = model.state.temporal.length if model is not None else 0
    if session_pass.stopped is None and list(session_pass.executed) != list(range(1, length + 1)):
        # A pass that never stopped recorded exactly the positions its trace counts.
        raise StateError(
            f"positions: {len(session_pass.executed)} executed calls recorded, "
            f"the trace counts {length}"
        )
    return session_pass, _calls(calls)


def _positions(values: Iterable[object], count: int) -> dict[int, str]:
    executed: dict[int, str] = {}
    for value in values:
        entry = _object(value, ("position", "where"), "position")
        position = _read_nat(entry["position"], "position")
        if position < 1 or (executed and position <= max(executed)):
            raise StateError(f"position: {position} does not follow the positions before it")
        executed[position] = _text(entry["where"], "position: where")
    if len(executed) > count:
        raise StateError(f"positions: {len(executed)} recorded of {count} calls fed")
    return executed


def _calls(values: Iterable[object]) -> dict[bytes, Rederivation]:
    calls: dict[bytes, Rederivation] = {}
    members = ("call", "status", "reason", "build", "route", "difference")
    for value in values:
        entry = _object(value, members, "call")
        digest = entry["call"]
        if not isinstance(digest, str) or HEX64.fullmatch(digest) is None:
            raise StateError("call: a SHA-256 in lower-case hex expected")
        if bytes.fromhex(digest) in calls:
            raise StateError(f"call: {digest} recorded twice")
        if entry["status"] not in _STATUSES:
            raise StateError(f"call: status {entry['status']!r:.30} is not a status")
        route = entry["route"]
        if route is not None and route not in _ROUTES:
            raise StateError(f"call: route {route!r:.30} is not a route")
        calls[bytes.fromhex(digest)] = Rederivation(
            entry["status"],
            _text(entry["reason"], "call: reason"),
            _optional_text(entry["build"], "call: build"),
            None if route is None else StepResult("", route),
            _optional_text(entry["difference"], "call: difference"),
        )
    return calls


_KERNEL_MEMBERS = (
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


def _kernel(value: object) -> tuple[KernelSession, tuple[str, str]]:
    """The model session the state names (its config read again) with its states restored."""
    doc = _object(value, _KERNEL_MEMBERS, "kernel")
    build, payload = _text(doc["build"], "kernel: build"), _text(doc["payload"], "kernel: payload")
    profile = profile_for(build)
    if profile is None:
        raise StateError(f"kernel: build {build[:12]!r} has no profile in this model")
    started = KernelSession.init_trusted(payload, profile)
    if started.session is None:
        raise StateError(f"kernel: the model refuses the config: {started.output[:200]}")
    session, config = started.session, started.session.config
    state = SessionState()
    state.safety = _safety(doc["approvals"])
    state.temporal = _temporal(doc["trace"], doc["last"], doc["folds"], config)
    state.linear = K.LinearState()
    state.linear.remaining = _counters(doc["linear"], "kernel: linear", None)
    state.budget = _counters(doc["budget"], "kernel: budget", _caps(config.budget))
    state.principal_budget = _principal_budget(doc["principal_budget"], config)
    if doc["selection"] not in _SELECTIONS:
        raise StateError(f"kernel: selection {doc['selection']!r:.40} is not a revision")
    state.selection = doc["selection"]
    session.state = state
    return session, (build, payload)


def _safety(approvals: object) -> K.SafetyState:
    """The approvals held, written again in their order (their deadline heap made anew)."""
    if not isinstance(approvals, list):
        raise StateError("kernel: approvals: a list expected")
    held: dict[str, Approval] = {}
    for entry in approvals:
        if not isinstance(entry, list) or len(entry) != 2:
            raise StateError("kernel: approvals: [target, deadline] expected")
        target = _text(entry[0], "kernel: approvals: target", empty=True)
        if target in held:
            raise StateError(f"kernel: approvals: {target!r:.60} held twice")
        held[target] = Approval(target, _read_nat(entry[1], "kernel: approvals: deadline"))
    safety = K.SafetyState()
    safety.ingest(list(held.values()))
    return safety


def _temporal(
    length: object, last: object, folds: object, config: TrustedConfig
) -> K.TemporalState:
    """The trace as its folds: a trace only grows on an executed call, which no policy denied."""
    count = _read_nat(length, "kernel: trace")
    if count == 0:
        if last is not None or folds != []:
            raise StateError("kernel: an empty trace has no last tool and no folds")
        return K.EMPTY_TRACE
    tool = _text(last, "kernel: last", empty=True)
    policies = config.temporal
    if not isinstance(folds, list) or len(folds) != len(policies):
        raise StateError(f"kernel: folds: one per temporal policy ({len(policies)}) expected")
    kept: list[tuple[bool, bool]] = []
    for policy, fold in zip(policies, folds, strict=True):
        if fold not in ([True, False], [True, True]):
            raise StateError(f"kernel: folds: {policy.name!r:.60} records a violation or no fold")
        if tool in policy.trigger and fold != [True, True]:
            raise StateError(f"kernel: folds: {policy.name!r:.60} missed its trigger {tool!r:.60}")
        kept.append((True, bool(fold[1])))
    # The chain before the last tool is not kept: a session's policies never change (its
    # config is fixed), so the trace is only ever read through these folds.
    return K.TemporalState(count, tool, K.EMPTY_TRACE, policies, tuple(kept))


def _caps(specs: Iterable[BudgetSpec]) -> dict[str, int]:
    caps: dict[str, int] = {}
    for spec in specs:
        caps[spec.name] = max(caps.get(spec.name, 0), spec.cap)
    return caps


def _counters(value: object, what: str, caps: Mapping[str, int] | None) -> dict[str, int]:
    if not isinstance(value, dict):
        raise StateError(f"{what}: an object expected")
    counters: dict[str, int] = {}
    for name, n in value.items():
        count = _read_nat(n, f"{what}: {name!r:.60}")
        if caps is not None and (name not in caps or count > caps[name]):
            raise StateError(f"{what}: {name!r:.60} is not a budget of the config, or over cap")
        counters[name] = count
    return counters


def _principal_budget(value: object, config: TrustedConfig) -> dict[tuple[str, str], int]:
    if not isinstance(value, list):
        raise StateError("kernel: principal_budget: a list expected")
    principals = config.principals
    caps = _caps(principals.budgets) if principals is not None else {}
    spent: dict[tuple[str, str], int] = {}
    for entry in value:
        if not isinstance(entry, list) or len(entry) != 3:
            raise StateError("kernel: principal_budget: [principal, budget, spent] expected")
        principal = _text(entry[0], "kernel: principal_budget: principal", empty=True)
        budget = _text(entry[1], "kernel: principal_budget: budget", empty=True)
        count = _read_nat(entry[2], "kernel: principal_budget: spent")
        known = principals is not None and principal in principals.by_id
        if not known or budget not in caps or count > caps[budget] or (principal, budget) in spent:
            raise StateError(
                f"kernel: principal_budget: {principal!r:.40}/{budget!r:.40} is not a budget "
                "of the config, is over its cap, or is recorded twice"
            )
        spent[principal, budget] = count
    return spent
