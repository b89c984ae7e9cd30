"""Policy, guard targets and grants: what the safety kernel guards and what an approval granted."""

from __future__ import annotations

import contextlib

from sealverify._internal.primitives import identities
from sealverify._internal.receipts.bindings.derived import (
    Derivations,
    Doc,
    mediated_parsed,
    pointer,
)
from sealverify._internal.receipts.families import hex64
from sealverify._internal.results.model import Check, fail, info, passed
from sealverify._internal.wire.strictjson import (
    JsonNumber,
    JsonValue,
)

__all__ = [
    "grants",
    "guard_target",
    "legacy_target_finding",
    "safety_reason",
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


def _targets(
    server: str,
    tool: str,
    spec: JsonValue,
    arguments: JsonValue,
    context: dict[str, JsonValue] | None = None,
) -> dict[str, str]:
    """The guard targets this call can have, by form (empty when none can be computed).

    ``ruled``: ``seal.guard-target/v2-proposed-meta-all`` over the call's complete ``_meta``,
    ``requestState`` and ``inputResponses`` (the ruling; mcp-seal-dev ``Seal/Classify.lean``
    ``guardTargetWithContext``). ``absent``: the same tag with every context pair "absent",
    what the deployed host kernel computes (``Kernels/Safety.lean``). ``untagged``: the form
    of hosts before 2026-08-01. With no context member the ruled and absent forms coincide.
    """
    if kernel_number_refusal(arguments) is not None:
        return {}
    try:
        parts = identities.target_spec_parts(spec, arguments)  # resolved once for every form
    except identities.TargetSpecError:
        return {}
    if parts is None:
        return {}
    found = {
        "absent": identities.parts_guard_target(tool, parts, server),
        "untagged": identities.parts_guard_target(tool, parts, server, legacy=True),
    }
    # A _meta that is not an object has no ruled target: the kernel refuses such a call.
    with contextlib.suppress(ValueError):
        found["ruled"] = identities.parts_guard_target(tool, parts, server, context=context or {})
    return found


def _call_targets(
    server: str,
    tool: str,
    spec: JsonValue,
    arguments: JsonValue,
    context: dict[str, JsonValue],
    reason: str,
) -> dict[str, str]:
    """The forms of :func:`_targets` that :func:`_judge_target` reads, for a safety ``reason``.

    The arguments' numbers were judged by the caller. :func:`_judge_target` takes the first
    form equal to ``reason`` in the order ruled, absent, untagged, and names ruled (or absent)
    when none is: so the forms after the first equal one are not worked out. Each form hashes
    a subset of the strings of the ruled one, so leaving one out never hides an error.
    """
    try:
        parts = identities.target_spec_parts(spec, arguments)
    except identities.TargetSpecError:
        return {}
    if parts is None:
        return {}
    found: dict[str, str] = {}
    with contextlib.suppress(ValueError):
        found["ruled"] = identities.parts_guard_target(tool, parts, server, context=context)
    if found.get("ruled") == reason:
        return found
    found["absent"] = identities.parts_guard_target(tool, parts, server)
    if found["absent"] == reason:
        return found
    found["untagged"] = identities.parts_guard_target(tool, parts, server, legacy=True)
    return found


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


def _call_context(doc: Doc, derived: Derivations) -> tuple[JsonValue, dict[str, JsonValue]]:
    """The call's arguments and context members: the frame's (Object A) or the record's."""
    frame, _ = derived.request_frame()
    params = derived.view.request_params() if frame is not None else None
    source: dict[str, JsonValue] = params if params is not None else doc
    arguments = source.get("arguments", doc.get("arguments"))
    context: dict[str, JsonValue] = {
        m: source[m] for m in ("_meta", "requestState", "inputResponses") if m in source
    }
    return arguments, context


def _context_names(context: dict[str, JsonValue]) -> list[str]:
    meta = context.get("_meta")
    names = [f"_meta.{key}" for key in sorted(meta)] if isinstance(meta, dict) else []
    if "_meta" in context and not names:
        names.append("_meta")
    return names + [m for m in ("requestState", "inputResponses") if m in context]


def safety_reason(doc: Doc) -> str | None:
    certs = doc.get("certs")
    for cert in certs if isinstance(certs, list) else []:
        if isinstance(cert, dict) and cert.get("kernel") == "safety":
            reason = cert.get("reason")
            return reason if isinstance(reason, str) else None
    return None


def guard_target(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """The safety cert reason, when it is a target, is the guard target of the call.

    The ruled target (complete ``_meta``, ``requestState``, ``inputResponses``) passes. The
    deployed host's form, context pairs "absent", and the untagged pre-2026-08-01 form
    recompute too, but while the call carries context members they leave them unbound:
    ``legacy.guard-target-omits-meta`` fails naming them (a grant for one ``_meta`` would
    authorise a frame with another). Server from ``kernel_config``; the frame's wire
    arguments and context when the receipt carries Object A.
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
    arguments, context = _call_context(doc, derived or Derivations(doc))
    refusal = kernel_number_refusal(arguments)
    if refusal is not None:
        return [
            fail(
                "binding.guard-target",
                f"the kernel refuses these arguments: {refusal}",
                pointer("arguments"),
            )
        ]
    targets = _call_targets(
        server, str(doc["tool"]), entry.get("target"), arguments, context, reason
    )
    if not targets:
        return [
            fail(
                "binding.guard-target",
                "the policy target spec of this tool cannot be resolved against the arguments",
                pointer("kernel_config"),
            )
        ]
    return [*_judge_target(reason, targets, context), *_partial_spec(entry.get("target"))]


_FORMS = {
    "ruled": "the ruled guard target of the call (seal.guard-target/v2-proposed-meta-all)",
    "absent": "the deployed host's guard target of the call (context pairs absent)",
    "untagged": "the legacy untagged guard target of hosts before 2026-08-01",
}


def _judge_target(
    reason: str, targets: dict[str, str], context: dict[str, JsonValue]
) -> list[Check]:
    where = pointer("certs")
    form = next((f for f in ("ruled", "absent", "untagged") if targets.get(f) == reason), None)
    if form is None:
        expected = targets.get("ruled", targets["absent"])
        return [
            fail(
                "binding.guard-target",
                f"safety reason {reason} is not the guard target of the call ({expected})",
                where,
                expected=expected,
            )
        ]
    checks = [passed("binding.guard-target", f"safety reason = {_FORMS[form]}", where)]
    names = _context_names(context)
    if not names:
        return checks
    if form == "ruled":
        checks.append(
            passed(
                "legacy.guard-target-omits-meta",
                "the guard target binds the call's context: " + ", ".join(names),
                where,
            )
        )
        return checks
    checks.append(legacy_target_finding(names, where))
    return checks


def legacy_target_finding(names: list[str], where: str) -> Check:
    """``legacy.guard-target-omits-meta``: a target that leaves the call's context unbound."""
    return fail(
        "legacy.guard-target-omits-meta",
        "the guard target was computed with the context pairs absent while the call carries "
        f"them, so these stay unbound (an approval for this target authorises the call with "
        f"any other values): {', '.join(names)}",
        where,
        keys=names,
    )


def grants(doc: Doc, derived: Derivations | None = None) -> list[Check]:
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
                else {}
            )
            if not found:
                errors.append(f"grant {index} ({grant['tool']}) does not resolve under the policy")
            resolved.update(found.values())
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
