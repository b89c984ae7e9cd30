"""The trusted config as the kernel parses it: the policy-v2 bundle, strict keys, Lean's errors.

Mirrors mcp-seal-dev ``Seal/PolicyBundle.lean`` ``parsePolicyBundle`` (with the codecs of
``Seal/PolicyWire.lean`` and ``Seal/Policy.lean``) and seal-host ``Host/Config.lean``
``ofBundle``. Error precedence is part of the behaviour: the first failing step names the
error, in the order the Lean evaluates (top-level keys, epoch, safety keys, approval keys, the
server identities, the safety policy, then each optional section in bundle order). Unknown keys
are refused at the payload, section and entry levels; the safety tool rules and match specs
stay permissive (authoring tools keep ``_comment`` there). The approval TTL is clamped to 300 s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from sealverify._internal.kernel.ljson import (
    Absent,
    LeanError,
    LValue,
    get_arr,
    get_bool,
    get_nat,
    get_obj,
    get_obj_val,
    get_obj_val_opt,
    get_str,
)
from sealverify._internal.kernel.lpath import split_path
from sealverify._internal.kernel.policy import Policy, parse_policy

__all__ = [
    "BudgetSpec",
    "CalibrationConfig",
    "ConsensusConfig",
    "LinearConfig",
    "LinearTool",
    "PrincipalKey",
    "PrincipalsConfig",
    "ReplicatedTool",
    "TemporalPolicy",
    "TrustedConfig",
    "parse_bundle",
]

T = TypeVar("T")

MAX_APPROVAL_TTL_SECONDS = 300
_NONE: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class TemporalPolicy:
    name: str
    trigger: tuple[str, ...]
    forbidden: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ConsensusConfig:
    roster: tuple[int, ...]
    votes_file: str
    high_stakes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReplicatedTool:
    tool: str
    op_arg: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CalibrationConfig:
    enabled: bool
    delta_num: int
    delta_den: int
    min_samples: int
    records_file: str
    gated_tools: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LinearTool:
    tool: str
    cap_arg: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LinearConfig:
    grants_file: str
    tools: tuple[LinearTool, ...]
    # The first rule of each tool, as the kernel's search finds it: looked up per call.
    by_tool: Mapping[str, LinearTool] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_tool", _first_by_tool(self.tools))


@dataclass(frozen=True, slots=True)
class BudgetSpec:
    name: str
    cap: int
    tools: tuple[str, ...]
    cost_arg: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class PrincipalKey:
    id: str
    pubkey: str


def _first_by_tool(rules: Iterable[LinearTool | ReplicatedTool]) -> dict[str, Any]:
    """The first rule naming each tool (a section's search per call cost its size)."""
    first: dict[str, Any] = {}
    for rule in rules:
        first.setdefault(rule.tool, rule)
    return first


def _budgets_by_tool(specs: tuple[BudgetSpec, ...]) -> dict[str, tuple[BudgetSpec, ...]]:
    """For each tool, the budgets that gate it, in the order of ``specs`` (each once)."""
    found: dict[str, list[BudgetSpec]] = {}
    for spec in specs:
        for tool in dict.fromkeys(spec.tools):
            found.setdefault(tool, []).append(spec)
    return {tool: tuple(gating) for tool, gating in found.items()}


@dataclass(frozen=True, slots=True)
class PrincipalsConfig:
    registry: tuple[PrincipalKey, ...]
    budgets: tuple[BudgetSpec, ...]
    # The first registry entry of each id, as ``verifyEnvelope`` finds it: looked up per call,
    # not searched (a registry searched per call cost its size times the calls).
    by_id: Mapping[str, PrincipalKey] = dataclasses.field(init=False, repr=False, compare=False)
    # The budgets gating each tool, in order: a call looks them up, not through every budget.
    by_tool: Mapping[str, tuple[BudgetSpec, ...]] = dataclasses.field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        first: dict[str, PrincipalKey] = {}
        for key in self.registry:
            first.setdefault(key.id, key)
        object.__setattr__(self, "by_id", first)
        object.__setattr__(self, "by_tool", _budgets_by_tool(self.budgets))


@dataclass(frozen=True, slots=True)
class TrustedConfig:
    """``Host.TrustedConfig``: one section per kernel, ``enabled: false`` already collapsed."""

    epoch: int
    safety: Policy
    temporal: tuple[TemporalPolicy, ...]
    consensus: ConsensusConfig | None
    convergence: tuple[ReplicatedTool, ...]
    calibration: CalibrationConfig | None
    linear: LinearConfig | None
    budget: tuple[BudgetSpec, ...]
    principals: PrincipalsConfig | None
    # For each tool a section names, the optional kernels that gate it, indexed once per
    # config: a call looks its tool up rather than scanning each section's tool names.
    gates: Mapping[str, frozenset[str]] = dataclasses.field(init=False, repr=False, compare=False)
    # The first convergence rule and the budgets of each tool, looked up the same way.
    replicated: Mapping[str, ReplicatedTool] = dataclasses.field(
        init=False, repr=False, compare=False
    )
    budget_by_tool: Mapping[str, tuple[BudgetSpec, ...]] = dataclasses.field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        named: dict[str, set[str]] = {}
        for kernel, tools in self._gated():
            for tool in tools:
                named.setdefault(tool, set()).add(kernel)
        object.__setattr__(self, "gates", {t: frozenset(k) for t, k in named.items()})
        object.__setattr__(self, "replicated", _first_by_tool(self.convergence))
        object.__setattr__(self, "budget_by_tool", _budgets_by_tool(self.budget))

    def _gated(self) -> list[tuple[str, Iterable[str]]]:
        """Each optional kernel and the tool names it gates (the checks each step made)."""
        gated: list[tuple[str, Iterable[str]]] = []
        if self.consensus is not None:
            gated.append(("consensus", self.consensus.high_stakes))
        gated.append(("convergence", (r.tool for r in self.convergence)))
        if self.calibration is not None and self.calibration.enabled:
            gated.append(("calibration", self.calibration.gated_tools))
        if self.linear is not None:
            gated.append(("linear", (t.tool for t in self.linear.tools)))
        gated.append(("budget", (t for b in self.budget for t in b.tools)))
        if self.principals is not None:
            budgets = self.principals.budgets
            gated.append(("principal_budget", (t for b in budgets for t in b.tools)))
        return gated

    def gating(self, tool: str) -> frozenset[str]:
        """The optional kernels of this config that gate ``tool``, by name.

        Names: ``consensus``, ``convergence``, ``calibration``, ``linear``, ``budget``,
        ``principal_budget`` (the last also needs a build that has principals).
        """
        return self.gates.get(tool, _NONE)


# --- codec helpers (``Seal/PolicyWire.lean``) -------------------------------------------------


def expect_keys(value: LValue, allowed: tuple[str, ...], context: str) -> None:
    """``expectObjKeys``: the first unknown key in sorted (Unicode scalar) order is named."""
    for key in sorted(get_obj(value)):
        if key not in allowed:
            raise LeanError(f"unknown key '{key}' in {context}")


def field(value: LValue, key: str, parse: Callable[[LValue], T]) -> T:
    return parse(get_obj_val(value, key))


def field_default(value: LValue, key: str, parse: Callable[[LValue], T], default: T) -> T:
    member = get_obj_val_opt(value, key)
    return default if isinstance(member, Absent) else parse(member)


def field_opt(value: LValue, key: str, parse: Callable[[LValue], T]) -> T | None:
    member = get_obj_val_opt(value, key)
    return None if isinstance(member, Absent) else parse(member)


def str_list(value: LValue) -> tuple[str, ...]:
    return tuple(get_str(item) for item in get_arr(value))


def nat_list(value: LValue) -> tuple[int, ...]:
    return tuple(get_nat(item) for item in get_arr(value))


def path(value: LValue) -> tuple[str, ...]:
    """``pathCodec``: a dotted string, empty components dropped."""
    return tuple(split_path(get_str(value)))


def _array(value: LValue, parse: Callable[[LValue], T]) -> tuple[T, ...]:
    return tuple(parse(item) for item in get_arr(value))


# --- section codecs (``Seal/PolicyBundle.lean``) ----------------------------------------------


def _temporal_rule(value: LValue) -> TemporalPolicy:
    expect_keys(value, ("name", "type", "trigger", "forbidden"), "temporal policy")
    name = field(value, "name", get_str)
    kind = field(value, "type", get_str)
    if kind != "no_after":
        raise LeanError(f"unsupported temporal policy type: {kind}")
    trigger = field(value, "trigger", str_list)
    forbidden = field(value, "forbidden", str_list)
    return TemporalPolicy(name, trigger, forbidden)


def _temporal(value: LValue) -> tuple[bool, tuple[TemporalPolicy, ...]]:
    expect_keys(value, ("enabled", "policies"), "temporal section")
    enabled = field_default(value, "enabled", get_bool, True)
    return enabled, field(value, "policies", lambda v: _array(v, _temporal_rule))


def _consensus(value: LValue) -> tuple[bool, ConsensusConfig]:
    expect_keys(value, ("enabled", "roster", "votes_file", "high_stakes"), "consensus section")
    enabled = field_default(value, "enabled", get_bool, True)
    roster = field(value, "roster", nat_list)
    votes_file = field(value, "votes_file", get_str)
    high_stakes = field(value, "high_stakes", str_list)
    return enabled, ConsensusConfig(roster, votes_file, high_stakes)


def _convergent_tool(value: LValue) -> ReplicatedTool:
    expect_keys(value, ("tool", "op_arg"), "convergence tool")
    return ReplicatedTool(field(value, "tool", get_str), field(value, "op_arg", path))


def _convergence(value: LValue) -> tuple[bool, tuple[ReplicatedTool, ...]]:
    expect_keys(value, ("enabled", "tools"), "convergence section")
    enabled = field_default(value, "enabled", get_bool, True)
    return enabled, field(value, "tools", lambda v: _array(v, _convergent_tool))


def _calibration(value: LValue) -> CalibrationConfig:
    keys = ("enabled", "delta_num", "delta_den", "min_samples", "records_file", "gated_tools")
    expect_keys(value, keys, "calibration section")
    enabled = field_default(value, "enabled", get_bool, False)
    delta_num = field(value, "delta_num", get_nat)
    delta_den = field(value, "delta_den", get_nat)
    if delta_num == 0 or delta_den <= delta_num:
        raise LeanError("calibration delta must satisfy 0 < delta < 1")
    min_samples = field(value, "min_samples", get_nat)
    records_file = field(value, "records_file", get_str)
    gated_tools = field(value, "gated_tools", str_list)
    return CalibrationConfig(enabled, delta_num, delta_den, min_samples, records_file, gated_tools)


def _linear_tool(value: LValue) -> LinearTool:
    expect_keys(value, ("tool", "cap_arg"), "linear tool")
    return LinearTool(field(value, "tool", get_str), field(value, "cap_arg", path))


def _linear(value: LValue) -> tuple[bool, LinearConfig]:
    expect_keys(value, ("enabled", "grants_file", "tools"), "linear section")
    enabled = field_default(value, "enabled", get_bool, True)
    grants_file = field(value, "grants_file", get_str)
    tools = field(value, "tools", lambda v: _array(v, _linear_tool))
    return enabled, LinearConfig(grants_file, tools)


def _budget_rule(value: LValue) -> BudgetSpec:
    expect_keys(value, ("name", "cap", "tools", "cost_arg"), "budget spec")
    name = field(value, "name", get_str)
    cap = field(value, "cap", get_nat)
    tools = field(value, "tools", str_list)
    cost_arg = field_opt(value, "cost_arg", path)
    return BudgetSpec(name, cap, tools, cost_arg)


def _budget(value: LValue) -> tuple[bool, tuple[BudgetSpec, ...]]:
    expect_keys(value, ("enabled", "budgets"), "budget section")
    enabled = field_default(value, "enabled", get_bool, True)
    return enabled, field(value, "budgets", lambda v: _array(v, _budget_rule))


_HEX = frozenset("0123456789abcdefABCDEF")


def _principal_key(value: LValue) -> PrincipalKey:
    expect_keys(value, ("id", "pubkey"), "principal key")
    key_id = field(value, "id", get_str)
    pubkey = field(value, "pubkey", get_str)
    if not key_id:
        raise LeanError("principal id must be non-empty")
    if len(pubkey) != 64 or not _HEX.issuperset(pubkey):
        raise LeanError(f"principal pubkey must be 64 hex chars: {key_id}")
    return PrincipalKey(key_id, pubkey)


def _principals(value: LValue) -> tuple[bool, PrincipalsConfig]:
    expect_keys(value, ("enabled", "keys", "budgets"), "principals section")
    enabled = field_default(value, "enabled", get_bool, True)
    keys = field(value, "keys", lambda v: _array(v, _principal_key))
    budgets = field(value, "budgets", lambda v: _array(v, _budget_rule))
    return enabled, PrincipalsConfig(keys, budgets)


_TOP_LEVEL_KEYS = (
    "epoch",
    "server",
    "safety",
    "temporal",
    "consensus",
    "convergence",
    "calibration",
    "linear",
    "budget",
    "principals",
)


def budget_caps_consistent(specs: tuple[BudgetSpec, ...]) -> bool:
    """``budgetCapsConsistent``: same-name budgets share one counter, so they need one cap."""
    caps: dict[str, int] = {}
    return all(caps.setdefault(spec.name, spec.cap) == spec.cap for spec in specs)


def _principals_consistent(config: PrincipalsConfig) -> bool:
    """``principalsConsistent``: one key per id, consistent caps, budgets need a registry."""
    keys: dict[str, str] = {}
    for key in config.registry:
        if keys.setdefault(key.id, key.pubkey) != key.pubkey:
            return False
    return budget_caps_consistent(config.budgets) and (not config.budgets or bool(config.registry))


def parse_bundle(
    value: LValue, *, guard_target_full_arguments: bool = True, bundle: bool = True
) -> TrustedConfig:
    """``parsePolicyBundle`` then ``ofBundle``; raises :class:`LeanError` with Lean's message.

    ``guard_target_full_arguments`` is the Stage-A rule (a guarded rule's target must be
    exactly ``[{"full_arguments": true}]``), absent from builds before it was introduced.
    ``bundle=False`` is the host config of builds before the policy-v2 bundle (2026-07-17).
    """
    if not bundle:
        return _legacy_config(value, guard_target_full_arguments)
    expect_keys(value, _TOP_LEVEL_KEYS, "policy bundle")
    epoch = get_nat(get_obj_val(value, "epoch"))
    if epoch == 0:
        raise LeanError("config epoch must be ≥ 1")
    safety_json = get_obj_val(value, "safety")
    expect_keys(safety_json, ("approval", "server", "tools"), "safety section")
    approval = get_obj_val(safety_json, "approval")
    expect_keys(approval, ("ttl_seconds", "control_file", "replay_store"), "safety approval")
    outer = field_opt(value, "server", get_str)
    inner = field_opt(safety_json, "server", get_str)
    if outer is not None and inner is not None and outer != inner:
        raise LeanError("server identity conflicts between trusted config and safety policy")
    if outer is not None and inner is None:
        safety_json = {**get_obj(safety_json), "server": outer}
    safety = parse_policy(safety_json, guard_target_full_arguments=guard_target_full_arguments)
    temporal = field_opt(value, "temporal", _temporal)
    consensus = field_opt(value, "consensus", _consensus)
    convergence = field_opt(value, "convergence", _convergence)
    calibration = field_opt(value, "calibration", _calibration)
    linear = field_opt(value, "linear", _linear)
    budget = field_opt(value, "budget", _budget)
    principals = field_opt(value, "principals", _principals)

    effective_budget = budget[1] if budget is not None and budget[0] else ()
    if not budget_caps_consistent(effective_budget):
        raise LeanError("duplicate budget name with conflicting caps")
    effective_principals = principals[1] if principals is not None and principals[0] else None
    if effective_principals is not None and not _principals_consistent(effective_principals):
        raise LeanError(
            "inconsistent principals section (duplicate id, conflicting caps, or empty key "
            "registry)"
        )
    return TrustedConfig(
        epoch=epoch,
        safety=safety,
        temporal=temporal[1] if temporal is not None and temporal[0] else (),
        consensus=consensus[1] if consensus is not None and consensus[0] else None,
        convergence=convergence[1] if convergence is not None and convergence[0] else (),
        # Calibration stays present-but-disabled (``calibration_registered_iff``).
        calibration=calibration,
        linear=linear[1] if linear is not None and linear[0] else None,
        budget=effective_budget,
        principals=effective_principals,
    )


def _legacy_config(value: LValue, guard_target_full_arguments: bool) -> TrustedConfig:
    """seal-host ``Host/Config.lean`` before the bundle (46a9e93, 457850c).

    No strict keys, no ``enabled`` flags (calibration's defaults to false), no principals.
    """
    epoch = get_nat(get_obj_val(value, "epoch"))
    if epoch == 0:
        raise LeanError("config epoch must be ≥ 1")
    safety_json = get_obj_val(value, "safety")
    outer = field_opt(value, "server", get_str)
    inner = field_opt(safety_json, "server", get_str)
    if outer is not None and inner is not None and outer != inner:
        raise LeanError("server identity conflicts between trusted config and safety policy")
    if outer is not None and inner is None:
        safety_json = {**get_obj(safety_json), "server": outer}
    safety = parse_policy(safety_json, guard_target_full_arguments=guard_target_full_arguments)
    temporal = field_opt(
        value, "temporal", lambda v: field(v, "policies", lambda p: _array(p, _legacy_rule))
    )
    consensus = field_opt(value, "consensus", _legacy_consensus)
    convergence = field_opt(
        value, "convergence", lambda v: field(v, "tools", lambda t: _array(t, _legacy_replicated))
    )
    calibration = field_opt(value, "calibration", _legacy_calibration)
    linear = field_opt(value, "linear", _legacy_linear)
    budget = field_opt(
        value, "budget", lambda v: field(v, "budgets", lambda b: _array(b, _legacy_budget))
    )
    if budget is not None and not budget_caps_consistent(budget):
        raise LeanError("duplicate budget name with conflicting caps")
    return TrustedConfig(
        epoch,
        safety,
        temporal or (),
        consensus,
        convergence or (),
        calibration,
        linear,
        budget or (),
        None,
    )


def _legacy_rule(value: LValue) -> TemporalPolicy:
    name = field(value, "name", get_str)
    kind = field(value, "type", get_str)
    if kind != "no_after":
        raise LeanError(f"unsupported temporal policy type: {kind}")
    return TemporalPolicy(
        name, field(value, "trigger", str_list), field(value, "forbidden", str_list)
    )


def _legacy_consensus(value: LValue) -> ConsensusConfig:
    roster = field(value, "roster", nat_list)
    return ConsensusConfig(
        roster, field(value, "votes_file", get_str), field(value, "high_stakes", str_list)
    )


def _legacy_replicated(value: LValue) -> ReplicatedTool:
    return ReplicatedTool(field(value, "tool", get_str), field(value, "op_arg", path))


def _legacy_calibration(value: LValue) -> CalibrationConfig:
    enabled = field_default(value, "enabled", get_bool, False)
    delta_num = field(value, "delta_num", get_nat)
    delta_den = field(value, "delta_den", get_nat)
    if delta_num == 0 or delta_den <= delta_num:
        raise LeanError("calibration delta must satisfy 0 < delta < 1")
    min_samples = field(value, "min_samples", get_nat)
    records_file = field(value, "records_file", get_str)
    gated_tools = field(value, "gated_tools", str_list)
    return CalibrationConfig(enabled, delta_num, delta_den, min_samples, records_file, gated_tools)


def _legacy_linear(value: LValue) -> LinearConfig:
    grants_file = field(value, "grants_file", get_str)
    tools = field(
        value,
        "tools",
        lambda t: _array(
            t, lambda j: LinearTool(field(j, "tool", get_str), field(j, "cap_arg", path))
        ),
    )
    return LinearConfig(grants_file, tools)


def _legacy_budget(value: LValue) -> BudgetSpec:
    name = field(value, "name", get_str)
    cap = field(value, "cap", get_nat)
    tools = field(value, "tools", str_list)
    return BudgetSpec(name, cap, tools, field_opt(value, "cost_arg", path))
