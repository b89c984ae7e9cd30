"""Seal decision receipts as received: document checks, family dispatch and field rules.

Mirrors the format layer of velvetmonkey/seal-check@0632f31 ``receipt-format.js``
(``scanReceiptDocument``, ``validateParsedReceipt``, ``validateV2Extras``, ``validateV3Extras``)
and seal-check ``docs/DECISION-RECEIPT-SCHEMA.md`` §1 and §12, re-derived independently; the
rules and their sources are listed in docs/verify.md. Stricter where that page says so: the
document checks apply at every depth, not only to top-level members.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from sealverify._internal.results.model import Check, fail, passed
from sealverify._internal.results.vocabulary import Family
from sealverify._internal.wire.spelling import pointer
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonNumber,
    JsonValue,
    decode_utf8,
    holds_u_escape,
    parse_text,
)

__all__ = [
    "DISCRIMINATOR_NAMES",
    "FAMILIES",
    "ReceiptDocument",
    "classify",
    "field_checks",
    "hex64",
    "is_uint",
    "read_document",
]

# seal-check DISCRIMINATOR_KEYS (receipt-format.js): the five decision discriminators plus the
# spine artifact's ``receipt``.
DISCRIMINATOR_NAMES = frozenset(
    {
        "seal_receipt",
        "record_type",
        "record_version",
        "seal_live_receipt",
        "seal_check_receipt",
        "receipt",
    }
)
FAMILIES = tuple(Family)
RECORD_TYPE = "seal.authorization-decision"
SPINE = "seal.spine/v1"

_UINT = re.compile(r"0|[1-9][0-9]*")
# An unrolled loop: the same language as ``"(?:[^"\\]|\\.)*"``, several times faster.
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
_COLON = re.compile(r"[ \t\r\n]*:")
# A string token and, when it is a member name, the colon after it (same tokens as _STRING).
_NAME_TOKEN = re.compile(r'("[^"\\]*+(?:\\.[^"\\]*+)*+")([ \t\r\n]*:)?', re.DOTALL)
_JSON_ERROR_IDS = {
    "json.bom": "document.bom",
    "json.trailing-content": "document.trailing-content",
    "json.duplicate-member": "document.duplicate-member",
    "json.invalid-utf8": "document.invalid-utf8",
}


_HEX_DIGITS = b"0123456789abcdef"


def hex64(value: JsonValue) -> bool:
    """True for a string of exactly 64 lowercase hex digits (seal's digest spelling)."""
    return _lower_hex(value, 64)


def _hex128(value: JsonValue) -> bool:
    """True for a string of exactly 128 lowercase hex digits (HEX128, as :func:`hex64`)."""
    return _lower_hex(value, 128)


def _lower_hex(value: JsonValue, length: int) -> bool:
    """A string of exactly ``length`` lowercase hex digits, decided without the regex engine.

    The language of spelling.HEX64 (and HEX128): ``length`` ASCII characters of which none
    is left once the lowercase hex digits are deleted. Called about ten times per receipt;
    tests/receipts/test_families_hex.py holds it to both patterns.
    """
    return (
        isinstance(value, str)
        and len(value) == length
        and value.isascii()
        and not value.encode().translate(None, _HEX_DIGITS)
    )


def is_uint(value: JsonValue) -> bool:
    """True for a JSON number spelled as a bare non-negative integer (``0``, ``17``)."""
    return isinstance(value, JsonNumber) and _UINT.fullmatch(value.lexeme) is not None


@dataclass(frozen=True, slots=True)
class ReceiptDocument:
    """One received document: its parsed root (None when refused) and the checks so far."""

    document: dict[str, JsonValue] | None
    family: Family | None
    checks: tuple[Check, ...]
    raw: bytes = b""  # the bytes read, so a caller handed this document can see it is theirs

    def of(self, raw: bytes) -> bool:
        """Whether this is the reading of exactly ``raw`` (the same object, or equal bytes)."""
        return self.raw is raw or self.raw == raw


def _member_names(text: str) -> Iterator[tuple[str, int]]:
    """Every object member name as written (with its quotes) and its character offset.

    The text has already parsed as strict JSON, so a string token directly followed by ``:``
    is a member name; scanning string tokens left to right never starts inside a string.
    """
    for match in _STRING.finditer(text):
        if _COLON.match(text, match.end()):
            yield match.group(), match.start()


def _walk(
    value: JsonValue, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], dict[str, JsonValue]]]:
    stack: list[tuple[tuple[str | int, ...], JsonValue]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, dict):
            yield where, item
            # Only containers can hold objects: scalars are never pushed (same objects, same
            # order, far fewer path tuples).
            stack.extend(((*where, k), v) for k, v in item.items() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend(
                ((*where, i), v) for i, v in enumerate(item) if isinstance(v, (dict, list))
            )


def _any_escaped_name(text: str) -> bool:
    """Whether any member name is written with a backslash (one C-speed pass, no offsets)."""
    return any(colon and "\\" in name for name, colon in _NAME_TOKEN.findall(text))


def _top(root: JsonValue) -> list[tuple[tuple[str | int, ...], dict[str, JsonValue]]]:
    return [((), root)] if isinstance(root, dict) else []


def _nested_bad_version(root: JsonValue) -> bool:
    """Whether an object below the root holds a record_version number that is not a bare uint."""
    containers = (dict, list)
    items = root.values() if isinstance(root, dict) else root if isinstance(root, list) else []
    stack = [v for v in items if isinstance(v, containers)]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            value = item.get("record_version")
            if isinstance(value, JsonNumber) and not is_uint(value):
                return True
            stack.extend(v for v in item.values() if isinstance(v, containers))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, containers))
    return False


def _escaped_discriminators(text: str) -> list[Check]:
    """One fail per member name that decodes to a discriminator but is written with an escape."""
    checks: list[Check] = []
    names = _member_names(text) if _any_escaped_name(text) else iter(())
    for written, offset in names:
        if "\\" in written:
            name = parse_text(written)
            if name in DISCRIMINATOR_NAMES:
                checks.append(
                    fail(
                        "document.escaped-discriminator",
                        f"discriminator name {written} is written with a backslash escape; seal "
                        "refuses escaped discriminator names (they hide the family)",
                        f"char {offset}",
                    )
                )
    return checks


# Every discriminator name is spelled with "_" and "a"-"z" only (U+005F, U+0061..U+007A; a test
# holds DISCRIMINATOR_NAMES to that). Of JSON's escapes only \uXXXX can stand for such a
# character, and then as \u005f or \u0061..\u007a (hex digits in either case). So a text with
# no \u005X, \u006X or \u007X anywhere has no member name that is written with an escape
# and decodes to a discriminator name or to record_version: both scans below are then exact
# without tokenizing the text.
_NAME_CHAR_ESCAPE = re.compile(r"\\u00[5-7][0-9a-fA-F]")


def _document_checks(text: str, root: JsonValue) -> list[Check]:
    # (a \u00XX escape starts with "\u": the memoized answer for this text rules it out first)
    escapes = holds_u_escape(text) and _NAME_CHAR_ESCAPE.search(text) is not None
    checks = _escaped_discriminators(text) if escapes else []
    # Paths are built only when some nested record_version is misspelled (rare): the usual
    # document needs the top-level rule alone. A nested member named record_version is written
    # either with an escape (seen above) or as the raw letters, which then occur in the text
    # beyond the root's own member (distinct member names are distinct tokens): when neither
    # holds there is none, and the walk over every container is skipped.
    raw = text.count("record_version")
    nested = escapes or raw > (isinstance(root, dict) and "record_version" in root)
    walk = _walk(root) if nested and _nested_bad_version(root) else _top(root)
    for where, obj in walk:
        value = obj.get("record_version")
        if "record_version" not in obj:
            continue
        top = where == ()
        if (top and not is_uint(value)) or (isinstance(value, JsonNumber) and not is_uint(value)):
            spelled = value.lexeme if isinstance(value, JsonNumber) else type(value).__name__
            checks.append(
                fail(
                    "document.record-version-spelling",
                    f"record_version is written as {spelled!s}, not a bare unsigned integer "
                    "(3.0, 3e0 and -0 are refused, never read as 3)",
                    pointer(*where, "record_version"),
                )
            )
    return checks


def read_document(raw: bytes) -> ReceiptDocument:
    """Run the document checks on the received bytes and classify the family.

    Refused here (each a ``fail`` check): a BOM, invalid UTF-8, text that is not strict JSON,
    trailing content, duplicate member names at any depth, a discriminator name written with an
    escape at any depth, a ``record_version`` number not spelled as a bare uint at any depth
    (and any non-uint value at the top level), a root that is not an object, a verifier-only
    ``authority_trusted`` member, and zero or several discriminator families.
    """
    try:
        text = decode_utf8(raw)
        root = parse_text(text)
    except JsonError as exc:
        check_id = _JSON_ERROR_IDS.get(exc.code, "document.malformed")
        return ReceiptDocument(None, None, (fail(check_id, f"refused: {exc}", ""),), raw)
    if not isinstance(root, dict):
        return ReceiptDocument(
            None, None, (fail("document.root-not-object", "the receipt is not a JSON object"),), raw
        )
    checks = _document_checks(text, root)
    if not checks:
        checks.append(
            passed(
                "document.strict-json",
                "strict UTF-8 JSON: no BOM, no trailing content, no duplicate members, "
                "discriminators unescaped, record_version a bare uint",
            )
        )
    if "authority_trusted" in root:
        checks.append(
            fail(
                "document.authority-trusted",
                "authority_trusted is computed by the verifier and must never appear in a receipt",
                pointer("authority_trusted"),
            )
        )
    family, family_checks = classify(root)
    checks.extend(family_checks)
    return ReceiptDocument(root, family, tuple(checks), raw)


# Each discriminator and the member names that claim it, in reporting order.
_FAMILY_KEYS = (
    ("seal_receipt", ("seal_receipt",)),
    ("record_type", ("record_type", "record_version")),
    ("seal_live_receipt", ("seal_live_receipt",)),
    ("seal_check_receipt", ("seal_check_receipt",)),
    ("receipt", ("receipt",)),
)


def classify(document: dict[str, JsonValue]) -> tuple[Family | None, list[Check]]:
    """The receipt family by exact discriminator equality, or None with the refusal.

    One branch per version, never a range: ``record_version`` 1 or 4 and ``seal_receipt`` "v9"
    are unknown; several families at once are refused, never resolved by priority.
    """
    # keys().isdisjoint(names) tests each name's membership in the dict, at C speed: the same
    # test as any(name in document for name in names).
    members = document.keys()
    present = [family for family, names in _FAMILY_KEYS if not members.isdisjoint(names)]
    if len(present) > 1:
        return None, [
            fail(
                "receipt.conflicting-discriminators",
                "conflicting version discriminators: "
                + ", ".join(present)
                + " (exactly one family is allowed)",
            )
        ]
    if present == ["seal_check_receipt"]:
        return None, [
            fail(
                "receipt.legacy-schema-k",
                "legacy Schema K receipt (seal_check_receipt) is refused: regenerate it with a "
                "current producer",
                pointer("seal_check_receipt"),
            )
        ]
    family: Family | None = None
    claim = ""
    if present == ["seal_receipt"]:
        claim = f"seal_receipt={_show(document['seal_receipt'])}"
        family = {"v1": Family.V1, "v2": Family.V2}.get(_str(document["seal_receipt"]))
    elif present == ["record_type"]:
        version = document.get("record_version")
        claim = f"record_type={_show(document.get('record_type'))} record_version={_show(version)}"
        if document.get("record_type") == RECORD_TYPE and is_uint(version):
            assert isinstance(version, JsonNumber)
            family = {"2": Family.V2_HOST, "3": Family.V3}.get(version.lexeme)
    elif present == ["seal_live_receipt"]:
        claim = f"seal_live_receipt={_show(document['seal_live_receipt'])}"
        family = Family.V0_LIVE if document["seal_live_receipt"] == "v0" else None
    elif present == ["receipt"]:
        claim = f"receipt={_show(document['receipt'])}"
        family = Family.SPINE if document["receipt"] == SPINE else None
    if family is None:
        return None, [
            fail(
                "receipt.unknown-version",
                "no recognized version discriminator" + (f" ({claim})" if claim else ""),
            )
        ]
    return family, [passed("receipt.family", f"receipt family {family} ({claim})", family=family)]


def _str(value: JsonValue) -> str:
    return value if isinstance(value, str) else ""


def _show(value: JsonValue) -> str:
    if isinstance(value, JsonNumber):
        return value.lexeme
    if isinstance(value, str):
        return repr(value)
    return type(value).__name__ if value is not None else "null"


class _Fields:
    """Collects field-rule violations as ``format.fields`` checks located by JSON pointer."""

    def __init__(self) -> None:
        self.checks: list[Check] = []

    def bad(self, where: str, reason: str) -> None:
        self.checks.append(fail("format.fields", reason, where))


_VERDICTS = ("ALLOW", "BLOCK", "ERROR")
_CHANNELS = ("file", "interactive", "ed25519")
_RELEASE = ("PENDING", "UNKNOWN", "RELEASED", "NOT_APPLICABLE")
_DURABILITY = ("asserted_local_fsync", "witnessed_external", "unknown")


def field_checks(doc: dict[str, JsonValue], family: str) -> list[Check]:
    """The member rules of seal-check's format layer for one decision-receipt family.

    Returns one ``format.fields`` fail per violation (located by JSON pointer), or one pass.
    Hash and signature *values* are recomputed elsewhere (see bindings and signatures).
    """
    f = _Fields()
    legacy = family == Family.V0_LIVE
    v2 = family in (Family.V2, Family.V2_HOST, Family.V3)
    bypass = doc.get("bypass")
    if not isinstance(bypass, bool):
        f.bad(pointer("bypass"), "bypass must be a boolean")
    mediated = bypass is False
    verdict = doc.get("verdict")
    if verdict not in _VERDICTS:
        f.bad(pointer("verdict"), f"verdict must be one of {', '.join(_VERDICTS)}")
    if not isinstance(doc.get("reason"), str):
        f.bad(pointer("reason"), "reason must be a string")
    _kernel_identity(f, doc, mediated, legacy)
    _host_identity(f, doc)
    if not legacy and "asserted_provenance" in doc:
        provenance = doc["asserted_provenance"]
        if not isinstance(provenance, dict) or provenance.get("verified_in_browser") is True:
            f.bad(
                pointer("asserted_provenance"),
                "asserted_provenance must be an object whose verified_in_browser is not true",
            )
    if "now" in doc and not is_uint(doc["now"]):
        f.bad(pointer("now"), "now must be a non-negative integer")
    _request_fields(f, doc, v2, mediated)
    if mediated:
        if not isinstance(doc.get("kernel_config"), dict):
            f.bad(pointer("kernel_config"), "a mediated receipt needs an object kernel_config")
        if not isinstance(doc.get("certs"), list):
            f.bad(pointer("certs"), "a mediated receipt needs a certs array")
        if not isinstance(doc.get("emitted_bytes"), str):
            f.bad(pointer("emitted_bytes"), "a mediated receipt needs emitted_bytes (a string)")
        if "deny_kernel" not in doc or not isinstance(doc["deny_kernel"], (str, type(None))):
            f.bad(pointer("deny_kernel"), "a mediated receipt needs deny_kernel (string or null)")
        _grants(f, doc)
    if v2:
        _v2_extras(f, doc, mediated)
    if family == Family.V3:
        _v3_extras(f, doc)
    if not f.checks:
        return [passed("format.fields", f"every member rule of family {family} holds")]
    return f.checks


def _kernel_identity(f: _Fields, doc: dict[str, JsonValue], mediated: bool, legacy: bool) -> None:
    identity = doc.get("kernel_identity")
    if not isinstance(identity, dict):
        f.bad(pointer("kernel_identity"), "kernel_identity must be an object")
        return
    wasm = identity.get("wasm_sha256")
    if mediated and not hex64(wasm):
        f.bad(
            pointer("kernel_identity", "wasm_sha256"),
            "a mediated receipt needs kernel_identity.wasm_sha256 as 64 lowercase hex",
        )
    if doc.get("bypass") is True and wasm is not None:
        f.bad(pointer("kernel_identity", "wasm_sha256"), "a bypass receipt has wasm_sha256 null")
    if not legacy:
        if not isinstance(identity.get("self_verified"), bool):
            f.bad(pointer("kernel_identity", "self_verified"), "self_verified must be a boolean")
        for name in ("lean_toolchain", "axioms"):
            if name in identity:
                f.bad(
                    pointer("kernel_identity", name),
                    f"{name} is asserted provenance and is forbidden inside kernel_identity",
                )


def _host_identity(f: _Fields, doc: dict[str, JsonValue]) -> None:
    if "host_identity" not in doc:
        return
    host = doc["host_identity"]
    if not isinstance(host, dict):
        f.bad(pointer("host_identity"), "host_identity must be an object")
        return
    for name in ("native_executable_sha256", "lean_ffi_sha256"):
        if name in host and not hex64(host[name]):
            f.bad(pointer("host_identity", name), f"{name} must be 64 lowercase hex")
    if "equivalence" in host and host["equivalence"] != "not_proven":
        f.bad(pointer("host_identity", "equivalence"), 'equivalence must be "not_proven"')


def _request_fields(f: _Fields, doc: dict[str, JsonValue], v2: bool, mediated: bool) -> None:
    if "request_parse_error" in doc:
        error = doc["request_parse_error"]
        if not isinstance(error, str) or not error:
            f.bad(pointer("request_parse_error"), "request_parse_error must be a non-empty string")
        if doc.get("bypass") is True:
            f.bad(pointer("bypass"), "an unparseable request cannot be a bypass receipt")
        if not hex64(doc.get("request_sha256")):
            f.bad(
                pointer("request_sha256"),
                "an unparseable receipt needs request_sha256 as 64 lowercase hex",
            )
        for name in (
            "tool",
            "arguments",
            "args_hash",
            "canonical_request",
            "canonical_request_sha256",
        ):
            if name in doc:
                f.bad(
                    pointer(name),
                    f"{name} must be absent when the request was unparseable "
                    "(structured fields beside request_parse_error)",
                )
        return
    tool = doc.get("tool")
    if not isinstance(tool, str) or not tool:
        f.bad(pointer("tool"), "tool must be a non-empty string")
    if not isinstance(doc.get("arguments"), dict):
        f.bad(pointer("arguments"), "arguments must be an object")
    if not hex64(doc.get("canonical_request_sha256")):
        f.bad(
            pointer("canonical_request_sha256"), "canonical_request_sha256 must be 64 lowercase hex"
        )
    if "request_sha256" in doc and not hex64(doc["request_sha256"]):
        f.bad(pointer("request_sha256"), "request_sha256 must be 64 lowercase hex")
    if "canonical_request" in doc and not isinstance(doc["canonical_request"], str):
        f.bad(pointer("canonical_request"), "canonical_request must be a string")
    if v2:
        if mediated and not hex64(doc.get("args_hash")):
            f.bad(
                pointer("args_hash"),
                "a mediated parsed receipt needs args_hash as 64 lowercase hex",
            )
        if doc.get("bypass") is True and "args_hash" in doc:
            f.bad(pointer("args_hash"), "args_hash must be absent on a bypass receipt")


def _grants(f: _Fields, doc: dict[str, JsonValue]) -> None:
    grants = doc.get("granted_capabilities")
    if not isinstance(grants, list):
        f.bad(
            pointer("granted_capabilities"), "a mediated receipt needs a granted_capabilities array"
        )
        return
    for index, grant in enumerate(grants):
        if not isinstance(grant, dict) or not (
            isinstance(grant.get("tool"), str) or hex64(grant.get("target"))
        ):
            f.bad(
                pointer("granted_capabilities", index),
                "each grant must be an object with a string tool or a hex64 target",
            )


def _v2_extras(f: _Fields, doc: dict[str, JsonValue], mediated: bool) -> None:
    if "action" in doc and (not isinstance(doc["action"], str) or not doc["action"]):
        f.bad(pointer("action"), "action must be a non-empty string")
    bypass = doc.get("bypass") is True
    config = doc.get("signed_config")
    if bypass and "signed_config" in doc:
        f.bad(pointer("signed_config"), "signed_config must be absent on a bypass receipt")
    if mediated:
        if not isinstance(config, dict):
            f.bad(pointer("signed_config"), "signed_config: object required (ENF-1)")
        else:
            if list(config) != ["payload", "signature", "pubkey"]:
                f.bad(
                    pointer("signed_config"),
                    "signed_config members must be exactly payload, signature, pubkey in order",
                )
            if not isinstance(config.get("payload"), str):
                f.bad(pointer("signed_config", "payload"), "payload must be a string")
            signature = config.get("signature")
            if not _hex128(signature):
                f.bad(
                    pointer("signed_config", "signature"),
                    "signature must be 128 lowercase hex digits",
                )
            if not hex64(config.get("pubkey")):
                f.bad(pointer("signed_config", "pubkey"), "pubkey must be 64 lowercase hex")
    authorization = doc.get("authorization")
    if "authorization" in doc and authorization not in ("approval", "explicit_policy_allow"):
        f.bad(
            pointer("authorization"), 'authorization must be "approval" or "explicit_policy_allow"'
        )
    if bypass and "approval" in doc:
        f.bad(pointer("approval"), "approval must be absent on a bypass receipt")
    if mediated and doc.get("verdict") == "ALLOW":
        if authorization == "explicit_policy_allow":
            if "approval" in doc:
                f.bad(pointer("approval"), "approval is forbidden with explicit_policy_allow")
            if doc.get("granted_capabilities") not in ([], None):
                f.bad(
                    pointer("granted_capabilities"),
                    "granted_capabilities must be empty with explicit_policy_allow",
                )
        elif "approval" not in doc:
            f.bad(pointer("approval"), "a mediated approval ALLOW needs an approval block")
    if "approval" in doc:
        _approval(f, doc["approval"])
    _payment(f, doc)


def _payment(f: _Fields, doc: dict[str, JsonValue]) -> None:
    """Payment class (schema §11.4): bound amount/merchant/currency copy their arguments."""
    config = doc.get("kernel_config")
    safety = config.get("safety") if isinstance(config, dict) else None
    tools = safety.get("tools") if isinstance(safety, dict) else None
    payment: JsonValue = None
    for entry in tools if isinstance(tools, list) else []:
        if isinstance(entry, dict) and entry.get("name") == doc.get("tool"):
            payment = entry.get("payment")
            break
    bind = payment.get("bind") if isinstance(payment, dict) else None
    arguments = doc.get("arguments")
    names = ("amount", "merchant", "currency")
    if isinstance(payment, dict) and payment.get("class") == "payment" and isinstance(bind, dict):
        for name in names:
            source = bind.get(name)
            bound = (
                arguments.get(source)
                if isinstance(arguments, dict) and isinstance(source, str)
                else None
            )
            if name not in doc or bound is None or doc[name] != bound:
                f.bad(
                    pointer(name),
                    f"payment class: {name} must be present and equal arguments.{source!s}",
                )
    else:
        for name in names:
            if name in doc:
                f.bad(pointer(name), f"{name} is only allowed for a payment-class tool")


def _approval(f: _Fields, approval: JsonValue) -> None:
    if not isinstance(approval, dict):
        f.bad(pointer("approval"), "approval must be an object")
        return
    identity = approval.get("approval_identity")
    channel = identity.get("channel") if isinstance(identity, dict) else None
    if not isinstance(identity, dict) or channel not in _CHANNELS:
        f.bad(
            pointer("approval", "approval_identity"),
            "approval_identity must be an object whose channel is file, interactive or ed25519",
        )
    elif (channel == "ed25519") != ("key_id" in identity):
        f.bad(
            pointer("approval", "approval_identity", "key_id"),
            "key_id is present exactly when the channel is ed25519",
        )
    elif "key_id" in identity and (
        not isinstance(identity["key_id"], str) or not identity["key_id"]
    ):
        f.bad(pointer("approval", "approval_identity", "key_id"), "key_id must be non-empty")
    if not hex64(approval.get("policy_hash")):
        f.bad(pointer("approval", "policy_hash"), "policy_hash must be 64 lowercase hex")
    for name in ("issued_at", "expiry"):
        if name in approval and not is_uint(approval[name]):
            f.bad(pointer("approval", name), f"{name} must be a non-negative integer")
    if "nonce" in approval and (not isinstance(approval["nonce"], str) or not approval["nonce"]):
        f.bad(pointer("approval", "nonce"), "nonce must be a non-empty string")
    if channel == "ed25519":
        for name in ("issued_at", "expiry", "nonce"):
            if name not in approval:
                f.bad(pointer("approval", name), f"the ed25519 channel requires {name}")


def _v3_extras(f: _Fields, doc: dict[str, JsonValue]) -> None:
    if doc.get("release_status") not in _RELEASE:
        f.bad(pointer("release_status"), f"release_status must be one of {', '.join(_RELEASE)}")
    if not hex64(doc.get("operation_id")):
        f.bad(pointer("operation_id"), "operation_id must be 64 lowercase hex")
    if doc.get("durability_class") not in _DURABILITY:
        f.bad(
            pointer("durability_class"), f"durability_class must be one of {', '.join(_DURABILITY)}"
        )
    if "signature" not in doc:
        f.bad(pointer("signature"), "a v3 receipt must carry its Object B signature")
