"""The identities seal binds for one ``tools/call``, each by seal's own byte rule.

Upstream (cited in docs/byte-rules.md): seal-host@099be66 ``rust/src/authorization_decision.rs``
(canonical_request, args_hash), ``rust/src/envelope_v23.rs`` (``_meta`` key sort);
mcp-seal-dev@7d6d74b ``Seal/Classify.lean`` (guard target) and ``Seal/EffectCommitment.lean``
(effect commitments); ``Seal/Hash.lean`` (netstrings).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from sealverify._internal.wire import leanjson, serdejson
from sealverify._internal.wire.netstring import hash_parts
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue
from sealverify.errors import InputError

__all__ = [
    "EFFECT_V3_TAG",
    "EFFECT_V4_TAG",
    "GUARD_TARGET_TAG",
    "Identities",
    "TargetSpecError",
    "args_hash",
    "canonical_request",
    "compute",
    "context_parts",
    "effect_v3",
    "effect_v4",
    "guard_target",
    "legacy_canonical_request",
    "legacy_guard_target",
    "parts_guard_target",
    "sort_keys",
    "spec_guard_target",
    "target_spec_parts",
]

GUARD_TARGET_TAG = "seal.guard-target/v2-proposed-meta-all"
EFFECT_V3_TAG = "seal.effect/v3"
EFFECT_V4_TAG = "seal.effect/v4-proposed-meta-all"
_ABSENT = object()


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sort_keys(value: JsonValue, renumber: bool = False) -> JsonValue:
    """Recursively sort object keys by Unicode scalar (= UTF-8 byte order), arrays kept.

    With ``renumber``, each number is replaced by the spelling serde gives it after the
    host's extra render-and-reparse of ``_meta`` (``canonical_json`` then ``from_str``).
    """
    # A text is its own sorted form: kept as is, without a call (most members of a ``_meta``).
    if isinstance(value, dict):
        return {
            key: item if type(item) is str else sort_keys(item, renumber)
            for key, item in sorted(value.items())  # keys are distinct: items never compared
        }
    if isinstance(value, list):
        return [item if type(item) is str else sort_keys(item, renumber) for item in value]
    if renumber and isinstance(value, JsonNumber):
        return _renumber(value)
    return value


def _renumber(number: JsonNumber) -> JsonNumber:
    """The number as ``_meta`` holds it after the host's extra render-and-reparse.

    seal-host (rust/src/authorization_decision.rs ``canonical_request``, 099be66) parses the
    wire line, renders ``_meta`` with ``canonical_json``, parses that text again and renders
    the whole request: parse, render, parse, render. The lexeme returned here is the text of
    the first render; compacting it is the second. (Two renders, not three: serde's parse is
    not correctly rounded, so its text is not always a fixed point and a third round shows.)
    """
    return JsonNumber(serdejson.number_text(number))


def canonical_request(params: dict[str, JsonValue]) -> str:
    """seal-host's ``canonical_request`` for these wire params (current form, ``_meta`` bound).

    Compact serde JSON of ``{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{...}}``
    with ``name``, ``arguments``, then ``_meta`` (recursively key-sorted), ``requestState`` and
    ``inputResponses`` exactly when each is present on the wire (any value, null included).
    ``arguments`` and the MRTR members keep producer order. Raises ``ValueError`` when the
    host could not build it (then its receipt carries ``request_parse_error``).
    """
    name = params.get("name")
    arguments = params.get("arguments")
    if not isinstance(name, str):
        raise ValueError("mediated request lacks params.name")
    if not isinstance(arguments, dict):
        raise ValueError("mediated request lacks object params.arguments")
    # Written member by member: each member's text is what compacting the whole request
    # writes there. ``_meta`` first, as the host renders it (sorted, numbers twice) before the
    # request: a number serde refuses there is the refusal, even when arguments hold one too
    # (a second render never refuses: tests/perf/test_bindings_perf.py).
    meta = (
        serdejson.compact(params["_meta"], sort_keys=True, renumber=True)
        if "_meta" in params
        else None
    )
    called = serdejson.compact({"name": name, "arguments": arguments})  # '{"name":…}'
    line = [_REQUEST_HEAD, called[:-1]]
    if meta is not None:
        line += [',"_meta":', meta]
    for member in ("requestState", "inputResponses"):
        if member in params:
            line += [f',"{member}":', serdejson.compact(params[member])]
    line.append("}}")
    return "".join(line)


_REQUEST_HEAD = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'


def legacy_canonical_request(params: dict[str, JsonValue]) -> str:
    """The pre-``_meta`` projection (seal-host before f967783): ``{name, arguments}`` only."""
    subset: dict[str, JsonValue] = {k: params[k] for k in ("name", "arguments") if k in params}
    return canonical_request(subset)


def args_hash(arguments: JsonValue) -> str:
    """``sha256(serde_compact(arguments))`` in producer order (seal-host ``args_hash``)."""
    return _sha256(serdejson.compact(arguments))


def context_parts(params: dict[str, JsonValue]) -> list[str]:
    """The three (tag, value) netstring pairs for ``_meta``, ``requestState``, ``inputResponses``.

    Absent is ``"X.absent",""``; present is ``"X.present", compress(value)``. ``_meta`` must be
    an object when present (mcp-seal-dev ``Seal/Classify.lean`` refuses anything else).
    """
    parts: list[str] = []
    for member in ("meta", "requestState", "inputResponses"):
        value = params.get("_meta" if member == "meta" else member, _ABSENT)
        if value is _ABSENT:
            parts += [f"{member}.absent", ""]
        else:
            if member == "meta" and not isinstance(value, dict):
                raise ValueError("_meta is present but not an object")
            parts += [f"{member}.present", leanjson.compress(value)]
    return parts


def _kernel_arguments(params: dict[str, JsonValue]) -> str:
    """``compress(arguments)``; a missing ``arguments`` member is Lean ``null``."""
    return leanjson.compress(params.get("arguments"))


def guard_target(
    params: dict[str, JsonValue], server: str = "", *, bind_context: bool = True
) -> str:
    """The full-arguments guard target ``seal.guard-target/v2-proposed-meta-all``.

    ``sha256(encodeParts([tag, server?, tool, compress(arguments)] + context pairs))``; the
    server part is left out when empty. With ``bind_context=False`` every context pair is
    "absent", which is what seal-host@099be66's deployed safety kernel computes
    (``Kernels/Safety.lean`` calls the legacy ``classifyToolCall``).
    """
    tool = params.get("name")
    if not isinstance(tool, str):
        raise ValueError("tools/call lacks a string params.name")
    prefix = [GUARD_TARGET_TAG] + ([server] if server else []) + [tool]
    context = context_parts(params) if bind_context else context_parts({})
    return hash_parts([*prefix, _kernel_arguments(params), *context])


class TargetSpecError(InputError, ValueError):
    """A policy target spec the kernel's parser refuses (the policy would not load)."""


def _scalar_text(value: JsonValue) -> str | None:
    """mcp-seal-dev ``Seal/JsonUtil.lean`` ``jsonScalarToString``: None for arrays and objects."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, JsonNumber):
        return leanjson.number_text(leanjson.lean_number(value.lexeme))
    if value is None:
        return "null"
    return None


def target_spec_parts(spec: JsonValue, arguments: JsonValue) -> list[str] | None:
    """The target parts a guarded rule's spec resolves to against ``arguments``.

    Mirrors mcp-seal-dev@316d741 ``Seal/Policy.lean`` ``parseTargetPart`` and
    ``Seal/Classify.lean`` ``evalTargetParts``: a part with a ``literal`` is that string,
    whatever other members it has; otherwise it holds exactly one of ``arg`` (a dotted path,
    empty segments dropped as ``splitPath`` does, to a scalar written by
    ``jsonScalarToString``) and ``full_arguments: true`` (``compress(arguments)``). Raises
    :class:`TargetSpecError` for a spec the policy parser refuses; returns None when a path
    does not reach a scalar (the kernel then denies with ``missing target field``).
    """
    if not isinstance(spec, list):
        raise TargetSpecError("the target spec is not an array")
    parts: list[str] = []
    missing = False
    for index, item in enumerate(spec):
        if not isinstance(item, dict):
            raise TargetSpecError(f"target part {index} is not an object")
        if "literal" in item:
            literal = item["literal"]
            if not isinstance(literal, str):
                raise TargetSpecError(f"target part {index}: literal is not a string")
            parts.append(literal)
        elif "arg" in item and "full_arguments" not in item:
            path = item["arg"]
            if not isinstance(path, str):
                raise TargetSpecError(f"target part {index}: arg is not a string")
            value: JsonValue = arguments
            found = True
            for step in (s for s in path.split(".") if s):
                if not (isinstance(value, dict) and step in value):
                    found = False
                    break
                value = value[step]
            text = _scalar_text(value) if found else None
            missing = missing or text is None
            parts.append(text or "")
        elif "full_arguments" in item and "arg" not in item:
            if item["full_arguments"] is not True:
                raise TargetSpecError(f"target part {index}: full_arguments must be true")
            parts.append(leanjson.compress(arguments))
        else:
            raise TargetSpecError(
                f"target part {index} must hold exactly one of literal, arg, full_arguments"
            )
    return None if missing else parts


def spec_guard_target(
    tool: str,
    arguments: JsonValue,
    server: str,
    spec: JsonValue,
    *,
    legacy: bool = False,
    context: dict[str, JsonValue] | None = None,
) -> str | None:
    """The guard target of a call under a guarded rule's spec.

    ``[tag, server?, tool, *parts]`` and every context pair "absent", as the deployed kernel
    hashes it (seal-host@099be66 ``Kernels/Safety.lean`` calls the legacy
    ``classifyToolCall``); with ``context`` (the call's params, or just its ``_meta``,
    ``requestState``, ``inputResponses``) the ruled form, those pairs "present" with their
    complete values (ValueError for a ``_meta`` that is not an object); with ``legacy`` the
    untagged pre-2026-08-01 form ``[server?, tool, *parts]``. None when a path is missing;
    raises :class:`TargetSpecError` for a spec the policy parser refuses.
    """
    parts = target_spec_parts(spec, arguments)
    if parts is None:
        return None
    return parts_guard_target(tool, parts, server, legacy=legacy, context=context)


def parts_guard_target(
    tool: str,
    parts: list[str],
    server: str,
    *,
    legacy: bool = False,
    context: dict[str, JsonValue] | None = None,
) -> str:
    """:func:`spec_guard_target` of a spec already resolved to ``parts`` (resolved once)."""
    prefix = ([server] if server else []) + [tool]
    if legacy:
        return hash_parts([*prefix, *parts])
    return hash_parts([GUARD_TARGET_TAG, *prefix, *parts, *context_parts(context or {})])


def legacy_guard_target(params: dict[str, JsonValue], server: str = "") -> str:
    """The untagged full-arguments target (host before 2026-08-01): ``[server?, tool, args]``."""
    tool = params.get("name")
    if not isinstance(tool, str):
        raise ValueError("tools/call lacks a string params.name")
    return hash_parts(([server] if server else []) + [tool, _kernel_arguments(params)])


def effect_v3(params: dict[str, JsonValue], server: str = "") -> str:
    """``seal.effect/v3``: ``[tag, server, tool, compress(arguments)]`` (server always present)."""
    tool = params.get("name")
    if not isinstance(tool, str):
        raise ValueError("tools/call lacks a string params.name")
    return hash_parts([EFFECT_V3_TAG, server, tool, _kernel_arguments(params)])


def effect_v4(params: dict[str, JsonValue], server: str = "") -> str:
    """``seal.effect/v4-proposed-meta-all`` at mcp-seal-dev HEAD: v3 parts plus context pairs."""
    tool = params.get("name")
    if not isinstance(tool, str):
        raise ValueError("tools/call lacks a string params.name")
    parts = [EFFECT_V4_TAG, server, tool, _kernel_arguments(params), *context_parts(params)]
    return hash_parts(parts)


@dataclass(frozen=True, slots=True)
class Identities:
    """Every identity of one admissible ``tools/call``; None where seal cannot build one."""

    tool: str
    canonical_request: str | None
    canonical_request_sha256: str | None
    canonical_request_error: str | None
    legacy_canonical_request: str | None
    legacy_canonical_request_sha256: str | None
    args_hash: str | None
    guard_target: str
    guard_target_host: str
    legacy_guard_target: str
    effect_v3: str
    effect_v4: str
    rewritten_numbers: tuple[tuple[str, str], ...]


def _rewritten(value: JsonValue) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    stack: list[JsonValue] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, JsonNumber):
            text = serdejson.number_text(item)
            if text != item.lexeme:
                found.append((item.lexeme, text))
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return found


def compute(params: dict[str, JsonValue], server: str = "") -> Identities:
    """All identities of a validated ``tools/call``'s params (see each function's rule)."""
    tool = params.get("name")
    assert isinstance(tool, str)
    request: str | None
    legacy: str | None
    error: str | None = None
    try:
        request = canonical_request(params)
        legacy = legacy_canonical_request(params)
    except (ValueError, serdejson.NumberNotRepresentable) as exc:
        request = legacy = None
        error = str(exc)
    arguments = params.get("arguments")
    hashed: str | None = None
    if isinstance(arguments, dict):
        try:
            hashed = args_hash(arguments)
        except serdejson.NumberNotRepresentable as exc:
            error = error or str(exc)
    return Identities(
        tool=tool,
        canonical_request=request,
        canonical_request_sha256=_sha256(request) if request is not None else None,
        canonical_request_error=error,
        legacy_canonical_request=legacy,
        legacy_canonical_request_sha256=_sha256(legacy) if legacy is not None else None,
        args_hash=hashed,
        guard_target=guard_target(params, server),
        guard_target_host=guard_target(params, server, bind_context=False),
        legacy_guard_target=legacy_guard_target(params, server),
        effect_v3=effect_v3(params, server),
        effect_v4=effect_v4(params, server),
        rewritten_numbers=tuple(sorted(set(_rewritten(params)))),
    )
