"""`_meta` partition records and signed attestations (the meta-partition ruling §3.4, §4, §5)."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sealverify._internal.mcp import keytable as metakeys
from sealverify._internal.mcp.frame import FrameAnalysis, FrameOptions, analyze_frame
from sealverify._internal.mcp.meta import LEGACY, MODERN, Refusal
from sealverify._internal.primitives import signatures
from sealverify._internal.results.model import Check, fail, info, passed
from sealverify._internal.wire.framing import FrameBytes, frame_of
from sealverify._internal.wire.spelling import HEX64
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue
from sealverify.errors import InputFileError, OptionError

__all__ = [
    "ATTESTATION_SCHEMA",
    "COMMIT_ALL",
    "C_COMMIT_UNKNOWN",
    "C_REFUSE_UNKNOWN",
    "C_TABLE",
    "DOMAIN",
    "POLICIES",
    "POLICY_DECLARATIONS",
    "RECORD_SCHEMA",
    "PartitionRefused",
    "PartitionResult",
    "authority_identity",
    "check_attestation",
    "classify_key",
    "partition_frame",
    "payload_bytes",
    "seed_from_key_text",
    "sign_record",
    "statement",
]

RECORD_SCHEMA = "seal.meta-partition/v1"
ATTESTATION_SCHEMA = "seal.meta-partition-attestation/v1"
DOMAIN = "seal.meta-partition-statement/v1"

COMMIT_ALL = "commit-all"
C_REFUSE_UNKNOWN = "c-refuse-unknown"
C_COMMIT_UNKNOWN = "c-commit-unknown"
POLICIES: tuple[str, ...] = (COMMIT_ALL, C_REFUSE_UNKNOWN, C_COMMIT_UNKNOWN)

# The fixed, sorted exclusion declaration each policy signs (the meta-partition ruling §3.3, §3.4).
# Pinned here
# and compared by `check_attestation`, so an emitter whose table grew an excluded name fails.
POLICY_DECLARATIONS: dict[str, tuple[str, ...]] = {
    COMMIT_ALL: (),
    C_REFUSE_UNKNOWN: metakeys.OPTION_C_EXCLUDED,
    C_COMMIT_UNKNOWN: metakeys.OPTION_C_EXCLUDED,
}
_UNKNOWN_KEY_POLICY = {COMMIT_ALL: "commit", C_REFUSE_UNKNOWN: "refuse", C_COMMIT_UNKNOWN: "commit"}

# The Option C classifier table (the meta-partition ruling §3.2, §3.3): exact key name -> committed
# | excluded.
# A name missing from it is unknown (§3.5). Tests mutate this table for the §7 controls.
C_TABLE: dict[str, str] = {key: row.option_c for key, row in metakeys.KEY_TABLE.items()}

_DEFAULT_OPTIONS = FrameOptions()
_SIGNATURE_FIELDS = ("domain", "algorithm", "public_key", "key_id", "encoding", "value")


def classify_key(key: str) -> str:
    """Option C class of one exact `_meta` key name: ``committed``, ``excluded`` or ``unknown``."""
    return C_TABLE.get(key, "unknown")


class _NotRepresentable(ValueError):
    pass


def _jcs_value(value: Any, where: str) -> Any:
    """Convert a parsed JSON value (strictjson or json module) to what rfc8785 serializes.

    A number is accepted only when JCS writes a numeral of exactly the received value (an
    IEEE double, the meta-partition ruling §3.5 "total, bounded, cross-language canonical-value
    treatment");
    otherwise two different received values could commit to one identity.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (JsonNumber, int, float)):
        text = value.lexeme if isinstance(value, JsonNumber) else repr(value)
        try:
            exact = Decimal(text)
            number = float(exact)
            if exact.is_nan() or abs(number) == float("inf"):
                raise _NotRepresentable(f"{where}: number {text[:40]} is not finite as a double")
            rendered = rfc8785.dumps(number).decode("ascii")
        except (InvalidOperation, rfc8785.CanonicalizationError) as exc:
            raise _NotRepresentable(f"{where}: number {text[:40]} cannot be canonicalized") from exc
        if Decimal(rendered) != exact:
            raise _NotRepresentable(
                f"{where}: number {text[:40]} is not exactly an IEEE double; JCS would write "
                f"{rendered}, a different value"
            )
        return number
    if isinstance(value, list):
        return [_jcs_value(item, f"{where}/{i}") for i, item in enumerate(value)]
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotRepresentable(f"{where}: member name {key!r} is not a string")
            out[key] = _jcs_value(item, f"{where}/{key}")
        return out
    raise _NotRepresentable(f"{where}: {type(value).__name__} is not a JSON value")


def payload_bytes(record: Mapping[str, Any]) -> bytes:
    """The signed payload: RFC 8785 (JCS) bytes of the record; ValueError if not JSON-safe."""
    return bytes(rfc8785.dumps(_jcs_value(record, "")))


def statement(payload: bytes) -> bytes:
    """The detached statement: ``DOMAIN`` ‖ 0x00 ‖ u64be(len(payload)) ‖ payload."""
    return DOMAIN.encode("ascii") + b"\x00" + len(payload).to_bytes(8, "big") + payload


def authority_identity(record: Mapping[str, Any]) -> str:
    """SHA-256 hex of what the record says enters action/authority identity.

    That is the policy, era, `_meta` presence state, the committed map and (C-commit-unknown)
    the unknown map; never the excluded-present list or the subject digests (the meta-partition
    ruling §3.4:
    the per-request excluded list is recorded but is not an identity input).
    """
    part = {name: record[name] for name in _IDENTITY_FIELDS if name in record}
    return hashlib.sha256(payload_bytes(part)).hexdigest()


_IDENTITY_FIELDS = ("policy", "era", "meta_state", "committed", "unknown_committed")


@dataclass(frozen=True, slots=True)
class PartitionRefused:
    """Refusal evidence: why no record is produced, with the observed `_meta` presence state.

    ``meta_state`` is ``absent``, ``object``, ``null`` or ``non-object`` when `_meta` was
    examined, ``unparsed`` when the frame was refused before parsing, and ``not-examined``
    when the frame is not a request whose `_meta` is validated.
    """

    policy: str
    era: str
    meta_state: str
    refusals: tuple[Refusal, ...]
    refused_unknown: tuple[str, ...]
    exact_frame_sha256: str
    exact_frame_length: int
    raw_line_sha256: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "era": self.era,
            "meta_state": self.meta_state,
            "refusals": [
                {
                    "code": r.code,
                    "wire_error": r.wire_error,
                    "reason": r.reason,
                    "pointer": r.pointer,
                }
                for r in self.refusals
            ],
            "refused_unknown": list(self.refused_unknown),
            "exact_frame_sha256": self.exact_frame_sha256,
            "exact_frame_length": self.exact_frame_length,
            "raw_line_sha256": self.raw_line_sha256,
        }


@dataclass(frozen=True, slots=True)
class PartitionResult:
    """Either a record (a JSON object ready for JCS) or the refusal evidence, never both."""

    record: dict[str, Any] | None
    refused: PartitionRefused | None = None
    notes: tuple[str, ...] = field(default=())


def partition_frame(
    frame: FrameBytes, policy: str = COMMIT_ALL, options: FrameOptions = _DEFAULT_OPTIONS
) -> PartitionResult:
    """Partition one request frame's `_meta` under ``policy``, or refuse with evidence.

    Every fail-closed case of the meta-partition ruling §4 (and every other frame refusal) is
    refused before
    any record exists; so is a non-``tools/call`` frame, an unknown key under
    C-refuse-unknown, and a committed number JCS cannot write exactly.
    """
    if policy not in POLICIES:
        raise OptionError(f"unknown partition policy {policy!r}; one of {', '.join(POLICIES)}")
    analysis = analyze_frame(frame, options)
    refused = _Refuser(frame, policy, analysis)
    if refused.refusals:
        return refused()
    message = analysis.message
    assert isinstance(message, dict)
    params = message.get("params")
    assert isinstance(params, dict)
    meta = params.get("_meta", {})
    assert isinstance(meta, dict)  # non-object states were refused above
    committed, unknown, excluded = _sort_meta(meta, policy)
    if unknown and policy == C_REFUSE_UNKNOWN:
        names = tuple(sorted(unknown))
        return refused(
            [
                Refusal(
                    "partition.unknown-key-refused",
                    -32602,
                    f"C-refuse-unknown: _meta carries {len(names)} key(s) outside the committed "
                    f"and excluded tables: {', '.join(n[:60] for n in names[:8])}",
                    "/params/_meta",
                )
            ],
            names,
        )
    declaration = (
        []
        if policy == COMMIT_ALL
        else sorted(k for k, kind in C_TABLE.items() if kind == "excluded")
    )
    record: dict[str, Any] = {
        "schema": RECORD_SCHEMA,
        "policy": policy,
        "era": analysis.era,
        "meta_state": refused.state,
        "committed": committed,
        "exclusion_declaration": declaration,
        "excluded_present": sorted(excluded),
        "unknown_key_policy": _UNKNOWN_KEY_POLICY[policy],
        "exact_frame_sha256": frame.exact_sha256,
        "exact_frame_length": frame.length,
        "raw_line_sha256": frame.raw_line_sha256,
    }
    if policy == C_COMMIT_UNKNOWN:
        record["unknown_committed"] = unknown
    try:
        converted = _jcs_value(record, "")
    except _NotRepresentable as exc:
        return refused(
            [Refusal("partition.value-not-representable", -32602, str(exc), "/params/_meta")]
        )
    return PartitionResult(converted)


class _Refuser:
    """A frame's refusals so far, and the refused result with any found later added."""

    __slots__ = ("analysis", "frame", "policy", "refusals", "state")

    def __init__(self, frame: FrameBytes, policy: str, analysis: FrameAnalysis) -> None:
        self.frame = frame
        self.policy = policy
        self.analysis = analysis
        self.state: str
        if analysis.meta is not None:
            self.state = analysis.meta.state
        else:
            self.state = "unparsed" if analysis.kind == "unparsed" else "not-examined"
        self.refusals = list(analysis.refusals)
        if analysis.kind != "request" or analysis.method != "tools/call":
            self.refusals.append(
                Refusal(
                    "partition.not-tools-call",
                    -32600,
                    f"a partition record is made for a mediated tools/call request, not a "
                    f"{analysis.kind} {analysis.method or ''}".rstrip(),
                )
            )

    def __call__(
        self, extra: Iterable[Refusal] = (), unknown: tuple[str, ...] = ()
    ) -> PartitionResult:
        frame = self.frame
        return PartitionResult(
            None,
            PartitionRefused(
                self.policy,
                self.analysis.era,
                self.state,
                (*self.refusals, *extra),
                unknown,
                frame.exact_sha256,
                frame.length,
                frame.raw_line_sha256,
            ),
        )


def _sort_meta(
    meta: dict[str, JsonValue], policy: str
) -> tuple[dict[str, JsonValue], dict[str, JsonValue], list[str]]:
    """The ``_meta`` keys a policy commits, leaves unknown and excludes, in frame order."""
    committed: dict[str, JsonValue] = {}
    unknown: dict[str, JsonValue] = {}
    excluded: list[str] = []
    for key, value in meta.items():
        kind = "committed" if policy == COMMIT_ALL else classify_key(key)
        if kind == "committed":
            committed[key] = value
        elif kind == "excluded":
            excluded.append(key)
        else:
            unknown[key] = value
    return committed, unknown, excluded


def seed_from_key_text(text: str) -> bytes:
    """Parse a signing-key file: exactly 64 lowercase hex digits (a 32-byte Ed25519 seed).

    One trailing newline is allowed; anything else raises ValueError.
    """
    body = text[:-1] if text.endswith("\n") else text
    if HEX64.fullmatch(body) is None:
        raise InputFileError(
            "signing key file must hold exactly 64 lowercase hex digits (a 32-byte Ed25519 "
            f"seed) and at most one trailing newline; got {len(text)} characters"
        )
    return bytes.fromhex(body)


def _b64url_nopad(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sign_record(record: Mapping[str, Any], seed: bytes) -> dict[str, Any]:
    """Wrap ``record`` in a signed attestation: Ed25519 over its detached statement."""
    key = Ed25519PrivateKey.from_private_bytes(seed)
    public = key.public_key().public_bytes_raw()
    signature = key.sign(statement(payload_bytes(record)))
    return {
        "schema": ATTESTATION_SCHEMA,
        "record": dict(record),
        "signature": {
            "domain": DOMAIN,
            "algorithm": "ed25519",
            "public_key": public.hex(),
            "key_id": signatures.key_id(public),
            "encoding": "base64url-nopad",
            "value": _b64url_nopad(signature),
        },
    }


def _field_fail(name: str, reason: str, **data: Any) -> Check:
    return fail(f"partition.field.{name}", reason, f"/record/{name}", field=name, **data)


def _check_signature(
    attestation: Mapping[str, Any], record: Mapping[str, Any], trusted: list[bytes]
) -> list[Check]:
    sig = attestation.get("signature")
    if not isinstance(sig, Mapping):
        return [
            fail(
                "partition.signature",
                "the attestation carries no signature object",
                "/signature",
                field="signature",
            )
        ]
    checks = _signature_shape(sig)
    if checks:
        return checks
    expected = {"domain": DOMAIN, "algorithm": "ed25519", "encoding": "base64url-nopad"}
    for name, want in expected.items():
        if sig[name] != want:
            checks.append(
                fail(
                    f"partition.signature.{name}",
                    f"signature.{name} is {sig[name][:60]!r}, must be {want!r}",
                    f"/signature/{name}",
                    field=f"signature.{name}",
                )
            )
    try:
        public = signatures.hex_key(sig["public_key"])
    except ValueError as exc:
        return [
            *checks,
            fail(
                "partition.signature.public_key",
                f"signature.public_key: {exc}",
                "/signature/public_key",
                field="signature.public_key",
            ),
        ]
    checks.extend(_signer_checks(sig, public, trusted))
    checks.extend(_value_checks(sig, public, record, clean=not checks))
    return checks


def _value_checks(
    sig: Mapping[str, Any], public: bytes, record: Mapping[str, Any], *, clean: bool
) -> list[Check]:
    """The signature value over the record's statement; a pass only when ``clean`` so far."""
    try:
        value = signatures.b64url_nopad_decode(sig["value"])
    except ValueError as exc:
        return [
            fail(
                "partition.signature",
                f"signature.value: {exc}",
                "/signature/value",
                field="signature.value",
            )
        ]
    try:
        message = statement(payload_bytes(record))
    except (ValueError, rfc8785.CanonicalizationError) as exc:
        return [
            fail(
                "partition.signature",
                f"record cannot be canonicalized: {exc}",
                "/record",
                field="record",
            )
        ]
    if not signatures.ed25519_verify(public, message, value):
        return [
            fail(
                "partition.signature",
                f"Ed25519 signature does not verify over the {DOMAIN} statement of "
                "this record (the record or signature.value was altered)",
                "/signature/value",
                field="signature.value",
            )
        ]
    if not clean:
        return []
    return [
        passed(
            "partition.signature",
            f"Ed25519 signature verifies over the {DOMAIN} statement",
            "/signature/value",
            key_id=sig["key_id"],
        )
    ]


def _signature_shape(sig: Mapping[str, Any]) -> list[Check]:
    """The signature object's members: each a string, and no other member."""
    checks: list[Check] = []
    for name in _SIGNATURE_FIELDS:
        if not isinstance(sig.get(name), str):
            checks.append(
                fail(
                    "partition.signature.shape",
                    f"signature.{name} must be a string",
                    f"/signature/{name}",
                    field=f"signature.{name}",
                )
            )
    extra = sorted(set(sig) - set(_SIGNATURE_FIELDS))
    if extra:
        checks.append(
            fail(
                "partition.signature.shape",
                f"signature carries unexpected member(s): {', '.join(extra)}",
                "/signature",
                field=f"signature.{extra[0]}",
            )
        )
    return checks


def _signer_checks(sig: Mapping[str, Any], public: bytes, trusted: list[bytes]) -> list[Check]:
    """The key id is the public key's, and the public key is one the user gave."""
    checks: list[Check] = []
    if sig["key_id"] != signatures.key_id(public):
        checks.append(
            fail(
                "partition.signature.key_id",
                "signature.key_id is not sha256 of the raw public key bytes",
                "/signature/key_id",
                field="signature.key_id",
            )
        )
    if public not in trusted:
        checks.append(
            fail(
                "partition.signature.public_key",
                "signature.public_key is not a key given with --pubkey",
                "/signature/public_key",
                field="signature.public_key",
            )
        )
    return checks


def _recompute(frame: FrameBytes, policy: str, era: str, options: FrameOptions) -> PartitionResult:
    return partition_frame(
        frame, policy, FrameOptions(era, options.limits, options.supported_versions, options.server)
    )


def _eq(a: Any, b: Any) -> bool:
    """Equality of JCS spellings: ``true`` and ``1`` differ, as do ``1`` and ``"1"``."""
    return bool(rfc8785.dumps(a) == rfc8785.dumps(b))


def _same_except(a: Mapping[str, Any], b: Mapping[str, Any], name: str) -> bool:
    keys = (set(a) | set(b)) - {name}
    return all(k in a and k in b and _eq(a[k], b[k]) for k in keys)


def _blame_selector(
    record: Mapping[str, Any], frame: FrameBytes, options: FrameOptions
) -> Check | None:
    """When the record is exactly another policy's or era's record, name that selector field."""
    for name, choices in (("policy", POLICIES), ("era", (MODERN, LEGACY))):
        for choice in choices:
            if choice == record.get(name):
                continue
            policy = choice if name == "policy" else record.get("policy")
            era = choice if name == "era" else record.get("era")
            if policy not in POLICIES or era not in (MODERN, LEGACY):
                continue
            other = _recompute(frame, str(policy), str(era), options).record
            if other is not None and _same_except(record, other, name):
                return _field_fail(
                    name,
                    f"{name} is declared {str(record.get(name))[:40]!r}, but the record is "
                    f"exactly what {name} {choice!r} produces from this frame",
                    expected=choice,
                )
    return None


def check_attestation(
    attestation: Mapping[str, Any],
    frame: bytes,
    pubkeys: Iterable[bytes],
    *,
    transport: str = "stdio",
    options: FrameOptions = _DEFAULT_OPTIONS,
) -> list[Check]:
    """Check a partition attestation against the exact frame bytes and trusted Ed25519 keys.

    The record is recomputed from ``frame`` under its declared policy and era; every field is
    compared and a failing check names its field (``data["field"]``). The exclusion
    declaration must equal the policy's pinned list. ``pubkeys`` are raw 32-byte keys. An
    attestation without ``signature`` (a bare record) fails ``partition.signature``.
    """
    trusted = list(pubkeys)
    fb = frame_of(frame, "http" if transport == "http" else "stdio")
    if attestation.get("schema") == RECORD_SCHEMA:
        record: Any = attestation
        checks = [
            fail(
                "partition.signature",
                "a bare partition record carries no signature",
                "/signature",
                field="signature",
            )
        ]
    else:
        record = attestation.get("record")
        checks = []
        if attestation.get("schema") != ATTESTATION_SCHEMA:
            checks.append(
                fail(
                    "partition.attestation.schema",
                    f"schema must be {ATTESTATION_SCHEMA!r}",
                    "/schema",
                    field="schema",
                )
            )
        extra = sorted(set(attestation) - {"schema", "record", "signature"})
        if extra:
            checks.append(
                fail(
                    "partition.attestation.shape",
                    f"unexpected member(s): {', '.join(extra)}",
                    "/",
                    field=extra[0],
                )
            )
        if not isinstance(record, Mapping):
            return [
                *checks,
                fail(
                    "partition.attestation.shape",
                    "the attestation carries no record object",
                    "/record",
                    field="record",
                ),
            ]
    try:
        record = _jcs_value(record, "/record")
    except _NotRepresentable as exc:
        return [*checks, fail("partition.attestation.shape", str(exc), "/record", field="record")]
    if attestation.get("schema") != RECORD_SCHEMA:
        checks.extend(_check_signature(attestation, record, trusted))
    checks.extend(_check_fields(record, fb, options))
    return checks


def _check_fields(record: dict[str, Any], frame: FrameBytes, options: FrameOptions) -> list[Check]:
    policy, era = record.get("policy"), record.get("era")
    if policy not in POLICIES:
        return [
            _field_fail(
                "policy", f"policy {str(policy)[:40]!r} is not one of {', '.join(POLICIES)}"
            )
        ]
    if era not in (MODERN, LEGACY):
        return [_field_fail("era", f"era {str(era)[:40]!r} is not {MODERN!r} or {LEGACY!r}")]
    result = _recompute(frame, policy, era, options)
    expected = result.record
    if expected is None or not _eq(expected, record):
        blamed = _blame_selector(record, frame, options)
        if blamed is not None:
            return [blamed]
    if expected is None:
        assert result.refused is not None
        evidence = result.refused
        first = evidence.refusals[0]
        return [
            fail(
                "partition.recompute",
                f"recomputing under policy {policy} and era {era} refuses this frame "
                f"(_meta {evidence.meta_state}): {first.reason}",
                first.pointer,
                **evidence.to_dict(),
            )
        ]
    checks: list[Check] = [
        info("partition.recompute", f"recomputed from the frame under policy {policy}, era {era}")
    ]
    pinned = list(POLICY_DECLARATIONS[policy])
    for name in sorted(set(expected) | set(record)):
        if name not in expected:
            checks.append(_field_fail(name, f"{name} is not a field of a {policy} record"))
        elif name not in record:
            checks.append(_field_fail(name, f"{name} is missing from the record"))
        elif name == "exclusion_declaration" and not _eq(record[name], pinned):
            checks.append(
                _field_fail(
                    name,
                    f"exclusion_declaration must equal the fixed, sorted "
                    f"declaration of {policy} ({len(pinned)} names)",
                    expected=pinned,
                )
            )
        elif not _eq(record[name], expected[name]):
            checks.append(
                _field_fail(
                    name,
                    f"{name} differs from the value recomputed from the frame",
                    expected=expected[name],
                )
            )
        else:
            checks.append(
                passed(
                    f"partition.field.{name}",
                    f"{name} matches the frame",
                    f"/record/{name}",
                    field=name,
                )
            )
    if pinned != expected["exclusion_declaration"]:
        checks.append(
            fail(
                "partition.classifier",
                "this verifier's own classifier table disagrees with the pinned "
                "exclusion declaration",
                "/record/exclusion_declaration",
                field="exclusion_declaration",
            )
        )
    return checks
