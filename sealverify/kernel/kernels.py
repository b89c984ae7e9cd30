"""The eight gating kernels: ``gates``, ``ingest`` and ``decide``, with their reasons and certs.

One function per kernel decision, mirroring seal-host ``Kernels/*.lean`` (Safety, Temporal,
Consensus with consensus-lean ``Consensus/Checker.lean``, Convergence, Calibration, Linear with
``LinearCore``, Budget with ``BudgetCore``, PrincipalBudget) and mcp-seal-dev
``SealCore/Automaton.lean``. Each ``decide`` returns the verdict and the *execution* state, which
the registry commits only on a combined allow; ``ingest`` results are committed regardless.
States are immutable values (tuples and frozen mappings) so a held state can be dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sealverify.kernel.config import (
    BudgetSpec,
    CalibrationConfig,
    ConsensusConfig,
    LinearConfig,
    PrincipalsConfig,
    ReplicatedTool,
    TemporalPolicy,
)
from sealverify.kernel.evidence import Approval, Forecast
from sealverify.kernel.hashes import audit_hash_parts
from sealverify.kernel.ljson import LValue, is_nat
from sealverify.kernel.lpath import at_path, scalar_text
from sealverify.kernel.policy import Policy, TargetScheme, classify_tool_call
from sealverify.wire.leanjson import LeanNumber

__all__ = [
    "EMPTY_TRACE",
    "Action",
    "TemporalState",
    "Verdict",
    "budget_decide",
    "calibration_decide",
    "consensus_decide",
    "convergence_decide",
    "cost_for",
    "linear_decide",
    "linear_ingest",
    "principal_budget_decide",
    "safety_decide",
    "safety_ingest",
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


def verdict(kernel: str, allow: bool, reason: str) -> Verdict:
    kind = "allow" if allow else "deny"
    return Verdict(kernel, kind, reason, audit_hash_parts([kernel, kind, reason]))


# --- S: safety (SealCore automaton over the classified event) ---------------------------------

SafetyState = tuple[tuple[str, int], ...]  # approved target -> deadline, insertion-ordered


def safety_ingest(approvals: list[Approval], state: SafetyState) -> SafetyState:
    approved = dict(state)
    for event in approvals:
        approved[event.target] = event.deadline  # HashMap.insert: a later record overwrites
    return tuple(approved.items())


def safety_decide(
    act: Action, policy: Policy, now: int, state: SafetyState, scheme: TargetScheme
) -> tuple[Verdict, SafetyState]:
    classified = classify_tool_call(policy, act.tool, act.args, scheme)
    approved = dict(state)
    if classified.event == "guarded":
        deadline = approved.get(classified.target)
        allow = deadline is not None and now < deadline
        if allow:
            del approved[classified.target]  # one approval, one call
    else:
        allow = classified.event == "benign"
    # ``prune``: drop every approval whose deadline is at or before now (decision-neutral).
    pruned = tuple((target, due) for target, due in approved.items() if now < due)
    return verdict("safety", allow, classified.reason), pruned


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
    valid = (
        all(voter in config.roster for voter in voters)
        and len(config.roster) < 2 * len(voters)
        and all(recorded.get(voter) == act.tool for voter in voters)
    )
    counts = f"({len(voters)}/{len(config.roster)}): {act.tool}"
    return verdict("consensus", valid, f"quorum {'ok' if valid else 'missing'} {counts}")


# --- V: convergence (only proven-convergent CRDT operations) -----------------------------------


def convergence_decide(act: Action, config: tuple[ReplicatedTool, ...]) -> Verdict:
    rule = next((r for r in config if r.tool == act.tool), None)
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

LinearState = tuple[tuple[str, int], ...]


def linear_ingest(grants: list[tuple[str, int]], state: LinearState) -> LinearState:
    remaining = dict(state)
    for cap, uses in grants:
        remaining[cap] = remaining.get(cap, 0) + uses
    return tuple(remaining.items())


def linear_decide(
    act: Action, config: LinearConfig, state: LinearState
) -> tuple[Verdict, LinearState]:
    tool = next((t for t in config.tools if t.tool == act.tool), None)
    if tool is None:
        return verdict("linear", False, f"not a linearly-gated tool: {act.tool}"), state
    cap = scalar_text(at_path(act.args, list(tool.cap_arg)))
    if cap is None:
        return verdict("linear", False, f"missing capability field: {act.tool}"), state
    remaining = dict(state)
    held = remaining.get(cap, 0)
    if held == 0:
        return verdict("linear", False, f"capability exhausted, double-spend denied: {cap}"), state
    remaining[cap] = held - 1
    reason = f"capability spent ({held - 1} uses left): {cap}"
    return verdict("linear", True, reason), tuple(remaining.items())


# --- B and PB: budgets (monotone counters under a cap; PB keyed by principal) ------------------

BudgetState = tuple[tuple[str, int], ...]


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
    act: Action, specs: tuple[BudgetSpec, ...], spent: dict[str, int], label: str
) -> str | None:
    for spec in specs:
        if act.tool not in spec.tools:
            continue
        cost = cost_for(spec, act.args)
        if cost is None:
            return f"missing cost field for {label} {spec.name}: {act.tool}"
        used = spent.get(spec.name, 0)
        if used + cost > spec.cap:
            return f"over {label} {spec.name} ({used}+{cost}>{spec.cap}): {act.tool}"
        spent[spec.name] = used + cost
    return None


def budget_decide(
    act: Action, config: tuple[BudgetSpec, ...], state: BudgetState
) -> tuple[Verdict, BudgetState]:
    spent = dict(state)
    error = _fold_budgets(act, config, spent, "budget")
    if error is not None:
        return verdict("budget", False, error), state
    return verdict("budget", True, f"within budget: {act.tool}"), tuple(spent.items())


PrincipalBudgetState = tuple[tuple[tuple[str, str], int], ...]


def principal_budget_decide(
    act: Action, config: PrincipalsConfig, principal: str | None, state: PrincipalBudgetState
) -> tuple[Verdict, PrincipalBudgetState]:
    name = "principal_budget"
    if principal is None:
        return verdict(name, False, f"principal envelope required: {act.tool}"), state
    counters = dict(state)
    own = {budget: used for (pid, budget), used in counters.items() if pid == principal}
    error = _fold_budgets(act, config.budgets, own, "principal budget")
    if error is not None:
        return verdict(name, False, error), state
    for budget, used in own.items():
        counters[(principal, budget)] = used
    reason = f"within principal budget ({principal}): {act.tool}"
    return verdict(name, True, reason), tuple(counters.items())
