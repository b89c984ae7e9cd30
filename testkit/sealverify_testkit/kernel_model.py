"""A small emulation of the safety and temporal kernels: enough to mint, not a verifier."""

from __future__ import annotations

from collections.abc import Sequence

from sealverify._internal.primitives import identities
from sealverify._internal.wire.strictjson import JsonValue
from sealverify_testkit.records import (
    Cert,
    Record,
)

# A small emulation of the safety and temporal kernels (enough for minting, not a verifier)


def policy_server(config: Record) -> str:
    server = config.get("server")
    safety = config.get("safety")
    if not isinstance(server, str) and isinstance(safety, dict):
        server = safety.get("server")
    return server if isinstance(server, str) else ""


def _matches(rule: Record, arguments: JsonValue) -> bool:
    match = rule.get("match")
    if match is None:
        return True
    if not isinstance(match, dict):
        raise ValueError("unsupported rule match")
    kind = match.get("type")
    if kind == "always":
        return True
    if kind == "contains_any_ci":
        arg = match.get("arg")
        needles = match.get("needles")
        value = arguments.get(arg) if isinstance(arguments, dict) and isinstance(arg, str) else None
        if not isinstance(value, str) or not isinstance(needles, list):
            return False
        return any(isinstance(n, str) and n.lower() in value.lower() for n in needles)
    raise ValueError(f"minting does not emulate match type {kind!r}")


def _safety_cert(
    config: Record, params: Record, approvals: Sequence[str], bind_context: bool
) -> Cert:
    """mcp-seal-dev ``Seal/Classify.lean`` ``resolveRuleDecisions``, then the approval step."""
    tool = params.get("name")
    safety = config.get("safety")
    rules = safety.get("tools") if isinstance(safety, dict) else None
    blocking: str | None = None
    guards: list[str] = []
    explicit = False
    for rule in rules if isinstance(rules, list) else []:
        if not isinstance(rule, dict) or rule.get("name") != tool:
            continue
        if not _matches(rule, params.get("arguments")):
            continue
        mode = rule.get("mode")
        if mode == "allow":
            explicit = True
        elif mode == "deny":
            blocking = blocking or f"flat deny: {tool}"
        elif mode in ("guard", "guarded"):
            # Any target spec the kernel's parser accepts (literal, arg, full_arguments; before
            # Stage A a guarded rule could hold any of them). A path that reaches no scalar is
            # the kernel's `invalid` decision, which blocks like a deny. bind_context: the
            # ruled target over the call's context; else the deployed host's (all absent).
            target = identities.spec_guard_target(
                str(tool),
                params.get("arguments"),
                policy_server(config),
                rule.get("target"),
                context=params if bind_context else None,
            )
            if target is None:
                blocking = blocking or f"missing target field: {tool}"
            else:
                guards.append(target)
    if blocking is not None:
        return Cert("safety", "deny", blocking)
    if guards:
        if any(g != guards[0] for g in guards):
            return Cert("safety", "deny", "ambiguous guard target")
        return Cert("safety", "allow" if guards[0] in approvals else "deny", guards[0])
    if explicit:
        return Cert("safety", "allow", "explicit policy allow")
    return Cert("safety", "deny", "no matching policy rule")


def decide(
    config: Record,
    params: Record,
    approvals: Sequence[str],
    temporal_events: int,
    *,
    bind_context: bool = True,
) -> list[Cert]:
    """The certs of one call, safety then temporal.

    ``bind_context``: the ruled guard target over the call's ``_meta``, ``requestState`` and
    ``inputResponses``; False gives the deployed host's form (every context pair "absent"),
    which verify flags as ``legacy.guard-target-omits-meta``.
    """
    temporal = Cert("temporal", "allow", f"trace ok ({temporal_events} events)")
    return [_safety_cert(config, params, approvals, bind_context), temporal]


def overall_verdict(certs: Sequence[Cert]) -> tuple[str, str, str | None]:
    deny = next((c for c in certs if c.verdict == "deny"), None)
    if deny is None:
        return "ALLOW", "every gating kernel allows", None
    return "BLOCK", f"{deny.kernel} kernel: {deny.reason}", deny.kernel
