"""The eight gating kernels: ``gates``, ``ingest`` and ``decide``, with their reasons and certs.

One function per kernel decision, mirroring seal-host ``Kernels/*.lean`` (Safety, Temporal,
Consensus with consensus-lean ``Consensus/Checker.lean``, Convergence, Calibration, Linear with
``LinearCore``, Budget with ``BudgetCore``, PrincipalBudget) and mcp-seal-dev
``SealCore/Automaton.lean``. Each ``decide`` returns the verdict and the *change* it makes to
the execution state, which the registry commits only on a combined allow; ``ingest`` results are
committed regardless. The held states (approvals, grants, budget counters) are updated in place
by what a step changes, never copied. The temporal trace is a persistent value (a step adds
one link).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sealverify._internal import fastpath
from sealverify._internal.kernel.config import (
    BudgetSpec,
    CalibrationConfig,
    ConsensusConfig,
    LinearConfig,
    PrincipalsConfig,
    ReplicatedTool,
    TemporalPolicy,
)
from sealverify._internal.kernel.evidence import Approval, Forecast
from sealverify._internal.kernel.hashes import audit_hash_parts
from sealverify._internal.kernel.ljson import LValue, is_nat
from sealverify._internal.kernel.lpath import at_path, scalar_text
from sealverify._internal.kernel.policy import Policy, TargetScheme, classify_tool_call
from sealverify._internal.wire.leanjson import LeanNumber

__all__ = [
    "EMPTY_TRACE",
    "Action",
    "LinearState",
    "SafetyState",
    "TemporalState",
    "Verdict",
    "budget_decide",
    "calibration_decide",
    "consensus_decide",
    "convergence_decide",
    "cost_for",
    "linear_decide",
    "principal_budget_decide",
    "safety_decide",
    "temporal_decide",
]

PROVEN_CONVERGENT_OPS = (
    "gset.add",
    "gcounter.inc",
    "pncounter.inc",
    "pncounter.dec",
    "orset.add",
    "orset.remove",
    "rga.insert",
    "rga.remove",
)


@dataclass(frozen=True, slots=True)
class Action:
    """``CanonicalAction``: the tool, the arguments (Lean view) and the request id."""

    tool: str
    args: LValue
    request_id: LValue


@dataclass(frozen=True, slots=True)
class Verdict:
    """``Host.Verdict``: kernel name, allow or deny, reason, and the 64-bit ``certHash``."""

    kernel: str
    kind: str  # "allow" | "deny"
    reason: str
    cert_hash: int

    @property
    def allows(self) -> bool:
        return self.kind == "allow"


# A verdict is a value of its three inputs: the same cert (``trace ok (1 events)``, ``explicit
# policy allow``) recurs across receipts and is built and hashed once.
@fastpath.cache(maxsize=1024)
def verdict(kernel: str, allow: bool, reason: str) -> Verdict:
    kind = "allow" if allow else "deny"
    return Verdict(kernel, kind, reason, audit_hash_parts((kernel, kind, reason)))


# --- S: safety (SealCore automaton over the classified event) ---------------------------------


class SafetyState:
    """The approved targets, each with its deadline: ``HashMap`` updated in place.

    ``ingest`` writes each record (a later one overwrites); a step that executes spends its
    target and prunes every approval due at or before its clock (:meth:`commit`). The due
    approvals come off a heap ordered by deadline, so a prune costs the approvals it drops
    (the heap's stale entries, of targets overwritten or spent since, are skipped, and it is
    rebuilt when they outnumber the live ones): no step reads the approvals it does not touch.
    """

    __slots__ = ("_approved", "_due", "_written")

    def __init__(self) -> None:
        self._approved: dict[str, tuple[int, int]] = {}  # target -> (deadline, write number)
        self._due: list[tuple[int, int, str]] = []  # (deadline, write number, target)
        self._written = 0

    def ingest(self, approvals: list[Approval]) -> None:
        """Record each approval (``HashMap.insert``: a later record overwrites)."""
        approved, due = self._approved, self._due
        for event in approvals:
            held = approved.get(event.target)
            if held is not None and held[0] == event.deadline:
                continue  # the same deadline again: the heap entry stands
            self._written += 1
            entry = (event.deadline, self._written)
            approved[event.target] = entry
            heapq.heappush(due, (*entry, event.target))
        if len(due) > 2 * len(approved) + 64:
            self._due = [(*entry, target) for target, entry in approved.items()]
            heapq.heapify(self._due)

    def deadline(self, target: str) -> int | None:
        """The deadline of the approval held for ``target``, if any."""
        held = self._approved.get(target)
        return None if held is None else held[0]

    def commit(self, spent: str | None, now: int) -> None:
        """An executed step: its approval spent (one approval, one call), then ``prune``."""
        approved, due = self._approved, self._due
        if spent is not None:
            del approved[spent]
        while due and due[0][0] <= now:
            deadline, written, target = heapq.heappop(due)
            if approved.get(target) == (deadline, written):
                del approved[target]

    def items(self) -> tuple[tuple[str, int], ...]:
        """The approvals held, ``(target, deadline)`` in first-written order."""
        return tuple((target, entry[0]) for target, entry in self._approved.items())


def safety_decide(
    act: Action, policy: Policy, now: int, state: SafetyState, scheme: TargetScheme
) -> tuple[Verdict, str | None]:
    """The verdict, and the target whose approval the call spends (committed on execution).

    On execution the session commits the spend and the ``prune`` of every approval whose
    deadline is at or before ``now`` (:meth:`SafetyState.commit`).
    """
    classified = classify_tool_call(policy, act.tool, act.args, scheme)
    spent = None
    if classified.event == "guarded":
        deadline = state.deadline(classified.target)
        allow = deadline is not None and now < deadline
        if allow:
            spent = classified.target
    else:
        allow = classified.event == "benign"
    return verdict("safety", allow, classified.reason), spent


# --- T: temporal (no forbidden tool after a trigger has executed) ------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class TemporalState:
    """The tools that executed, in order, kept so that a step costs no copy of the trace.

    The Lean kernel folds each policy over the whole trace and the new tool at every step.
    The fold's state after the trace (has a forbidden tool followed a trigger; has a trigger
    been seen) is kept per policy, so a step folds the new tool only: a copy and a fold of the
    whole trace per step took quadratic time over a long session. The trace itself is a chain
    of states, read back whole (:meth:`tools`) only for policies it was not folded under.
    """

    length: int = 0
    last: str | None = None
    before: TemporalState | None = None
    policies: tuple[TemporalPolicy, ...] = ()
    folds: tuple[tuple[bool, bool], ...] = ()  # (no violation, trigger seen) per policy

    def tools(self) -> tuple[str, ...]:
        """The executed tools, oldest first."""
        out: list[str] = []
        state: TemporalState | None = self
        while state is not None and state.last is not None:
            out.append(state.last)
            state = state.before
        return tuple(reversed(out))

    def folded(self, policies: tuple[TemporalPolicy, ...]) -> tuple[tuple[bool, bool], ...]:
        """Each policy's fold over the trace (kept when the trace was built under them)."""
        if policies is self.policies or policies == self.policies:
            return self.folds
        return tuple(_fold(policy, (True, False), self.tools()) for policy in policies)


def _fold(
    policy: TemporalPolicy, state: tuple[bool, bool], names: tuple[str, ...]
) -> tuple[bool, bool]:
    ok, trigger_seen = state
    for name in names:
        if trigger_seen and name in policy.forbidden:
            ok = False
        trigger_seen = trigger_seen or name in policy.trigger
    return ok, trigger_seen


EMPTY_TRACE = TemporalState()


def temporal_decide(
    act: Action, policies: tuple[TemporalPolicy, ...], state: TemporalState
) -> tuple[Verdict, TemporalState]:
    folds = zip(policies, state.folded(policies), strict=True)
    after = tuple(_fold(policy, fold, (act.tool,)) for policy, fold in folds)
    for policy, (ok, _) in zip(policies, after, strict=True):
        if not ok:
            return verdict("temporal", False, f"temporal policy violated: {policy.name}"), state
    return (
        verdict("temporal", True, f"trace ok ({state.length + 1} events)"),
        TemporalState(state.length + 1, act.tool, state, policies, after),
    )


# --- C: consensus (strict-majority quorum from the trusted roster) -----------------------------


def consensus_decide(act: Action, config: ConsensusConfig, votes: list[tuple[int, str]]) -> Verdict:
    voters = list(dict.fromkeys(acceptor for acceptor, value in votes if value == act.tool))
    recorded: dict[int, str] = {}
    for acceptor, value in votes:
        recorded.setdefault(acceptor, value)  # ``lookup``: the first vote of an acceptor counts
    roster = frozenset(config.roster)
    valid = (
        all(voter in roster for voter in voters)
        and len(config.roster) < 2 * len(voters)
        and all(recorded.get(voter) == act.tool for voter in voters)
    )
    counts = f"({len(voters)}/{len(config.roster)}): {act.tool}"
    return verdict("consensus", valid, f"quorum {'ok' if valid else 'missing'} {counts}")


# --- V: convergence (only proven-convergent CRDT operations) -----------------------------------


def convergence_decide(act: Action, rules: Mapping[str, ReplicatedTool]) -> Verdict:
    """``rules``: the first rule of each tool (``TrustedConfig.replicated``), looked up."""
    rule = rules.get(act.tool)
    if rule is None:
        return verdict("convergence", False, f"not a configured replicated tool: {act.tool}")
    op = scalar_text(at_path(act.args, list(rule.op_arg)))
    if op is None:
        return verdict("convergence", False, f"missing op field for replicated tool: {act.tool}")
    if op in PROVEN_CONVERGENT_OPS:
        return verdict("convergence", True, f"convergent op admitted: {op}")
    return verdict("convergence", False, f"op not in the proven-convergent set: {op}")


# --- K: calibration (Hoeffding bound over the forecast window, Lean Float) ---------------------


def _hoeffding_threshold(delta_num: int, delta_den: int, samples: int) -> float:
    if delta_num == 0 or samples == 0:
        return 0.0
    return math.sqrt(math.log(2.0 * float(delta_den) / float(delta_num)) / (2.0 * float(samples)))


def _mean_error(records: list[Forecast]) -> float:
    total = 0.0
    for record in records:
        total = total + ((1.0 if record.outcome else 0.0) - record.confidence)
    count = float(len(records))
    if count == 0.0:
        return math.copysign(math.nan, total) if total == 0.0 else math.copysign(math.inf, total)
    return total / count


def calibration_decide(act: Action, config: CalibrationConfig, records: list[Forecast]) -> Verdict:
    count = len(records)
    calibrated = count >= config.min_samples and abs(_mean_error(records)) <= (
        _hoeffding_threshold(config.delta_num, config.delta_den, count)
    )
    if calibrated:
        return verdict(
            "calibration", True, f"forecaster calibrated over {count} samples: {act.tool}"
        )
    if count < config.min_samples:
        reason = (
            f"calibration evidence insufficient ({count}/{config.min_samples} samples): {act.tool}"
        )
    else:
        reason = f"forecaster uncalibrated over {count} samples: {act.tool}"
    return verdict("calibration", False, reason)


# --- L: linear capabilities (grants add uses, each gated call spends one) ----------------------


class LinearState:
    """The uses left per capability, updated in place: a grant adds, an executed call spends."""

    __slots__ = ("remaining",)

    def __init__(self) -> None:
        self.remaining: dict[str, int] = {}

    def ingest(self, grants: list[tuple[str, int]]) -> None:
        """Add each grant's uses (committed whatever the step decides)."""
        remaining = self.remaining
        for cap, uses in grants:
            remaining[cap] = remaining.get(cap, 0) + uses

    def commit(self, spent: str) -> None:
        """An executed call spends one use of ``spent``."""
        self.remaining[spent] -= 1


def linear_decide(
    act: Action, config: LinearConfig, state: LinearState
) -> tuple[Verdict, str | None]:
    """The verdict, and the capability the call spends (committed on execution)."""
    tool = config.by_tool.get(act.tool)
    if tool is None:
        return verdict("linear", False, f"not a linearly-gated tool: {act.tool}"), None
    cap = scalar_text(at_path(act.args, list(tool.cap_arg)))
    if cap is None:
        return verdict("linear", False, f"missing capability field: {act.tool}"), None
    held = state.remaining.get(cap, 0)
    if held == 0:
        return verdict("linear", False, f"capability exhausted, double-spend denied: {cap}"), None
    reason = f"capability spent ({held - 1} uses left): {cap}"
    return verdict("linear", True, reason), cap


# --- B and PB: budgets (monotone counters under a cap; PB keyed by principal) ------------------

BudgetState = dict[str, int]  # spent per budget name, updated in place on execution


def cost_for(spec: BudgetSpec, args: LValue) -> int | None:
    """``costFor`` (``Kernels/BudgetCore.lean``): the ``cost_arg`` natural, else 1.

    A missing or non-natural field is None.
    """
    if spec.cost_arg is None:
        return 1
    value = at_path(args, list(spec.cost_arg))
    if isinstance(value, LeanNumber) and is_nat(value):
        return int(value.digits)
    return None


def _fold_budgets(
    act: Action, specs: tuple[BudgetSpec, ...], spent: Callable[[str], int], label: str
) -> str | dict[str, int]:
    """The error, or the counters the call moves (read through them: same-name specs share).

    ``specs``: the budgets that gate the call's tool, in config order (looked up, not searched).
    """
    moved: dict[str, int] = {}
    for spec in specs:
        cost = cost_for(spec, act.args)
        if cost is None:
            return f"missing cost field for {label} {spec.name}: {act.tool}"
        used = moved[spec.name] if spec.name in moved else spent(spec.name)
        if used + cost > spec.cap:
            return f"over {label} {spec.name} ({used}+{cost}>{spec.cap}): {act.tool}"
        moved[spec.name] = used + cost
    return moved


def budget_decide(
    act: Action, by_tool: Mapping[str, tuple[BudgetSpec, ...]], state: BudgetState
) -> tuple[Verdict, BudgetState]:
    """The verdict, and the counters the call moves (committed on execution).

    ``by_tool``: the budgets gating each tool (``TrustedConfig.budget_by_tool``).
    """
    specs = by_tool.get(act.tool, ())
    moved = _fold_budgets(act, specs, lambda budget: state.get(budget, 0), "budget")
    if isinstance(moved, str):
        return verdict("budget", False, moved), {}
    return verdict("budget", True, f"within budget: {act.tool}"), moved


PrincipalBudgetState = dict[tuple[str, str], int]  # spent per (principal, budget name)


def principal_budget_decide(
    act: Action, config: PrincipalsConfig, principal: str | None, state: PrincipalBudgetState
) -> tuple[Verdict, PrincipalBudgetState]:
    """The verdict, and the principal's counters the call moves (committed on execution)."""
    name = "principal_budget"
    if principal is None:
        return verdict(name, False, f"principal envelope required: {act.tool}"), {}
    own = lambda budget: state.get((principal, budget), 0)  # noqa: E731
    moved = _fold_budgets(act, config.by_tool.get(act.tool, ()), own, "principal budget")
    if isinstance(moved, str):
        return verdict(name, False, moved), {}
    reason = f"within principal budget ({principal}): {act.tool}"
    return verdict(name, True, reason), {(principal, b): used for b, used in moved.items()}
