"""ApprovalRecord v2 tokens: exact members, the approval renderer, approver signature, bindings.

Upstream: seal-host@099be66 ``rust/src/providers.rs`` (``ApprovalRecordV2Payload``,
``write_canonical_json``, ``verify_approval_record_v2_token``, ``validate_approval_v2_payload``,
``matches_framed_subject``, ``filter_approval_context``, the v1 refusal) and ``docs/DEPLOY.md``
§9. A token is one NDJSON line ``{"payload","signature_algorithm","signature_encoding",
"signer_key_id","signature"}``; the signature is Ed25519 over ``"seal.approval-record/v2" 0x00 ||
payload`` and the payload must be byte-equal to its re-render by :func:`render`. The target is
compared with the guard target the deployed seal-host kernel computes from the frame, which
never binds ``_meta``/``requestState``/``inputResponses`` (``Kernels/Safety.lean`` calls the
legacy ``classifyToolCall``; ``identities.guard_target(..., bind_context=False)``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

from sealverify._internal.approvals.record import (
    DOMAIN,
    HEX_DIGITS,
    PAYLOAD_MEMBERS,
    PAYLOAD_RULES,
    RENDERER_MEMBERS,
    RENDERER_RULES,
    TOKEN_MEMBERS,
    NotRenderable,
    hex64_rule,
    render,
    signature_preimage,
)
from sealverify._internal.primitives import publishedkeys
from sealverify._internal.primitives.identities import guard_target, spec_guard_target
from sealverify._internal.primitives.signatures import b64url_nopad_decode, ed25519_verify, key_id
from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, fail, info, not_evaluated, passed, reduced
from sealverify._internal.results.outcomes import Outcome, Vocabulary, decide
from sealverify._internal.results.waivers import apply_waivers, waivable
from sealverify._internal.wire.framing import raw_line, sha256_hex
from sealverify._internal.wire.spelling import HEX64
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonValue,
    parse_bytes,
    parse_text,
    uint_value,
)

__all__ = [
    "VOCABULARIES",
    "TokenContext",
    "TokenResult",
    "check_token",
    "frame_guard_target",
    "judge_token",
    "split_tokens",
    "token_outcome",
]


Kind = Literal["v2", "v1-decline", "v1-allow", "invalid"]


@dataclass(frozen=True, slots=True)
class TokenResult:
    """One token judged: its kind, checks, and the payload facts later bindings need."""

    location: str
    kind: Kind
    checks: tuple[Check, ...]
    payload_bytes: bytes = b""
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """A v2 token that is VALID: every check holds and its key's authority is not capped."""
        return self.kind == "v2" and self.outcome == Outcome.VALID

    @property
    def outcome(self) -> Outcome:
        """VALID, UNPINNED, INVALID, REFUSED (a v1 allow) or DECLINE: see token_outcome."""
        return token_outcome(self.kind, self.checks)


# What each kind of token is called under the one rule (results/outcomes.py ``decide``). Fail
# closed: a failing check makes a v2 token or a v1 decline INVALID, so a decline is readable only
# when its signature verifies under the pinned key and every other check holds. A v1 allow is
# REFUSED whatever its signature. A valid v2 token whose key's authority is not established (a
# check that caps at UNPINNED not evaluated, such as ``authority.published-key``) is UNPINNED.
VOCABULARIES: Mapping[Kind, Vocabulary] = MappingProxyType(
    {
        "v2": Vocabulary(passed=Outcome.VALID, failed=Outcome.INVALID, unpinned=Outcome.UNPINNED),
        "v1-decline": Vocabulary(passed=Outcome.DECLINE, failed=Outcome.INVALID),
        "v1-allow": Vocabulary(passed=Outcome.REFUSED, failed=Outcome.REFUSED),
        "invalid": Vocabulary(passed=Outcome.INVALID, failed=Outcome.INVALID),
    }
)


def token_outcome(kind: Kind, checks: Sequence[Check]) -> Outcome:
    """The outcome of one judged token, ``checks`` being its checks plus any the caller adds.

    The one rule in the words :data:`VOCABULARIES` declares for ``kind``.
    """
    return decide(checks, VOCABULARIES[kind]).outcome


def split_tokens(data: bytes, source: str = "", first: int = 1) -> list[tuple[str, bytes]]:
    """The token lines of an NDJSON file as ``(location, bytes)``; blank lines are skipped.

    Each line is kept exactly as written apart from its LF, so surrounding whitespace (which
    seal-host refuses on a v2 line) stays visible to :func:`check_token`. ``first`` is the
    number of ``data``'s first line, for a file read a line at a time.
    """
    lines: list[tuple[str, bytes]] = []
    for number, line in enumerate(data.split(b"\n"), start=first):
        if line.strip():
            lines.append((f"{source}:{number}" if source else f"line {number}", line))
    return lines


def frame_guard_target(
    frame: bytes, server: str = "", spec: JsonValue | None = None, *, bind_context: bool = True
) -> str:
    """The guard target of one exact frame's call (stdio line).

    The frame's raw line (one LF, then one CR removed) must be a ``tools/call`` request; the
    target is ``guard_target(params, server)``, or with ``spec`` (the guarded rule's ``target``
    from the policy) ``spec_guard_target``: the ruled form over the call's complete ``_meta``,
    ``requestState`` and ``inputResponses``, or, with ``bind_context=False``, what the deployed
    seal-host kernel computes (every context pair "absent"). Raises ValueError.
    """
    try:
        message = parse_bytes(raw_line(frame))
    except JsonError as exc:
        raise ValueError(f"the frame is not strict JSON: {exc}") from None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        raise ValueError("the frame is not a tools/call request")
    params = message.get("params")
    if not isinstance(params, dict):
        raise ValueError("the frame's params is not an object")
    if spec is None:
        return guard_target(params, server, bind_context=bind_context)
    tool = params.get("name")
    if not isinstance(tool, str):
        raise ValueError("tools/call lacks a string params.name")
    context = params if bind_context else None
    target = spec_guard_target(tool, params.get("arguments"), server, spec, context=context)
    if target is None:
        raise ValueError("the target spec names an argument the call does not carry")
    return target


def _context_names(frame: bytes) -> list[str]:
    """The context members a frame's call carries (``_meta`` keys named), for the legacy flag."""
    try:
        message = parse_bytes(raw_line(frame))
    except JsonError:
        return []
    params = message.get("params") if isinstance(message, dict) else None
    if not isinstance(params, dict):
        return []
    meta = params.get("_meta")
    names = [f"_meta.{key}" for key in sorted(meta)] if isinstance(meta, dict) else []
    if "_meta" in params and not names:
        names.append("_meta")
    return names + [m for m in ("requestState", "inputResponses") if m in params]


def check_token(
    line: bytes,
    approver_key: bytes,
    *,
    frame: bytes | None = None,
    server: str = "",
    at_ms: int | None = None,
    location: str = "",
    target_spec: JsonValue | None = None,
    subject: tuple[str, int] | None = None,
    at_what: str = "",
    allow_published_keys: bool = False,
    waive: Iterable[str] = (),
) -> TokenResult:
    """Judge one approval token line as ``sealverify approval`` does, key authority included.

    :func:`judge_token` judges the token's bytes and bindings against the
    :class:`TokenContext` the keywords make; then the key and the waivers.
    An approver key whose secret is published (``sealverify explain authority.published-key``)
    adds an ``authority.published-key`` check that caps a valid token at UNPINNED (``ok`` is
    False), unless ``allow_published_keys``, which makes it info. ``waive`` names legacy
    checks the user waives (``sealverify._internal.results.waivers.WAIVABLE`` only, else
    :class:`OptionError`): a waived failure is shown as waived, never as a pass.
    """
    waivers = waivable((waive,) if isinstance(waive, str) else waive)  # one id, not its letters
    context = TokenContext(frame, server, at_ms, at_what, subject, target_spec)
    result = judge_token(line, approver_key, context, location)
    checks = list(result.checks)
    published = publishedkeys.lookup(approver_key.hex())
    if published is not None:
        checks.append(publishedkeys.check_key("approver", published, "", allow_published_keys))
    return replace(result, checks=tuple(apply_waivers(checks, waivers)))


@dataclass(frozen=True, slots=True)
class TokenContext:
    """What a token is judged against, built once by the caller and passed down unchanged.

    ``frame`` is the exact call (stdio line) the approval must cover; without it, ``subject``
    (sha256 and length of the framed subject a receipt signs) is compared with the token's
    subject. ``server`` is the kernel's server name and ``target_spec`` the guarded rule's
    target spec from the policy (None: the full-arguments target). ``at_ms`` is the time to
    judge validity at (a receipt's signed ``now``, or the current time) and ``at_what`` names
    it in the reasons; ``no_time`` says why there is no time to judge at (a receipt's ``now``
    that no verified signature covers), shown when ``at_ms`` is None.
    """

    frame: bytes | None = None
    server: str = ""
    at_ms: int | None = None
    at_what: str = ""
    subject: tuple[str, int] | None = None
    target_spec: JsonValue | None = None
    no_time: str = ""


_NO_CONTEXT = TokenContext()


def judge_token(
    line: bytes,
    approver_key: bytes,
    context: TokenContext = _NO_CONTEXT,
    location: str = "",
) -> TokenResult:
    """Judge one approval token line against a pinned approver key and ``context``.

    v2 tokens get every check; v1 allows are refused; a v1 decline is read (reported as info)
    only when its signature verifies under the pinned key and it carries nonce and issuedAt,
    else it is ``invalid``. Without a frame or a subject in ``context`` the token's subject
    and target are not bound; without a time its expiry is not judged.
    """
    try:
        outer = parse_bytes(line)
    except JsonError as exc:
        return TokenResult(
            location,
            "invalid",
            (fail("approval.token-json", f"token is not strict JSON: {exc}", location),),
        )
    if not isinstance(outer, dict) or not isinstance(outer.get("payload"), str):
        return TokenResult(
            location,
            "invalid",
            (
                fail(
                    "approval.token-json", "token is not an object with a string payload", location
                ),
            ),
        )
    payload_text = outer["payload"]
    assert isinstance(payload_text, str)
    try:
        payload = parse_text(payload_text)
    except JsonError as exc:
        return TokenResult(
            location,
            "invalid",
            (fail("approval.payload-json", f"payload is not strict JSON: {exc}", location),),
        )
    if isinstance(payload, dict) and "approval_record_version" in payload:
        return _check_v2(line, outer, payload_text, payload, approver_key, context, location)
    return _check_v1(outer, payload_text, payload, approver_key, location)


def _check_v2(
    line: bytes,
    outer: dict[str, JsonValue],
    payload_text: str,
    payload: dict[str, JsonValue],
    key: bytes,
    context: TokenContext,
    loc: str,
) -> TokenResult:
    payload_bytes = payload_text.encode("utf-8")

    def at(member: str) -> str:
        return f"{loc} payload.{member}" if loc else f"payload.{member}"

    checks = _token_checks(line, outer, key, loc)
    signer = outer.get("signer_key_id")
    checks.extend(_payload_checks(payload, signer, at, loc))
    checks.append(_canonical_check(payload, payload_bytes, loc))
    checks.append(_signature_check(outer.get("signature"), key, payload_bytes, loc))
    target = payload.get("target")
    checks.extend(_binding_checks(payload, context, at, loc))
    authorized = uint_value(payload.get("authorized_at"))
    expiry = uint_value(payload.get("expiry"))
    checks.extend(_time_checks(context, authorized, expiry, at, loc))
    facts: dict[str, Any] = {
        "target": target if isinstance(target, str) else None,
        "nonce": payload.get("nonce") if isinstance(payload.get("nonce"), str) else None,
        "authorized_at": authorized,
        "expiry": expiry,
        # the key id the token names: a run whose pin matched none says what they name
        "signer_key_id": signer if isinstance(signer, str) and HEX64.fullmatch(signer) else None,
    }
    return TokenResult(loc, "v2", tuple(checks), payload_bytes, facts)


def _token_checks(line: bytes, outer: dict[str, JsonValue], key: bytes, loc: str) -> list[Check]:
    """The token line itself: no surrounding whitespace, its members, algorithm and signer."""
    checks: list[Check] = []
    if line != line.strip():
        checks.append(
            fail(
                "approval.token-whitespace",
                "a v2 token line must carry no surrounding whitespace",
                loc,
            )
        )
    extra = sorted(outer.keys() - TOKEN_MEMBERS)
    missing = sorted(TOKEN_MEMBERS - outer.keys())
    if extra or missing:
        checks.append(
            fail(
                "approval.token-members",
                "token members must be exactly "
                + ", ".join(sorted(TOKEN_MEMBERS))
                + _diff(extra, missing),
                loc,
                unknown=extra,
                missing=missing,
            )
        )
    else:
        checks.append(passed("approval.token-members", "token has exactly the v2 members", loc))
    if outer.get("signature_algorithm") != "Ed25519":
        checks.append(
            fail(
                "approval.signature-algorithm",
                "signature_algorithm must be 'Ed25519'",
                f"{loc} signature_algorithm",
            )
        )
    if outer.get("signature_encoding") != "base64url-nopad":
        checks.append(
            fail(
                "approval.signature-encoding",
                "signature_encoding must be 'base64url-nopad'",
                f"{loc} signature_encoding",
            )
        )
    pinned_id = key_id(key)
    signer = outer.get("signer_key_id")
    if signer != pinned_id:
        checks.append(
            fail(
                "approval.signer-key-id",
                f"signer_key_id {signer!r} is not the pinned approver key's id {pinned_id}",
                f"{loc} signer_key_id",
            )
        )
    else:
        checks.append(passed("approval.signer-key-id", "signed for the pinned approver key", loc))
    return checks


def _payload_checks(
    payload: dict[str, JsonValue], signer: JsonValue, at: Callable[[str], str], loc: str
) -> list[Check]:
    """The payload's members: exactly the v2 set, each of its type and value, and consistent."""
    checks: list[Check] = []
    extra = sorted(payload.keys() - PAYLOAD_MEMBERS)
    missing = sorted(PAYLOAD_MEMBERS - payload.keys())
    if extra or missing:
        checks.append(
            fail(
                "approval.payload-members",
                "payload members must be exactly the "
                "19 ApprovalRecord v2 members" + _diff(extra, missing),
                loc,
                unknown=extra,
                missing=missing,
            )
        )
    problems: list[Check] = []
    for name in sorted(PAYLOAD_MEMBERS & payload.keys()):
        problem = PAYLOAD_RULES[name](payload[name])
        if problem:
            problems.append(fail("approval.member", f"{name} {problem}", at(name), member=name))
    renderer = payload.get("renderer")
    if isinstance(renderer, dict):
        problems.extend(_renderer_checks(renderer, at))
    problems.extend(_consistency_checks(payload, signer, at))
    checks.extend(problems)
    if not problems and not extra and not missing:
        checks.append(
            passed("approval.members", "every payload member has its v2 type and value", loc)
        )
    return checks


def _renderer_checks(renderer: dict[str, JsonValue], at: Callable[[str], str]) -> list[Check]:
    """The payload's ``renderer`` object: exactly its three members, each of its type."""
    problems: list[Check] = []
    r_extra = sorted(renderer.keys() - RENDERER_MEMBERS)
    r_missing = sorted(RENDERER_MEMBERS - renderer.keys())
    if r_extra or r_missing:
        problems.append(
            fail(
                "approval.member",
                "renderer members must be exactly name, "
                "version, manifest_sha256" + _diff(r_extra, r_missing),
                at("renderer"),
                member="renderer",
            )
        )
    for name in sorted(RENDERER_MEMBERS & renderer.keys()):
        problem = RENDERER_RULES[name](renderer[name])
        if problem:
            problems.append(
                fail(
                    "approval.member",
                    f"renderer.{name} {problem}",
                    at(f"renderer.{name}"),
                    member=f"renderer.{name}",
                )
            )
    return problems


def _consistency_checks(
    payload: dict[str, JsonValue], signer: JsonValue, at: Callable[[str], str]
) -> list[Check]:
    """Members that must agree: the signer named twice, and expiry not before authorization."""
    problems: list[Check] = []
    if payload.get("authorization_signer_key_id") != signer:
        problems.append(
            fail(
                "approval.member",
                "authorization_signer_key_id differs from the token's signer_key_id",
                at("authorization_signer_key_id"),
                member="authorization_signer_key_id",
            )
        )
    authorized = uint_value(payload.get("authorized_at"))
    expiry = uint_value(payload.get("expiry"))
    if authorized is not None and expiry is not None and expiry < authorized:
        problems.append(
            fail(
                "approval.member",
                f"expiry {expiry} precedes authorized_at {authorized}",
                at("expiry"),
                member="expiry",
            )
        )
    return problems


def _canonical_check(payload: dict[str, JsonValue], payload_bytes: bytes, loc: str) -> Check:
    """The payload must be byte-equal to its re-render (seal-host ``write_canonical_json``)."""
    try:
        rendered = render(payload)
    except NotRenderable as exc:
        return fail("approval.payload-canonical", f"payload cannot be re-rendered: {exc}", loc)
    if rendered == payload_bytes:
        return passed("approval.payload-canonical", "payload is byte-equal to its re-render", loc)
    first = next(
        (i for i, (a, b) in enumerate(zip(rendered, payload_bytes, strict=False)) if a != b),
        min(len(rendered), len(payload_bytes)),
    )
    return fail(
        "approval.payload-canonical",
        "payload differs from its re-render "
        f"(keys sorted by UTF-8 bytes, C0 as \\u00xx) at byte {first}",
        loc,
        offset=first,
    )


def _binding_checks(
    payload: dict[str, JsonValue], context: TokenContext, at: Callable[[str], str], loc: str
) -> list[Check]:
    """The token's subject and target bound to the frame, else to the receipt's subject."""
    if context.frame is not None:
        return _frame_checks(payload, context.frame, context.server, at, context.target_spec)
    if context.subject is None:
        return [
            not_evaluated(
                "approval.subject",
                "no frame given: subject_sha256/length and the target are not bound",
                loc,
            )
        ]
    digest, length = context.subject
    checks = _subject_checks(payload, digest, length, "the receipt's framed subject", at)
    checks.append(
        not_evaluated(
            "approval.target",
            "no frame bytes: the target is matched to the receipt's safety reason only",
            at("target"),
        )
    )
    return checks


def _time_checks(
    context: TokenContext,
    authorized: int | None,
    expiry: int | None,
    at: Callable[[str], str],
    loc: str,
) -> list[Check]:
    """The token valid at the context's time: authorized by then and not yet expired."""
    at_ms = context.at_ms
    if at_ms is None:
        if context.no_time:
            reason = f"expiry cannot be judged: {context.no_time}"
        else:
            reason = "no time given to judge expiry at"
        return [reduced(ids.APPROVAL_TIME, reason, loc)]
    if authorized is None or expiry is None:
        return []
    when = f" ({context.at_what})" if context.at_what else ""
    if at_ms < authorized:
        return [
            fail(
                ids.APPROVAL_TIME,
                f"authorized_at {authorized} is after the time judged ({at_ms}{when})",
                at("authorized_at"),
                member="authorized_at",
            )
        ]
    if at_ms > expiry:
        return [
            fail(
                ids.APPROVAL_TIME,
                f"expired at {expiry}, before the time judged ({at_ms}{when})",
                at("expiry"),
                member="expiry",
            )
        ]
    return [passed(ids.APPROVAL_TIME, f"valid at {at_ms}{when}", loc)]


def _subject_checks(
    payload: dict[str, JsonValue],
    digest: str,
    length: int,
    what: str,
    at: Callable[[str], str],
) -> list[Check]:
    checks: list[Check] = []
    if payload.get("subject_sha256") != digest:
        checks.append(
            fail(
                "approval.subject",
                f"subject_sha256 is not {what}'s sha256 {digest} (delimiter included)",
                at("subject_sha256"),
                member="subject_sha256",
            )
        )
    if uint_value(payload.get("subject_length")) != length:
        checks.append(
            fail(
                "approval.subject",
                f"subject_length is not {what}'s length {length} (delimiter included)",
                at("subject_length"),
                member="subject_length",
            )
        )
    if not checks:
        checks.append(
            passed(
                "approval.subject",
                f"bound to {what} ({length} bytes, delimiter included)",
                at("subject_sha256"),
            )
        )
    return checks


def _frame_checks(
    payload: dict[str, JsonValue],
    frame: bytes,
    server: str,
    at: Callable[[str], str],
    target_spec: JsonValue | None = None,
) -> list[Check]:
    checks = _subject_checks(payload, sha256_hex(frame), len(frame), "the frame", at)
    try:
        expected = frame_guard_target(frame, server, target_spec)
        host_form = frame_guard_target(frame, server, target_spec, bind_context=False)
    except ValueError as exc:
        checks.append(
            not_evaluated(
                "approval.target", f"cannot recompute the guard target: {exc}", at("target")
            )
        )
        return checks
    if payload.get("target") == expected:
        checks.append(
            passed(
                "approval.target",
                "target equals the guard target recomputed from the frame",
                at("target"),
            )
        )
    elif payload.get("target") == host_form:
        # The deployed host's target: right for the call, but blind to its context members,
        # so the approval would cover the call with any other _meta (the ruling's gap).
        names = _context_names(frame)
        checks.append(
            passed(
                "approval.target",
                "target equals the deployed host's guard target recomputed from the frame",
                at("target"),
            )
        )
        checks.append(
            fail(
                "legacy.guard-target-omits-meta",
                "the approved target was computed with the context pairs absent while the frame "
                f"carries them, so these stay unbound: {', '.join(names)}",
                at("target"),
                keys=names,
            )
        )
    else:
        where = f" with server {json.dumps(server)}" if server else " with no server"
        if target_spec is not None:
            where += " under the policy's target spec"
        checks.append(
            fail(
                "approval.target",
                f"target is not the guard target {expected} recomputed from the frame{where}",
                at("target"),
                member="target",
            )
        )
    return checks


def _signature_check(signature: JsonValue, key: bytes, payload_bytes: bytes, loc: str) -> Check:
    where = f"{loc} signature" if loc else "signature"
    if not isinstance(signature, str):
        return fail("approval.signature", "signature is not a string", where)
    try:
        raw = b64url_nopad_decode(signature)
    except ValueError as exc:
        return fail("approval.signature-encoding", str(exc), where)
    if ed25519_verify(key, signature_preimage(payload_bytes), raw):
        return passed(
            "approval.signature",
            f"Ed25519 signature by the pinned approver key over {DOMAIN!r} 0x00 payload verifies",
            loc,
        )
    return fail(
        "approval.signature",
        "Ed25519 signature over the payload does not verify with "
        "the pinned approver key (a member was changed after signing, or another key "
        "signed)",
        where,
    )


def _check_v1(
    outer: dict[str, JsonValue], payload_text: str, payload: JsonValue, key: bytes, loc: str
) -> TokenResult:
    # seal-host@099be66 rust/src/providers.rs (the ed25519 provider's poll) verifies the hex
    # Ed25519 signature first and drops a line that fails ("bad_signature"), then drops a
    # record without nonce or issuedAt ("missing_required_field"); only then is the decision
    # read. So a decline is read only when the pinned key signed it and it carries both:
    # anything else is INVALID, never a readable DECLINE.
    checks: list[Check] = []
    signature = outer.get("signature")
    sig = (
        bytes.fromhex(signature)
        if isinstance(signature, str) and len(signature) == 128 and HEX_DIGITS.fullmatch(signature)
        else b""
    )
    signed = ed25519_verify(key, payload_text.encode("utf-8"), sig)
    if not signed:
        checks.append(
            fail(
                "approval.signature",
                "v1 token: the hex Ed25519 signature over the payload does not verify with "
                "the pinned key, so seal-host drops the line unread (bad_signature)",
                loc,
            )
        )
    if not isinstance(payload, dict) or hex64_rule(payload.get("target")):
        checks.append(fail("approval.v1-fields", "v1 payload lacks a 64-hex target", loc))
        return TokenResult(loc, "invalid", tuple(checks))
    if payload.get("nonce") is None or payload.get("issuedAt") is None:
        checks.append(
            fail("approval.v1-fields", "a signed v1 record must carry nonce and issuedAt", loc)
        )
    decision = payload.get("decision")
    target = payload["target"]
    if decision is None or decision == "allow":
        checks.append(
            fail(
                "approval.v1-refused",
                "v1 approvals are refused "
                "(approval_record_v1_not_supported); sign an ApprovalRecord v2",
                loc,
            )
        )
        kind: Kind = "v1-allow" if signed else "invalid"
        return TokenResult(loc, kind, tuple(checks), facts={"target": target})
    if decision == "deny":
        if checks:
            return TokenResult(loc, "invalid", tuple(checks), facts={"target": target})
        checks.append(
            info("approval.v1-decline", f"signed v1 decline read for target {target}", loc)
        )
        return TokenResult(loc, "v1-decline", tuple(checks), facts={"target": target})
    checks.append(
        fail(
            "approval.unknown-decision",
            f"decision {decision!r} is neither allow nor deny; the record is dropped",
            loc,
        )
    )
    return TokenResult(loc, "invalid", tuple(checks))


def _diff(extra: Sequence[str], missing: Sequence[str]) -> str:
    parts = []
    if extra:
        parts.append("unknown: " + ", ".join(extra))
    if missing:
        parts.append("missing: " + ", ".join(missing))
    return " (" + "; ".join(parts) + ")" if parts else ""
