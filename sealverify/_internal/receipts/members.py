"""Exact member sets: every level a receipt family defines holds its members and no others.

A member only another family defines (an Object B ``signature`` on a fleet receipt,
``release_frame`` on a host v2 record, ``effect_view`` on a fleet receipt) or no family
defines is refused, and so is a missing member the producer always writes. The sets follow
the producers: seal-host@099be66 ``rust/src/authorization_decision.rs`` (record, approval
block, effect view), ``rust/src/release.rs`` (v3 members, ``signed_artifacts``, the
``signature`` envelope), Lean ``Host/Audit.lean`` and ``Ffi.lean`` (the kernel output and
its audit line); seal-check@0632f31 ``receipt-format.js`` ``V1_KEY_ORDER``/``V2_KEY_ORDER``
and ``docs/DECISION-RECEIPT-SCHEMA.md`` §1 (fleet receipts, with the producer-local blocks
seal-live-demo writes). docs/claims.md holds one row for each member named here, and
tests/architecture/test_claims_doc.py holds the two to each other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from sealverify._internal import fastpath
from sealverify._internal.primitives.objectb import OBJECT_B_V1
from sealverify._internal.receipts.embedded import parse_embedded
from sealverify._internal.results.model import Check, fail, passed
from sealverify._internal.results.vocabulary import Family
from sealverify._internal.wire.spelling import pointer
from sealverify._internal.wire.strictjson import JsonError, JsonValue

__all__ = [
    "LEVELS",
    "Level",
    "member_checks",
    "table_key",
]

Doc = dict[str, JsonValue]
# When a member is required: a predicate on the receipt and the object holding the member.
Required = Callable[[Doc, Doc], bool] | None  # None: optional


def _always(doc: Doc, here: Doc) -> bool:
    return True


def _parsed(doc: Doc, here: Doc) -> bool:
    return doc.get("bypass") is not True and "request_parse_error" not in doc


def _unparsed(doc: Doc, here: Doc) -> bool:
    return "request_parse_error" in doc


def _mediated(doc: Doc, here: Doc) -> bool:
    return doc.get("bypass") is False


def _fleet_parsed(doc: Doc, here: Doc) -> bool:
    return "request_parse_error" not in doc


def _fleet_mediated_parsed(doc: Doc, here: Doc) -> bool:
    return doc.get("bypass") is False and "request_parse_error" not in doc


def _allow(doc: Doc, here: Doc) -> bool:
    return doc.get("verdict") == "ALLOW"


def _ed25519(doc: Doc, here: Doc) -> bool:
    return here.get("channel") == "ed25519" or _channel(here) == "ed25519"


def _channel(approval: Doc) -> JsonValue:
    identity = approval.get("approval_identity")
    return identity.get("channel") if isinstance(identity, dict) else None


def _with_issued_at(doc: Doc, here: Doc) -> bool:
    return "issued_at" in here


def _epoch(doc: Doc, here: Doc) -> bool:
    config = doc.get("kernel_config")
    return isinstance(config, dict) and "epoch" in config


def _with_policy_version(doc: Doc, here: Doc) -> bool:
    return "policy_version" in here


def _blocked(doc: Doc, here: Doc) -> bool:
    return here.get("route") == "block"


def _principal(doc: Doc, here: Doc) -> bool:
    return "principal" in doc


def _with(member: str) -> Callable[[Doc, Doc], bool]:
    def required(doc: Doc, here: Doc) -> bool:
        return member in doc

    return required


@dataclass(frozen=True, slots=True)
class Level:
    """One object level a family defines: where it is and the members it may hold.

    ``at`` is a normalized pointer: ``*`` any array index, ``#`` the JSON text a string member
    carries (``/emitted_bytes#/audit#`` is the audit line inside the kernel output).
    """

    at: str
    members: Mapping[str, Required]


_KERNEL_OUTPUT = (
    Level(
        "/emitted_bytes#",
        {"audit": _always, "route": _always, "response": _blocked, "principal": None},
    ),
    Level(
        "/emitted_bytes#/audit#",
        {
            "certs": _always,
            "epoch": _always,
            "request_sha256": None,
            "tool": _always,
            "verdict": _always,
        },
    ),
)
_CERTS = Level(
    "/certs/*", {"certHash": _always, "kernel": _always, "reason": _always, "verdict": _always}
)
_SIGNED_CONFIG = Level(
    "/signed_config", {"payload": _always, "signature": _always, "pubkey": _always}
)
_PROVENANCE = Level(
    "/asserted_provenance",
    {"verified_in_browser": _always, "lean_toolchain": _always, "axioms": _always, "note": _always},
)
_HOST_IDENTITY = Level(
    "/host_identity",
    {"native_executable_sha256": _always, "lean_ffi_sha256": _always, "equivalence": _always},
)
_EFFECT_VIEW = (
    Level(
        "/effect_view",
        {
            "schema": _always,
            "source": _always,
            "adapter": _always,
            "principal": _principal,
            "session": _always,
            "effect": _always,
            "raw_preimage_sha256": _always,
            "policy_hash": _always,
            "idempotency_key": _always,
            "policy_version": _epoch,
            "policy_version_enforced": _with_policy_version,
            "authoritative": _always,
        },
    ),
    Level("/effect_view/adapter", {"type": _always, "version": _always}),
    Level("/effect_view/principal", {"id": _always, "session": _always}),
    Level(
        "/effect_view/effect",
        {
            "resource": _always,
            "action": _always,
            "arguments": _always,
            "_meta": _with("_meta"),
            "requestState": _with("requestState"),
            "inputResponses": _with("inputResponses"),
        },
    ),
)


def _approval(host: bool) -> tuple[Level, ...]:
    identity: dict[str, Required] = {"channel": _always, "key_id": _ed25519}
    block: dict[str, Required] = {"approval_identity": _always}
    if host:
        block.update({"nonce": _ed25519, "issued_at": _ed25519, "expiry": _with_issued_at})
    else:
        block.update({"nonce": None, "issued_at": None, "expiry": _with_issued_at})
    block["policy_hash"] = _always
    return Level("/approval", block), Level("/approval/approval_identity", identity)


def _host_root(v3: bool, object_a: bool) -> Level:
    members: dict[str, Required] = {
        "record_type": _always,
        "record_version": _always,
        "tool": _parsed,
        "arguments": _parsed,
        "_meta": None,
        "requestState": None,
        "inputResponses": None,
        "args_hash": _parsed,
        "effect_view": _parsed,
        "now": _always,
        "canonical_request": _parsed,
        "canonical_request_sha256": _parsed,
        "request_sha256": _always,
        "framed_subject_sha256": _always,
        "framed_subject_length": _always,
        "principal": None,
        "request_parse_error": _unparsed,
        "bypass": _always,
        "verdict": _always,
        "authorization": _allow,
        "reason": _always,
        "deny_kernel": _always,
        "approval": None,
        "certs": _always,
        "emitted_bytes": _always,
        "kernel_identity": _always,
        "host_identity": _always,
        "asserted_provenance": _always,
        "signed_config": _always,
        "kernel_config": _always,
        "granted_capabilities": _always,
    }
    if object_a:
        members["signed_artifacts"] = _always
    if v3:
        members.update(
            {
                "release_status": _always,
                "operation_id": _always,
                "durability_class": _always,
                "release_valid_until": _allow,
                "post_state_hash": _allow,
                "release_frame": _allow,
                "signature": _always,
            }
        )
    return Level("/", members)


def _host(v3: bool, object_a: bool) -> tuple[Level, ...]:
    levels = [
        _host_root(v3, object_a),
        *_EFFECT_VIEW,
        *_approval(host=True),
        _CERTS,
        *_KERNEL_OUTPUT,
        Level("/kernel_identity", {"wasm_sha256": _always, "self_verified": _always, "note": None}),
        _HOST_IDENTITY,
        _PROVENANCE,
        _SIGNED_CONFIG,
        Level("/granted_capabilities/*", {"target": _always}),
    ]
    if object_a:
        levels.append(
            Level(
                "/signed_artifacts",
                {"encoding": _always, "object_a": _always, "approval_statement": _always},
            )
        )
    if v3:
        levels.append(
            Level(
                "/release_frame",
                {"encoding": _always, "length": _always, "sha256": _always, "base64": _always},
            )
        )
        levels.append(
            Level(
                "/signature",
                {
                    "domain": _always,
                    "algorithm": _always,
                    "public_key": _always,
                    "key_id": _always,
                    "encoding": _always,
                    "value": _always,
                },
            )
        )
    return tuple(levels)


def _fleet(family: str) -> tuple[Level, ...]:
    v2 = family == Family.V2
    root: dict[str, Required] = {
        "seal_live_receipt" if family == Family.V0_LIVE else "seal_receipt": _always,
        "tool": _fleet_parsed,
        "arguments": _fleet_parsed,
    }
    if v2:
        root.update({"action": None, "args_hash": _fleet_mediated_parsed})
    root.update({"now": None, "canonical_request": None, "canonical_request_sha256": _fleet_parsed})
    if v2:
        root.update({"request_sha256": _unparsed, "request_parse_error": None})
    root.update({"bypass": _always, "verdict": _always})
    if v2:
        root["authorization"] = None
    root.update({"reason": _always, "deny_kernel": _always})
    if v2:
        root.update({"amount": None, "merchant": None, "currency": None, "approval": None})
    root.update({"certs": _mediated, "emitted_bytes": _mediated, "kernel_identity": _always})
    if v2:
        root["host_identity"] = None
    root.update(
        {
            "asserted_provenance": None,
            "signed_config": None,
            "kernel_config": _mediated,
            "granted_capabilities": _mediated,
            "policy_id": None,
            "execution": None,
            "gateway": None,
        }
    )
    identity: dict[str, Required] = {"wasm_sha256": _always, "self_verified": None, "note": None}
    if family == Family.V0_LIVE:
        identity.update({"lean_toolchain": None, "axioms": None})
    levels = [
        Level("/", root),
        _CERTS,
        *_KERNEL_OUTPUT,
        Level("/kernel_identity", identity),
        _PROVENANCE,
        _SIGNED_CONFIG,
        Level(
            "/granted_capabilities/*",
            {"target": None, "tool": None, "arguments": None, "note": None},
        ),
    ]
    if v2:
        levels += [*_approval(host=False), _HOST_IDENTITY]
    return tuple(levels)


_SPINE = (
    Level(
        "/",
        {
            "receipt": _always,
            "at": _always,
            "decision": _always,
            "tool": _always,
            "arguments": _always,
            "child": None,
            "evidence": None,
            "refusal": None,
            "detail": None,
            "approvalRequest": None,
            "seal": _always,
        },
    ),
    Level(
        "/seal",
        {
            "alg": _always,
            "decision_sha256": _always,
            "tool_sha256": _always,
            "args_sha256": _always,
            "effect_sha256": _always,
            "sig": _always,
        },
    ),
)

LEVELS: dict[str, tuple[Level, ...]] = {
    "v3-b2": _host(v3=True, object_a=True),
    "v3-b1": _host(v3=True, object_a=False),
    Family.V2_HOST: _host(v3=False, object_a=False),
    Family.V2: _fleet(Family.V2),
    Family.V1: _fleet(Family.V1),
    Family.V0_LIVE: _fleet(Family.V0_LIVE),
    Family.SPINE: _SPINE,
}
"""Every exact level of every family (v3 by Object B domain), keyed like docs/claims.md."""


def table_key(doc: Doc, family: str) -> str:
    """The member-set key of a receipt: its family, v3 split by its Object B domain."""
    if family != Family.V3:
        return family
    signature = doc.get("signature")
    domain = signature.get("domain") if isinstance(signature, dict) else None
    return "v3-b1" if domain == OBJECT_B_V1 else "v3-b2"


def _objects(
    value: JsonValue, steps: Sequence[str], at: list[str | int]
) -> Iterator[tuple[list[str | int], Doc]]:
    """Every object a level pattern names, with its concrete location."""
    if not steps:
        if isinstance(value, dict):
            yield at, value
        return
    step, rest = steps[0], steps[1:]
    if step == "*":
        if isinstance(value, list):
            for index, item in enumerate(value):
                yield from _objects(item, rest, [*at, index])
    elif step == "#":
        if isinstance(value, str):
            try:
                inner = parse_embedded(value)
            except JsonError:
                return  # the bindings that read this text report why it is not JSON
            yield from _objects(inner, rest, [*at, "#"])
    elif isinstance(value, dict) and step in value:
        yield from _objects(value[step], rest, [*at, step])


def _steps(at: str) -> list[str]:
    steps: list[str] = []
    for part in at.replace("#", "/#").split("/"):
        if part:
            steps.append(part)
    return steps


@fastpath.cache(maxsize=64)
def _level_steps(at: str) -> tuple[str, ...]:
    """:func:`_steps` of a level's pointer, worked out once per level (a fixed set)."""
    return tuple(_steps(at))


def _where(at: list[str | int]) -> str:
    text = ""
    for step in at:
        text += "#" if step == "#" else pointer(step)
    return text or "/"


def _owners(name: str, key: str) -> list[str]:
    return [k for k, levels in LEVELS.items() if k != key and name in levels[0].members]


def member_checks(doc: Doc, family: str) -> list[Check]:
    """One ``receipt.members`` fail per unknown, foreign or missing member, else one pass.

    The fast path proves a clean receipt clean without the loops (:func:`_clean`, some 7 % of
    a receipt's verification); under ``SEALVERIFY_REFERENCE=1`` every level runs both loops.
    """
    if fastpath.reference():
        return _member_checks(doc, family, shortcut=False)
    key = table_key(doc, family)
    if _clean(doc, key):
        return [_members_pass(key)]
    return _member_checks(doc, family, shortcut=True)


def _members_pass(key: str) -> Check:
    known = _MEMBERS_PASSES.get(key)
    return known if known is not None else _member_pass(key)


def _member_pass(key: str) -> Check:
    return passed("receipt.members", f"every level holds exactly the members of family {key}")


# The pass of each key, made once (a check is immutable): every clean receipt shares it.
_MEMBERS_PASSES = {key: _member_pass(key) for key in LEVELS}


@dataclass(frozen=True, slots=True)
class _Plan:
    """One level as the proof reads it: its steps, member names and the names it may require."""

    steps: tuple[str, ...]
    named: bool  # every step is a member name (no ``*``, no ``#``)
    names: frozenset[str]
    required: Mapping[str, Callable[[Doc, Doc], bool]]  # the names that are not optional
    required_names: frozenset[str]


@fastpath.cache(maxsize=16)
def _plans(key: str) -> tuple[_Plan, ...]:
    """The proof's view of every level of ``key`` (a fixed set of keys)."""
    plans = []
    for level in LEVELS[key]:
        steps = _level_steps(level.at)
        required = {name: req for name, req in level.members.items() if req is not None}
        plans.append(
            _Plan(
                steps,
                "*" not in steps and "#" not in steps,
                frozenset(level.members),
                required,
                frozenset(required),
            )
        )
    return tuple(plans)


def _level_objects(doc: Doc, steps: tuple[str, ...]) -> list[JsonValue]:
    """The values at the end of these steps: :func:`_objects` keeps the objects among them."""
    values: list[JsonValue] = [doc]
    for step in steps:
        found: list[JsonValue] = []
        for value in values:
            if step == "*":
                if isinstance(value, list):
                    found.extend(value)
            elif step == "#":
                if isinstance(value, str):
                    try:
                        inner = parse_embedded(value)
                    except JsonError:  # _objects skips it too
                        continue
                    found.append(inner)
            elif isinstance(value, dict) and step in value:
                found.append(value[step])
        values = found
    return values


def _clean(doc: Doc, key: str) -> bool:
    """True only when :func:`_member_checks` would find nothing (the proof of its pass).

    Every object of every level holds no name outside the level's and lacks no name whose
    requirement holds: then neither of its loops can append a check. Anything else is left
    to the loops, which find and word each failure.
    """
    for plan in _plans(key):
        if plan.named:  # one object at most: follow the names (a JSON null is no object)
            here: JsonValue = doc
            for step in plan.steps:
                here = here.get(step) if isinstance(here, dict) else None
            if isinstance(here, dict) and not _holds_exactly(plan, doc, here):
                return False
            continue
        for value in _level_objects(doc, plan.steps):
            if isinstance(value, dict) and not _holds_exactly(plan, doc, value):
                return False
    return True


def _holds_exactly(plan: _Plan, doc: Doc, here: Doc) -> bool:
    """Whether ``here`` holds no name outside ``plan``'s and lacks none it requires."""
    # (set methods given the dict itself take C's dict fast paths)
    if not plan.names.issuperset(here):
        return False
    if len(here) == len(plan.names):
        return True  # every name of the level is here: none is absent
    required = plan.required
    for name in plan.required_names.difference(here):  # the absent, in any order
        if required[name](doc, here):
            break  # (a loop, not any() over a generator: this runs for most levels)
    else:
        return True
    return False


def _member_checks(doc: Doc, family: str, shortcut: bool) -> list[Check]:
    """:func:`member_checks`; without ``shortcut`` every level runs both loops (the oracle)."""
    key = table_key(doc, family)
    checks: list[Check] = []
    for level in LEVELS[key]:
        for at, here in _objects(doc, _level_steps(level.at), []):
            names = here.keys()
            # Set differences at C speed prove the common cases (no unknown member, no absent
            # one): each loop below, which finds and words the failures in order, runs only
            # when its difference is not empty (it could find nothing otherwise).
            unknown = names - level.members.keys()
            absent = level.members.keys() - names
            if shortcut and not unknown and not absent:
                continue
            where = _where(at)
            for name in here if unknown or not shortcut else ():
                if name in level.members:
                    continue
                owners = _owners(name, key) if level.at == "/" else []
                what = (
                    f"{name} is a member of family {', '.join(owners)}, not of {key}"
                    if owners
                    else f"{name} is not a member of {level.at} in family {key}"
                )
                checks.append(
                    fail("receipt.members", what, _join(where, name), member=name, level=level.at)
                )
            for name, required in level.members.items() if absent or not shortcut else ():
                if required is not None and name not in here and required(doc, here):
                    checks.append(
                        fail(
                            "receipt.members",
                            f"{name} is missing from {level.at}: the producer always writes it "
                            "here",
                            _join(where, name),
                            member=name,
                            level=level.at,
                        )
                    )
    return checks or [_members_pass(key)]


def _join(where: str, name: str) -> str:
    return (where if where != "/" else "") + pointer(name)
