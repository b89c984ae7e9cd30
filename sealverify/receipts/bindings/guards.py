"""Policy, guard targets and grants: what the safety kernel guards and what an approval granted."""

from __future__ import annotations

from sealverify.receipts.bindings.derived import (
    Derived,
    Doc,
    frame_params,
    mediated_parsed,
    pointer,
)
from sealverify.receipts.families import hex64
from sealverify.reports.model import Check, fail, info, passed
from sealverify.seal import identities
from sealverify.wire.strictjson import (
    JsonNumber,
    JsonValue,
)

__all__ = [
    "grants",
    "guard_target",
]


def _policy(doc: Doc) -> tuple[str, dict[str, dict[str, JsonValue]]]:
    config = doc.get("kernel_config")
    if not isinstance(config, dict):
        return "", {}
    safety = config.get("safety")
    safety = safety if isinstance(safety, dict) else {}
    server = config.get("server") or safety.get("server") or ""
    tools: dict[str, dict[str, JsonValue]] = {}
    entries = safety.get("tools")
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            tools.setdefault(str(entry["name"]), entry)
    return server if isinstance(server, str) else "", tools


def kernel_number_refusal(value: JsonValue) -> str | None:
    """Why the kernel would refuse a number in ``value`` (over 6 exponent digits), or None.

    seal-host ``Host/JsonWire.lean`` refuses such lines before parsing, so no receipt of a
    parsed request can carry one; refusing here also keeps Lean number expansion bounded.
    """
    stack: list[JsonValue] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, JsonNumber):
            _, _, exponent = item.lexeme.lower().partition("e")
            if len(exponent.lstrip("+-")) > 6:
                return f"number {item.lexeme[:40]} has more than 6 exponent digits"
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return None


def _targets(server: str, tool: str, spec: JsonValue, arguments: JsonValue) -> list[str]:
    """Guard targets this call can have: the tagged host form, then the pre-2026-08-01 form."""
    if kernel_number_refusal(arguments) is not None:
        return []
    try:
        tagged = identities.spec_guard_target(tool, arguments, server, spec)
        legacy = identities.spec_guard_target(tool, arguments, server, spec, legacy=True)
    except identities.TargetSpecError:
        return []
    return [tagged, legacy] if tagged is not None and legacy is not None else []


def _partial_spec(spec: JsonValue) -> list[Check]:
    """An info check when a guarded rule binds less than the full arguments.

    mcp-seal-dev f119487 (Stage A, 2026-07-21) refuses such a policy at load
    (``Seal/Policy.lean`` ``guardCheck``); a receipt that carries one came from an older policy
    parser, and its approvals cover only the parts the spec names.
    """
    # Lean's isFullArgumentsTarget holds for the parsed parts: one part that parses to
    # fullArguments (unknown members such as `_comment` are tolerated by the parser).
    only = spec[0] if isinstance(spec, list) and len(spec) == 1 else None
    if (
        isinstance(only, dict)
        and "literal" not in only
        and "arg" not in only
        and only.get("full_arguments") is True
    ):
        return []
    return [
        info(
            "binding.guard-target-spec",
            "the guarded rule's target spec is not [{full_arguments: true}]: the guard target "
            "and any approval of it cover only the parts the spec names; seal-host since "
            "Stage A (2026-07-21) refuses such a policy at load",
            pointer("kernel_config"),
        )
    ]


def safety_reason(doc: Doc) -> str | None:
    certs = doc.get("certs")
    for cert in certs if isinstance(certs, list) else []:
        if isinstance(cert, dict) and cert.get("kernel") == "safety":
            reason = cert.get("reason")
            return reason if isinstance(reason, str) else None
    return None


def _call_arguments(doc: Doc, derived: Derived) -> JsonValue:
    frame, _ = derived.object_a()
    params = frame_params(frame) if frame is not None else None
    if params is not None and "arguments" in params:
        return params["arguments"]
    return doc.get("arguments")


def guard_target(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """The safety cert reason, when it is a target, equals the guard target of the call.

    Computed as the deployed host kernel does (``Kernels/Safety.lean``: context pairs always
    "absent"), server from ``kernel_config``; Object A's wire arguments are used when present.
    The untagged pre-2026-08-01 form is accepted and reported as such.
    """
    if not mediated_parsed(doc) or not isinstance(doc.get("tool"), str):
        return []
    reason = safety_reason(doc)
    if reason is None or not hex64(reason):
        return [
            info(
                "binding.guard-target",
                "the safety cert reason is not a guard target",
                pointer("certs"),
            )
        ]
    server, tools = _policy(doc)
    entry = tools.get(str(doc["tool"]))
    if entry is None:
        return [
            fail(
                "binding.guard-target",
                "the safety cert names a target, but the policy has no rule for this tool",
                pointer("kernel_config"),
            )
        ]
    arguments = _call_arguments(doc, derived or Derived(doc))
    refusal = kernel_number_refusal(arguments)
    if refusal is not None:
        return [
            fail(
                "binding.guard-target",
                f"the kernel refuses these arguments: {refusal}",
                pointer("arguments"),
            )
        ]
    targets = _targets(server, str(doc["tool"]), entry.get("target"), arguments)
    if not targets:
        return [
            fail(
                "binding.guard-target",
                "the policy target spec of this tool cannot be resolved against the arguments",
                pointer("kernel_config"),
            )
        ]
    partial = _partial_spec(entry.get("target"))
    if reason == targets[0]:
        return [
            passed(
                "binding.guard-target",
                "safety reason = guard target of the call (seal.guard-target/v2)",
                pointer("certs"),
            ),
            *partial,
        ]
    if reason == targets[1]:
        return [
            passed(
                "binding.guard-target",
                "safety reason = legacy untagged guard target (host before 2026-08-01)",
                pointer("certs"),
            ),
            *partial,
        ]
    return [
        fail(
            "binding.guard-target",
            f"safety reason {reason} is not the guard target of the call ({targets[0]})",
            pointer("certs"),
            expected=targets[0],
        )
    ]


def grants(doc: Doc, derived: Derived | None = None) -> list[Check]:
    """Grants resolve from the policy; an approval ALLOW's safety reason is a granted target."""
    if doc.get("bypass") is not False or not isinstance(doc.get("granted_capabilities"), list):
        return []
    server, tools = _policy(doc)
    resolved: set[str] = set()
    errors: list[str] = []
    grants_list = doc["granted_capabilities"]
    assert isinstance(grants_list, list)
    for index, grant in enumerate(grants_list):
        if not isinstance(grant, dict):
            errors.append(f"grant {index} is not an object")
        elif hex64(grant.get("target")):
            resolved.add(str(grant["target"]))
        elif isinstance(grant.get("tool"), str):
            entry = tools.get(str(grant["tool"]))
            found = (
                _targets(server, str(grant["tool"]), entry.get("target"), grant.get("arguments"))
                if entry
                else []
            )
            if not found:
                errors.append(f"grant {index} ({grant['tool']}) does not resolve under the policy")
            resolved.update(found)
        else:
            errors.append(f"grant {index} has neither a target nor a tool")
    checks: list[Check] = []
    if errors:
        checks.append(fail("binding.grants", "; ".join(errors), pointer("granted_capabilities")))
    if (
        doc.get("verdict") == "ALLOW"
        and doc.get("authorization") != "explicit_policy_allow"
        and "request_parse_error" not in doc
    ):
        reason = safety_reason(doc)
        if reason is not None and reason in resolved:
            checks.append(
                passed(
                    "binding.approval-grant",
                    "the approved target (safety reason) is a granted capability",
                    pointer("granted_capabilities"),
                )
            )
        else:
            checks.append(
                fail(
                    "binding.approval-grant",
                    "the ALLOW's safety reason is not among the granted targets",
                    pointer("granted_capabilities"),
                )
            )
    return checks
