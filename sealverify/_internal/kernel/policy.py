"""The safety policy: its parser and the classifier kernel S decides with.

Mirrors mcp-seal-dev ``Seal/Policy.lean`` (``parsePolicyJson`` through ``policyCodec``,
``parseMatch``, ``parseTargetPart``, the TTL clamp and the Stage-A guard-target rule) and
``Seal/Classify.lean`` (``matchSpec``, ``evalTargetParts``, ``evaluateRule``,
``resolveRuleDecisions``, ``classifyToolCall``). The deployed kernel classifies with
``classifyToolCall``, so every request-context pair of the guard target is "absent".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from sealverify._internal.kernel.hashes import stable_hash_parts
from sealverify._internal.kernel.ljson import (
    Absent,
    LeanError,
    LValue,
    ModelLimit,
    compress,
    get_arr,
    get_bool,
    get_nat,
    get_obj_val,
    get_obj_val_opt,
    get_str,
)
from sealverify._internal.kernel.lpath import at_path, contains_any_ci, scalar_text, split_path
from sealverify._internal.primitives.identities import GUARD_TARGET_TAG, context_parts

__all__ = [
    "GUARD_TARGET_TAG",
    "Classified",
    "MatchSpec",
    "Policy",
    "TargetPart",
    "ToolRule",
    "classify_tool_call",
    "parse_policy",
]

MAX_APPROVAL_TTL_SECONDS = 300
# ``ValidatedMeta.absent`` / ``RequestState.absent`` / ``InputResponses.absent`` preimage parts
# (``Seal/EffectCommitment.lean``): the deployed kernel classifies with every context absent.
_ABSENT_CONTEXT = tuple(context_parts({}))
GUARD_TARGET_ERROR = 'guard mode requires target [{"full_arguments": true}]'

TargetScheme = Literal["tagged-context", "untagged"]


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """``MatchSpec``: always / equals / starts_with / contains_any_ci / all / any."""

    kind: str
    path: tuple[str, ...] = ()
    value: str = ""
    needles: tuple[str, ...] = ()
    children: tuple[MatchSpec, ...] = ()


@dataclass(frozen=True, slots=True)
class TargetPart:
    """``TargetPart``: ``literal`` (value), ``arg`` (path) or ``full`` (the whole arguments)."""

    kind: str
    value: str = ""
    path: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolRule:
    name: str
    mode: str  # "allow" | "guarded" | "deny"
    matcher: MatchSpec
    target: tuple[TargetPart, ...]


@dataclass(frozen=True, slots=True)
class Policy:
    """``Seal.Policy``: the clamped TTL in ms, the control file, the server identity, rules."""

    approval_ttl_ms: int
    approval_file: str
    server_identity: str
    tools: tuple[ToolRule, ...]
    # The rules naming each tool, in policy order, indexed once: a call looks its tool up
    # rather than scanning every rule (a policy's size times the calls).
    by_tool: Mapping[str, tuple[ToolRule, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rules: dict[str, list[ToolRule]] = {}
        for rule in self.tools:
            rules.setdefault(rule.name, []).append(rule)
        object.__setattr__(self, "by_tool", {name: tuple(found) for name, found in rules.items()})


def _get_string_member(value: LValue, key: str) -> str:
    return get_str(get_obj_val(value, key))


def parse_match(value: LValue, depth: int = 0) -> MatchSpec:
    """``parseMatch``: permissive (unknown keys tolerated); ``arg`` read before ``value``."""
    if depth > 200:
        raise ModelLimit("match specs nested more than 200 deep")
    kind = _get_string_member(value, "type")
    if kind == "always":
        return MatchSpec("always")
    if kind in ("equals", "starts_with"):
        arg = tuple(split_path(_get_string_member(value, "arg")))
        return MatchSpec(kind, arg, _get_string_member(value, "value"))
    if kind == "contains_any_ci":
        arg = tuple(split_path(_get_string_member(value, "arg")))
        needles = tuple(get_str(item) for item in get_arr(get_obj_val(value, "needles")))
        return MatchSpec(kind, arg, needles=needles)
    if kind in ("all", "any"):
        specs = get_arr(get_obj_val(value, "matches"))
        return MatchSpec(kind, children=tuple(parse_match(s, depth + 1) for s in specs))
    raise LeanError(f"unsupported match type: {kind}")


def parse_target_part(value: LValue) -> TargetPart:
    """``parseTargetPart``: ``literal`` wins, else exactly one of ``arg``/``full_arguments``."""
    literal = get_obj_val_opt(value, "literal")
    if not isinstance(literal, Absent):
        return TargetPart("literal", value=get_str(literal))
    arg = get_obj_val_opt(value, "arg")
    full = get_obj_val_opt(value, "full_arguments")
    if not isinstance(arg, Absent) and isinstance(full, Absent):
        return TargetPart("arg", path=tuple(split_path(get_str(arg))))
    if isinstance(arg, Absent) and not isinstance(full, Absent):
        if get_bool(full):
            return TargetPart("full")
        raise LeanError("full_arguments must be true")
    raise LeanError("target part must contain exactly one of literal, arg, full_arguments")


_MODES = {"allow": "allow", "guard": "guarded", "guarded": "guarded", "deny": "deny"}


def _tool_rule(value: LValue, guard_target_full_arguments: bool) -> ToolRule:
    name = _get_string_member(value, "name")
    mode_text = get_str(get_obj_val(value, "mode"))
    mode = _MODES.get(mode_text)
    if mode is None:
        raise LeanError(f"unsupported tool mode: {mode_text}")
    match_json = get_obj_val_opt(value, "match")
    matcher = MatchSpec("always") if isinstance(match_json, Absent) else parse_match(match_json)
    target_json = get_obj_val_opt(value, "target")
    target: tuple[TargetPart, ...] = ()
    if not isinstance(target_json, Absent):
        if not isinstance(target_json, list):
            raise LeanError("target must be an array")
        target = tuple(parse_target_part(part) for part in target_json)
    if guard_target_full_arguments and mode == "guarded" and [p.kind for p in target] != ["full"]:
        raise LeanError(GUARD_TARGET_ERROR)
    return ToolRule(name, mode, matcher, target)


def parse_policy(value: LValue, *, guard_target_full_arguments: bool = True) -> Policy:
    """``parsePolicyJson``: approval (TTL default 120 s, clamped to 300 s), server, tools."""
    approval = get_obj_val(value, "approval")
    ttl_json = get_obj_val_opt(approval, "ttl_seconds")
    ttl_seconds = 120 if isinstance(ttl_json, Absent) else get_nat(ttl_json)
    control_file = get_str(get_obj_val(approval, "control_file"))
    server_json = get_obj_val_opt(value, "server")
    server = "" if isinstance(server_json, Absent) else get_str(server_json)
    tools = tuple(
        _tool_rule(rule, guard_target_full_arguments)
        for rule in get_arr(get_obj_val(value, "tools"))
    )
    return Policy(min(ttl_seconds, MAX_APPROVAL_TTL_SECONDS) * 1000, control_file, server, tools)


# --- classification (``Seal/Classify.lean``) ---------------------------------------------------


def match_spec(spec: MatchSpec, args: LValue) -> bool:
    if spec.kind == "always":
        return True
    if spec.kind in ("all", "any"):
        results = (match_spec(child, args) for child in spec.children)
        return all(results) if spec.kind == "all" else any(results)
    text = scalar_text(at_path(args, list(spec.path)))
    if text is None:
        return False
    if spec.kind == "equals":
        return text == spec.value
    if spec.kind == "starts_with":
        return text.startswith(spec.value)
    return contains_any_ci(text, list(spec.needles))


def eval_target_parts(parts: tuple[TargetPart, ...], args: LValue) -> list[str] | None:
    """``evalTargetParts``: literal text, an argument's scalar text, or the compressed args."""
    out: list[str] = []
    for part in parts:
        if part.kind == "literal":
            out.append(part.value)
        elif part.kind == "arg":
            text = scalar_text(at_path(args, list(part.path)))
            if text is None:
                return None
            out.append(text)
        else:
            out.append(compress(args))
    return out


def guard_target(policy: Policy, tool: str, parts: list[str], scheme: TargetScheme) -> str:
    """The guard target hex: ``guardTargetWithContext`` with every context pair absent.

    ``untagged`` is the pre-domain-tag form of older builds: SHA-256 over the part encoding of
    the server prefix, the tool and the resolved parts alone.
    """
    prefix = [tool] if not policy.server_identity else [policy.server_identity, tool]
    if scheme == "untagged":
        return stable_hash_parts([*prefix, *parts])
    return stable_hash_parts([GUARD_TARGET_TAG, *prefix, *parts, *_ABSENT_CONTEXT])


@dataclass(frozen=True, slots=True)
class Classified:
    """``HostEvent``: the SealCore event and the reason text kernel S reports.

    The event is ``guarded`` (with its target), ``benign`` or ``defaultDeny``.
    """

    event: str
    target: str
    reason: str


def classify_tool_call(
    policy: Policy, tool: str, args: LValue, scheme: TargetScheme = "tagged-context"
) -> Classified:
    """``classifyToolCall``: deny/invalid first, then one agreed guard target, then allow."""
    blocking: str | None = None
    guards: list[str] = []
    explicit_allow = False
    for rule in policy.by_tool.get(tool, ()):
        if not match_spec(rule.matcher, args):
            continue
        if rule.mode == "allow":
            explicit_allow = True
        elif rule.mode == "deny":
            blocking = blocking or f"flat deny: {tool}"
        else:
            parts = eval_target_parts(rule.target, args)
            if parts is None:
                blocking = blocking or f"missing target field: {tool}"
            else:
                guards.append(guard_target(policy, tool, parts, scheme))
    if blocking is not None:
        return Classified("defaultDeny", "", blocking)
    if guards:
        if all(target == guards[0] for target in guards):
            return Classified("guarded", guards[0], guards[0])
        return Classified("defaultDeny", "", "ambiguous guard target")
    if explicit_allow:
        return Classified("benign", "", "explicit policy allow")
    return Classified("defaultDeny", "", "no matching policy rule")
