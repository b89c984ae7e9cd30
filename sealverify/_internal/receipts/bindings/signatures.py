"""Signatures and configs: signed_config payload and signature, and the Object B signature."""

from __future__ import annotations

from collections.abc import Iterable

from sealverify._internal import fastpath
from sealverify._internal.primitives import objectb
from sealverify._internal.primitives.signatures import (
    b64url_nopad_decode,
    ed25519_verify,
    hex_key,
    key_id,
    s_below_order,
    weak_key_reason,
)
from sealverify._internal.receipts.bindings.derived import (
    CANNOT_RECONSTRUCT,
    Derivations,
    Doc,
    compact_exact,
    pointer,
)
from sealverify._internal.receipts.view import decode
from sealverify._internal.results.model import Check, fail, info, passed
from sealverify._internal.results.vocabulary import Family
from sealverify._internal.wire import serdejson
from sealverify._internal.wire.spelling import pointer as receipts_pointer
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonValue,
    holds_u_escape,
    parse_text,
)

__all__ = [
    "config_binding",
    "config_signature",
    "object_b_envelopes",
    "object_b_signature",
]


_SIGNATURE_MEMBERS = {"algorithm", "domain", "encoding", "key_id", "public_key", "value"}


def _payload_facts(payload: str) -> tuple[str | None, str, bool]:
    """(why the payload cannot be judged, or None; its epoch as shown; is it self-compact)."""
    if len(payload) > _CACHED_PAYLOAD_CHARS:
        return _judge_payload(payload)
    return _cached_payload_facts(payload)


def _judge_payload(payload: str) -> tuple[str | None, str, bool]:
    try:
        parsed = parse_text(payload)
        self_compact = compact_exact(parsed)
    except JsonError as exc:
        return f"payload is not strict JSON: {exc}", "", False
    except serdejson.NumberNotRepresentable as exc:
        return f"{CANNOT_RECONSTRUCT}: {exc}", "", False
    epoch = parsed.get("epoch") if isinstance(parsed, dict) else None
    return None, f"{epoch!s}", self_compact == payload


# A fleet signs few configs and every receipt carries one: what the payload text says about
# itself is a pure function of that text, so it is worked out once per distinct payload.
# Bounded in entries and in size (a hostile store of huge distinct payloads retains little).
_CACHED_PAYLOAD_CHARS = 65_536


_cached_payload_facts = fastpath.cache(maxsize=64)(_judge_payload)


def config_binding(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """signed_config payload: its own compact rendering and byte-equal to compact kernel_config."""
    config = doc.get("signed_config")
    if doc.get("bypass") is not False:
        return []
    if not isinstance(config, dict) or not isinstance(config.get("payload"), str):
        return [
            fail(
                "binding.config-payload",
                "signed_config payload unavailable: a mediated receipt must carry one",
                pointer("signed_config"),
            )
        ]
    payload = str(config["payload"])
    checks: list[Check] = []
    refusal, epoch, self_compact = _payload_facts(payload)
    if refusal is not None:
        checks.append(
            fail("binding.config-self-compact", refusal, pointer("signed_config", "payload"))
        )
    else:
        checks.append(
            info(
                "config.epoch",
                f"payload epoch {epoch}: freshness is reported, rollback is not enforced",
                pointer("signed_config", "payload"),
            )
        )
        if self_compact:
            checks.append(
                passed(
                    "binding.config-self-compact",
                    "payload is its own compact rendering",
                    pointer("signed_config", "payload"),
                )
            )
        else:
            checks.append(
                fail(
                    "binding.config-self-compact",
                    "payload is not its own compact rendering",
                    pointer("signed_config", "payload"),
                )
            )
    rendered, error = (derived or Derivations(doc)).config_text()
    if rendered == payload:
        checks.append(
            passed(
                "binding.config-payload",
                "compact kernel_config is byte-equal to the signed payload",
                pointer("kernel_config"),
            )
        )
    else:
        checks.append(
            fail(
                "binding.config-payload",
                error or "compact kernel_config differs from the signed payload bytes",
                pointer("kernel_config"),
            )
        )
    return checks


# A fleet signs few configs and every receipt carries one: each distinct (key, payload,
# signature) triple is verified once per process. The verdict is a pure function of those
# bytes, so a cache hit yields the identical check. Bounded, so memory stays flat in N.
_config_verdict = fastpath.cache(maxsize=256)(ed25519_verify)


def config_signature(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """Ed25519 by ``signed_config.pubkey`` over the exact UTF-8 bytes of ``payload`` (S < L)."""
    config = doc.get("signed_config")
    if not isinstance(config, dict):
        return []
    pubkey, signature, payload = (
        config.get("pubkey"),
        config.get("signature"),
        config.get("payload"),
    )
    if (
        type(pubkey) is str
        and type(signature) is str
        and type(payload) is str
        and len(payload) <= _CACHED_PAYLOAD_CHARS
    ):
        return list(_cached_config_checks(pubkey, signature, payload))
    return list(_config_checks(pubkey, signature, payload))


def _config_checks(
    pubkey: object, signature_text: object, payload_text: object
) -> tuple[Check, ...]:
    """:func:`config_signature`'s checks, a pure function of the three members' values."""
    try:
        key = hex_key(str(pubkey))
        signature = bytes.fromhex(str(signature_text))
    except ValueError as exc:
        return (
            fail(
                "signature.config",
                f"signed_config key or signature malformed: {exc}",
                pointer("signed_config"),
            ),
        )
    payload = str(payload_text).encode("utf-8")
    weak = weak_key_reason(key)
    if weak is not None:
        return (
            fail("signature.config", f"signed_config {weak}", pointer("signed_config", "pubkey")),
        )
    if len(signature) == 64 and not s_below_order(signature):
        return (
            fail(
                "signature.config",
                "signed_config signature scalar S is not below L",
                pointer("signed_config", "signature"),
            ),
        )
    if _config_verdict(key, payload, signature):
        return (
            passed(
                "signature.config",
                f"signed_config verifies under its key {pubkey}",
                pointer("signed_config", "signature"),
            ),
        )
    return (
        fail(
            "signature.config",
            "signature invalid: signed_config does not verify under its embedded pubkey",
            pointer("signed_config", "signature"),
        ),
    )


# Every receipt of a fleet carries one of its few signed configs: the checks are a pure
# function of the three member texts, and checks are immutable, so they are worked out once
# per distinct (pubkey, signature, payload). Only exact ``str`` members of bounded length.
_cached_config_checks = fastpath.cache(maxsize=64)(_config_checks)


def _object_b_shape(sig: dict[str, JsonValue]) -> tuple[list[str], bytes, bytes]:
    """What is wrong with an Object B signature object; its key and value bytes (b"" if bad)."""
    problems: list[str] = []
    if set(sig) != _SIGNATURE_MEMBERS:
        problems.append("members must be exactly " + ", ".join(sorted(_SIGNATURE_MEMBERS)))
    if sig.get("algorithm") != "Ed25519":
        problems.append(f"unknown algorithm {sig.get('algorithm')!s}")
    if sig.get("encoding") != "base64url-nopad":
        problems.append(f"unknown encoding {sig.get('encoding')!s}")
    domain = sig.get("domain")
    if domain not in (objectb.OBJECT_B_V1, objectb.OBJECT_B_V2):
        problems.append(f"unknown domain {domain!s}")
    try:
        key = hex_key(str(sig.get("public_key")))
    except ValueError as exc:
        problems.append(f"public_key: {exc}")
        key = b""
    try:
        value = b64url_nopad_decode(str(sig.get("value")))
        if len(value) != 64:
            problems.append(f"value decodes to {len(value)} bytes, not 64")
    except ValueError as exc:
        problems.append(f"value: {exc}")
        value = b""
    return problems, key, value


def object_b_signature(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """v3 Object B: exact member set, key_id, strict base64url, S < L, preimage by domain."""
    sig = doc.get("signature")
    where = pointer("signature")
    if not isinstance(sig, dict):
        return [fail("signature.object-b-shape", "signature must be an object", where)]
    problems, key, value = _object_b_shape(sig)
    domain = sig.get("domain")
    if problems:
        return [fail("signature.object-b-shape", "; ".join(problems), where)]
    checks = [
        passed(
            "signature.object-b-shape", f"Object B signature object well formed ({domain})", where
        )
    ]
    if sig.get("key_id") == key_id(key):
        checks.append(
            passed(
                "signature.object-b-key-id",
                "key_id = sha256(public key bytes)",
                pointer("signature", "key_id"),
            )
        )
    else:
        checks.append(
            fail(
                "signature.object-b-key-id",
                f"key_id is not sha256(public key bytes) = {key_id(key)}",
                pointer("signature", "key_id"),
            )
        )
    weak = weak_key_reason(key)
    if weak is not None:
        checks.append(
            fail("signature.object-b", f"Object B {weak}", pointer("signature", "public_key"))
        )
        return checks
    if not s_below_order(value):
        checks.append(fail("signature.object-b", "signature scalar S is not below L", where))
        return checks
    preimage, error = _object_b_preimage(doc, str(domain), derived)
    if preimage is None:
        checks.append(fail("signature.cannot-reconstruct", f"{CANNOT_RECONSTRUCT}: {error}", where))
        return checks
    if ed25519_verify(key, preimage, value):
        checks.append(
            passed(
                "signature.object-b",
                f"Object B verifies under the embedded key {sig.get('public_key')}",
                where,
            )
        )
    else:
        checks.append(
            fail(
                "signature.object-b",
                f"signature invalid: Object B ({domain}) does not verify under the embedded key",
                where,
            )
        )
    return checks


def _object_b_preimage(
    doc: Doc, domain: str, derived: Derivations | None = None
) -> tuple[bytes | None, str]:
    # A copy without "signature" keeps every other member in its order, as a filtered
    # rebuild would, at C speed.
    record = dict(doc)
    record.pop("signature", None)
    try:
        object_b = serdejson.compact_bytes(record, exact=True)
    except serdejson.NumberNotRepresentable as exc:
        return None, str(exc)
    if domain == objectb.OBJECT_B_V1:
        return objectb.preimage_v1(object_b), ""
    derived = derived or Derivations(doc)
    frame, error = derived.object_a()
    if frame is None:
        return None, error or "Object B v2 needs signed_artifacts.object_a"
    artifacts = doc["signed_artifacts"]
    assert isinstance(artifacts, dict)
    statement_text = artifacts.get("approval_statement")
    statement: bytes | None = None
    if statement_text is not None:
        decoded = derived.view.statement or decode(str(statement_text))
        if decoded.canonical is None:
            return None, f"approval_statement: {decoded.error}"
        statement = decoded.canonical
    try:
        return objectb.preimage_v2(
            frame,
            statement,
            object_b,
            str(doc.get("release_status")),
            str(doc.get("operation_id")),
            str(doc.get("durability_class")),
        ), ""
    except ValueError as exc:
        return None, str(exc)


def _is_envelope(value: JsonValue) -> bool:
    """An Object B envelope: a ``signature`` object naming a ``seal.object-b/...`` domain."""
    if not isinstance(value, dict):
        return False
    domain = value.get("domain")
    return isinstance(domain, str) and domain.startswith("seal.object-b")


def _envelope_holders(doc: Doc) -> list[tuple[tuple[str | int, ...], Doc]]:
    """Every object in the document whose ``signature`` member is an Object B envelope.

    Sorted by the text of their locations, so the walk's order does not matter: no two
    locations have the same text (one parent never has two children of one name or index).
    """
    found: list[tuple[tuple[str | int, ...], Doc]] = []
    try:
        _holders(doc, [], found)
    except RecursionError:  # a host with a very low recursion limit: the iterative walk
        found = _holders_by_stack(doc)
    return sorted(found, key=lambda pair: [str(step) for step in pair[0]])


def _holders_by_stack(doc: Doc) -> list[tuple[tuple[str | int, ...], Doc]]:
    """The reference walk (one location tuple per container); the fallback and test oracle."""
    found: list[tuple[tuple[str | int, ...], Doc]] = []
    stack: list[tuple[tuple[str | int, ...], JsonValue]] = [((), doc)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, dict):
            if _is_envelope(item.get("signature")):
                found.append((where, item))
            stack.extend(((*where, k), v) for k, v in item.items() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend(
                ((*where, i), v) for i, v in enumerate(item) if isinstance(v, (dict, list))
            )
    return found


def _holders(
    item: JsonValue, where: list[str | int], found: list[tuple[tuple[str | int, ...], Doc]]
) -> None:
    """The walk of :func:`_envelope_holders`: one location list, a tuple only for a find.

    Recursion is bounded by the strict parser's depth limit (64 containers).
    """
    if isinstance(item, dict):
        if _is_envelope(item.get("signature")):
            found.append((tuple(where), item))
        children: Iterable[tuple[str | int, JsonValue]] = item.items()
    elif isinstance(item, list):
        children = enumerate(item)
    else:
        return
    for step, child in children:
        if isinstance(child, (dict, list)):
            where.append(step)
            _holders(child, where, found)
            where.pop()


def _only_the_top_envelope(doc: Doc, raw: bytes | None) -> bool:
    """Whether ``raw``, the bytes ``doc`` was parsed from, proves its one envelope is the top one.

    Every envelope's domain is a string starting ``seal.object-b``. Without a ``\\u`` escape
    in the bytes, each such string has those 13 characters literally in them (no other escape
    writes any of them), so when the bytes hold them exactly once and the top ``signature``
    is an envelope, that is the only one: the walk of the whole document is not needed.
    """
    return (
        raw is not None
        and not holds_u_escape(raw)
        and raw.count(b"seal.object-b") == 1
        and _is_envelope(doc.get("signature"))
    )


def object_b_envelopes(doc: Doc, family: str, raw: bytes | None = None) -> list[Check]:
    """Every Object B envelope the document carries is verified over the object holding it.

    A v3 record's own ``signature`` is :func:`object_b_signature`'s; any other envelope (on a
    record another family claims, or nested anywhere) would otherwise ride along unchecked,
    so a relabelled or wrapped v3 record cannot shed its signature. The upstream verifiers
    ignore the envelope on older families; sealverify is stricter (docs/claims.md). ``raw``,
    when given, must be the exact bytes ``doc`` was parsed from.
    """
    checks: list[Check] = []
    holders = [((), doc)] if _only_the_top_envelope(doc, raw) else _envelope_holders(doc)
    for where, holder in holders:
        if not where and family == Family.V3:
            continue
        prefix = receipts_pointer(*where)
        for check in object_b_signature(holder, Derivations(holder)):
            checks.append(
                Check(
                    check.id,
                    check.status,
                    f"envelope at {prefix or '/'}: {check.reason}",
                    prefix + check.location,
                    check.data,
                )
            )
    return checks
