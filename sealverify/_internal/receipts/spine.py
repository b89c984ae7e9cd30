"""Seal CLI ``seal.spine/v1`` receipts: their canonical byte rule, commitments and signature."""

from __future__ import annotations

import decimal
import hashlib
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from sealverify._internal.primitives.signatures import ed25519_verify, key_id
from sealverify._internal.results.model import (
    Check,
    Status,
    fail,
    info,
    not_evaluated,
    passed,
    unpinned,
)
from sealverify._internal.results.outcomes import Outcome, Vocabulary, decide
from sealverify._internal.wire.spelling import HEX128, pointer_token
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue, member_spans
from sealverify.errors import InputError

_PASS = Status.PASS

__all__ = [
    "SEAL_DOMAIN",
    "SPINE_DISCRIMINATOR",
    "VOCABULARY",
    "NotReconstructable",
    "SpineResult",
    "canonical",
    "check_spine",
    "commitments",
    "js_number_text",
    "js_string",
    "js_string_text",
    "signing_message",
]

# Rules mirrored from velvetmonkey/seal@b15c8761efd4130f40c5f4deaabfa021210ce8cd
# (checker/seal-receipt-check.mjs `checkReceipt`, spine/receipt-seal.cjs `sealReceipt`,
# spine/receipts.cjs) and its browser port velvetmonkey/seal-check@0632f318 spine-receipt.js.
# See docs/spine.md for the rule-by-rule account.
SPINE_DISCRIMINATOR = ("receipt", "seal.spine/v1")
# The outcome words of a seal.spine/v1 receipt (docs/spine.md): seal's external checker's words,
# a failure FAIL and a signer not pinned UNPINNED; it claims no scope, so nothing reduces it.
VOCABULARY = Vocabulary(passed=Outcome.VERIFIED, failed=Outcome.FAIL, unpinned=Outcome.UNPINNED)
SEAL_DOMAIN = b"seal.receipt-seal/v1\n"

_REQUIRED = ("decision", "tool", "arguments")
# JSON.stringify (ECMAScript QuoteJSONString) escapes only these code units.
_QUOTE = re.compile('["\\\\\x00-\x1f\ud800-\udfff]')
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r"}
_SHORT_ESCAPES["\t"] = "\\t"
_SHOWN_WIDTH = 80


@dataclass(frozen=True)
class SpineResult:
    """The verdict on one spine receipt: VERIFIED, UNPINNED or FAIL, its checks and signer."""

    outcome: str
    checks: tuple[Check, ...]
    signer_key_id: str | None


class NotReconstructable(InputError, ValueError):
    """A received number the producer could not have written, so its signed bytes are unknown."""

    def __init__(self, pointer: str, lexeme: str, reason: str) -> None:
        super().__init__(f"{pointer or '/'}: number {lexeme} {reason}")
        self.pointer = pointer
        self.lexeme = lexeme
        self.reason = reason


# --- the byte rule -------------------------------------------------------------------------


def js_number_text(lexeme: str) -> str:
    """``JSON.stringify(JSON.parse(lexeme))``: ECMAScript Number::toString of the nearest double.

    Both sides pick the shortest round-tripping digits closest to the value, so Python's
    ``repr`` supplies the digits and ECMA-262 Number::toString places the point. ValueError for
    a lexeme that parses to an infinity (the producer's canonical refuses non-finite numbers).
    """
    value = float(lexeme)
    if not math.isfinite(value):
        raise ValueError("overflows to Infinity, which the producer refuses to sign")
    if value == 0:
        return "0"  # -0 too
    sign = "-" if value < 0 else ""
    parsed = decimal.Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(map(str, parsed.digits))
    k = len(digits)
    n = k + int(parsed.exponent)  # value = 0.digits × 10**n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    exponent = f"e{'+' if n > 0 else '-'}{abs(n - 1)}"
    return sign + digits[0] + ("." + digits[1:] if k > 1 else "") + exponent


def _quote_one(match: re.Match[str]) -> str:
    char = match.group()
    return _SHORT_ESCAPES.get(char) or f"\\u{ord(char):04x}"


def js_string_text(value: str) -> str:
    r"""Write a string as ``JSON.stringify`` does: ``"``, ``\`` and C0 escaped, nothing else.

    C0 uses the short escapes where they exist, else ``\u00xx``; DEL, U+2028/U+2029 and all
    non-ASCII are written raw.
    """
    return '"' + _QUOTE.sub(_quote_one, value) + '"'


def _pointer(parent: str, token: str | int) -> str:
    return f"{parent}/{pointer_token(token)}"


def _exact_number(number: JsonNumber, pointer: str) -> str:
    try:
        text = js_number_text(number.lexeme)
    except ValueError as exc:
        raise NotReconstructable(pointer, number.lexeme, str(exc)) from None
    if text != number.lexeme:
        raise NotReconstructable(pointer, number.lexeme, f"is spelled {text} by JavaScript")
    return text


def _utf8_order(name: str) -> bytes:
    return name.encode("utf-8", "surrogatepass")


def canonical(value: JsonValue, pointer: str = "") -> str:
    """Render the spine canonical form: compact JSON, object names sorted by their UTF-8 bytes.

    Strings and names as ``JSON.stringify`` writes them (:func:`js_string_text`), numbers as
    JavaScript spells the double they parse to, accepted only when that is the received lexeme
    (else :class:`NotReconstructable`, naming ``pointer``), arrays in received order.
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, JsonNumber):
        return _exact_number(value, pointer)
    if isinstance(value, str):
        return js_string_text(value)
    if isinstance(value, list):
        return "[" + ",".join(canonical(v, _pointer(pointer, i)) for i, v in enumerate(value)) + "]"
    names = sorted(value, key=_utf8_order)
    return (
        "{"
        + ",".join(
            js_string_text(name) + ":" + canonical(value[name], _pointer(pointer, name))
            for name in names
        )
        + "}"
    )


def js_string(value: JsonValue, pointer: str = "") -> str:
    """ECMAScript ``String(value)``, which the decision and tool commitments hash.

    A string is itself; numbers as in :func:`canonical`; arrays join their elements with ``,``
    (null as empty); any object is ``[object Object]``.
    """
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, JsonNumber):
        return _exact_number(value, pointer)
    if isinstance(value, list):
        return ",".join(
            "" if v is None else js_string(v, _pointer(pointer, i)) for i, v in enumerate(value)
        )
    return "[object Object]"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# --- commitments and the signed message ----------------------------------------------------


_COMMITMENTS = ("decision_sha256", "tool_sha256", "args_sha256", "effect_sha256")


def commitments(receipt: dict[str, JsonValue]) -> dict[str, str]:
    """Recompute the four ``seal`` commitments from ``receipt`` as the checker does.

    ``decision_sha256`` = sha256(String(decision)), ``tool_sha256`` = sha256(String(tool)),
    ``args_sha256`` = sha256(canonical(arguments)), ``effect_sha256`` =
    sha256(canonical({"args": arguments, "tool": tool})), all lowercase hex of UTF-8. KeyError
    for an absent field; NotReconstructable as for :func:`canonical`.
    """
    return {member: _recompute(receipt, member) for member in _COMMITMENTS}


def _recompute(receipt: dict[str, JsonValue], member: str) -> str:
    # One commitment at a time, so a bad number under one field does not mask the others.
    if member == "decision_sha256":
        return _sha256(js_string(receipt["decision"], "/decision"))
    if member == "tool_sha256":
        return _sha256(js_string(receipt["tool"], "/tool"))
    if member == "args_sha256":
        return _sha256(canonical(receipt["arguments"], "/arguments"))
    # canonical({"args": arguments, "tool": tool}) spelled out so that a bad number is named
    # by its place in the receipt; "args" sorts before "tool" in UTF-8, as canonical orders them.
    # The checker puts the raw tool value here (the sealer puts String(tool); equal for strings).
    args = canonical(receipt["arguments"], "/arguments")
    tool = canonical(receipt["tool"], "/tool")
    return _sha256('{"args":' + args + ',"tool":' + tool + "}")


def signing_message(receipt: dict[str, JsonValue]) -> bytes:
    r"""Build the signed bytes: ``seal.receipt-seal/v1\n`` + canonical(receipt minus ``seal.sig``).

    Every other member, ``seal.alg`` and the commitments included, is signed.
    """
    body = dict(receipt)
    seal = body.get("seal")
    if isinstance(seal, dict):
        body["seal"] = {name: value for name, value in seal.items() if name != "sig"}
    return SEAL_DOMAIN + canonical(body).encode("utf-8", "surrogatepass")


# --- the check ----------------------------------------------------------------------------


def _numbers(value: JsonValue, pointer: str = "") -> Iterator[tuple[str, JsonNumber]]:
    if isinstance(value, JsonNumber):
        yield pointer, value
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _numbers(item, _pointer(pointer, i))
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from _numbers(item, _pointer(pointer, name))


def _field_lines(raw: bytes) -> dict[str, int]:
    """Line (1-based, counting LF) of each top-level member name in the received text."""
    try:
        text = raw.decode("utf-8")
        start = len(text) - len(text.lstrip(" \t\r\n"))
        spans = member_spans(text, start)
    except (UnicodeDecodeError, ValueError, IndexError):
        return {}
    # The spans come in text order: count the line breaks between one and the next only (a
    # count from the start for every member took quadratic time on many members).
    lines: dict[str, int] = {}
    line, counted = 1, 0
    for span in spans:
        if span.name_start < counted:
            line, counted = 1, 0
        line += text.count("\n", counted, span.name_start)
        counted = span.name_start
        lines[span.name] = line
    return lines


def _shown(value: JsonValue) -> str:
    try:
        text = canonical(value)
    except NotReconstructable:
        text = "(a number that cannot be reconstructed)"
    return text if len(text) <= _SHOWN_WIDTH else text[: _SHOWN_WIDTH - 1] + "…"


def _commitment_checks(receipt: dict[str, JsonValue], lines: dict[str, int]) -> list[Check]:
    checks: list[Check] = []
    seal = receipt["seal"]
    assert isinstance(seal, dict)
    # (field named in the finding, commitment member, check id, values it covers)
    table = (
        ("decision", "decision_sha256", "spine.decision-commitment", ("decision",)),
        ("tool", "tool_sha256", "spine.tool-commitment", ("tool",)),
        ("arguments", "args_sha256", "spine.arguments-commitment", ("arguments",)),
        ("tool and arguments", "effect_sha256", "spine.effect-commitment", ("tool", "arguments")),
    )
    for field, member, check_id, covers in table:
        where = f"/seal/{member}"
        absent = [name for name in covers if name not in receipt]
        if absent:
            checks.append(
                not_evaluated(
                    check_id,
                    f"seal.{member} not checked: the receipt has no {' or '.join(absent)} field",
                    where,
                )
            )
            continue
        try:
            expected = _recompute(receipt, member)
        except NotReconstructable as exc:
            checks.append(
                not_evaluated(
                    check_id,
                    f"seal.{member} not checked: number {exc.lexeme} at {exc.pointer} "
                    "cannot be reconstructed (see spine.cannot-reconstruct)",
                    where,
                )
            )
            continue
        stated = seal.get(member)
        if stated == expected:
            matches = "match" if " and " in field else "matches"
            checks.append(passed(check_id, f"{field} {matches} seal.{member}", where))
            continue
        checks.append(_mismatch(check_id, field, member, receipt, stated, lines))
    return checks


_UPSTREAM_CODES = {
    "decision_sha256": "decision_binding_mismatch",
    "tool_sha256": "tool_binding_mismatch",
    "args_sha256": "arguments_binding_mismatch",
    "effect_sha256": "effect_binding_mismatch",
}


def _mismatch(
    check_id: str,
    field: str,
    member: str,
    receipt: dict[str, JsonValue],
    stated: JsonValue,
    lines: dict[str, int],
) -> Check:
    # A commitment names a field, not a place: only a direct scalar field gets its line (as the
    # checker's lineForDirectField does); a structured value only shows that something changed.
    data: dict[str, object] = {
        "field": field,
        "commitment": member,
        "upstream_code": _UPSTREAM_CODES[member],
    }
    seal = receipt["seal"]
    problem = ""
    if not isinstance(stated, str):
        state = "absent" if isinstance(seal, dict) and member not in seal else "not a string"
        problem = f" (seal.{member} is {state})"
    value = receipt.get(field) if field in receipt else receipt
    if isinstance(value, dict | list):
        location = f"/{field}" if field in receipt else f"/seal/{member}"
        reason = (
            f"{field} {'do' if ' and ' in field else 'does'} not match seal.{member}{problem}: "
            "the commitment covers a "
            "structured value, so it shows that the value or its commitment changed, not which "
            "nested line"
        )
        return fail(check_id, reason, location, **data)
    line = lines.get(field)
    where = f"receipt line {line}, field {field}" if line else f"field {field} (line unknown)"
    reason = (
        f"{where}: recorded value {_shown(value)} does not match seal.{member}{problem}; "
        "the field or its commitment was changed after signing"
    )
    if line:
        data["line"] = line
    return fail(check_id, reason, f"/{field}", **data)


def _signature_check(
    receipt: dict[str, JsonValue],
    receipt_pubkeys: Sequence[bytes],
    reconstructable: bool,
    commitments_ok: bool,
) -> tuple[Check, str | None]:
    seal = receipt["seal"]
    assert isinstance(seal, dict)
    where = "/seal/sig"
    sig = seal.get("sig")
    if not isinstance(sig, str) or not HEX128.fullmatch(sig):
        return fail(
            "spine.signature-format",
            "seal.sig is missing or is not 128 lowercase hex digits (a 64-byte Ed25519 signature)",
            where,
            upstream_code="signature_malformed",
        ), None
    if seal.get("alg") != "ed25519":
        return not_evaluated("spine.signature", "not checked: seal.alg is not ed25519", where), None
    if not receipt_pubkeys:
        return unpinned(
            "spine.signature",
            "no pinned receipt key, so the signature was not checked; pin the signer with "
            "--receipt-pubkey or the trust file (a spine receipt never names its own key)",
            where,
        ), None
    bad = [i for i, key in enumerate(receipt_pubkeys) if len(key) != 32]
    if bad:
        return fail(
            "spine.signature",
            f"pinned receipt key #{bad[0] + 1} is {len(receipt_pubkeys[bad[0]])} bytes, not 32",
            where,
            upstream_code="pubkey_invalid",
        ), None
    if not reconstructable:
        return not_evaluated(
            "spine.signature",
            "not checked: the signed bytes cannot be reconstructed (see spine.cannot-reconstruct)",
            where,
        ), None
    message = signing_message(receipt)
    signature = bytes.fromhex(sig)
    for key in receipt_pubkeys:
        if ed25519_verify(key, message, signature):
            kid = key_id(key)
            return passed(
                "spine.signature",
                f"Ed25519 signature verifies under pinned key {key.hex()}",
                where,
                public_key=key.hex(),
                key_id=kid,
            ), kid
    scope = "any of the pinned keys" if len(receipt_pubkeys) > 1 else "the pinned key"
    reason = f"the signature does not verify under {scope}"
    if commitments_ok:
        reason += (
            "; every commitment matched, so the change is in the signature, in a signed member "
            "without a commitment of its own (at, child, evidence, seal...), or the signer differs"
        )
    return fail(
        "spine.signature",
        reason,
        where,
        upstream_code="signature_invalid",
        pinned=[key.hex() for key in receipt_pubkeys],
    ), None


def _evidence_checks(receipt: dict[str, JsonValue]) -> list[Check]:
    if "evidence" not in receipt:
        return []
    evidence = receipt["evidence"]
    if not isinstance(evidence, dict):
        return [info("spine.evidence-stated", "evidence: stated, not verified", "/evidence")]
    checks: list[Check] = []
    for name in sorted(evidence, key=_utf8_order):
        value = evidence[name]
        reason = f"evidence.{name} = {_shown(value)}: stated, not verified"
        if value == "unknown":
            reason += " (the producer itself does not know)"
        reason += (
            "; the receipt carries nothing that proves it, the signature only shows who said it"
        )
        checks.append(info("spine.evidence-stated", reason, _pointer("/evidence", name)))
    return checks


def _shape_checks(document: dict[str, JsonValue], seal: dict[str, JsonValue]) -> list[Check]:
    """The seal's algorithm, and every field the checker requires present."""
    checks: list[Check] = []
    if seal.get("alg") == "ed25519":
        checks.append(passed("spine.seal-alg", "seal.alg is ed25519", "/seal/alg"))
    else:
        checks.append(
            fail(
                "spine.seal-alg",
                f'seal.alg is {_shown(seal.get("alg"))}, not "ed25519"',
                "/seal/alg",
                upstream_code="unknown_algorithm",
            )
        )
    for field in _REQUIRED:
        if field not in document:
            checks.append(
                fail(
                    "spine.field-present",
                    f"the receipt has no {field} field",
                    f"/{field}",
                    upstream_code="incomplete_receipt",
                )
            )
    return checks


def _inexact_numbers(document: dict[str, JsonValue]) -> list[Check]:
    """Each number whose signed spelling the JavaScript producer could not have written."""
    inexact: list[Check] = []
    for pointer, number in _numbers(document):
        try:
            _exact_number(number, pointer)
        except NotReconstructable as exc:
            inexact.append(
                fail(
                    "spine.cannot-reconstruct",
                    f"number {exc.lexeme} {exc.reason}; the producer (JavaScript) could not have "
                    "written it, so the bytes it signed cannot be reconstructed",
                    pointer,
                    lexeme=exc.lexeme,
                )
            )
    return inexact


def check_spine(
    raw: bytes, document: dict[str, JsonValue], receipt_pubkeys: Sequence[bytes]
) -> SpineResult:
    """Check one ``seal.spine/v1`` receipt as seal's external checker does, reporting every check.

    ``raw`` is the exact received text (for line numbers), ``document`` its strict parse and
    ``receipt_pubkeys`` the pinned signer keys (raw 32 bytes). No pin: at most UNPINNED. A pin
    that does not verify, a commitment that does not match or a number whose signed spelling
    cannot be reconstructed: FAIL. Never raises on bad evidence.
    """
    checks: list[Check] = []
    if not isinstance(document, dict):
        checks.append(
            fail(
                "spine.receipt-object",
                "the receipt is not a JSON object",
                "",
                upstream_code="not_a_receipt",
            )
        )
        return SpineResult(decide(checks, VOCABULARY).outcome, tuple(checks), None)
    name, version = SPINE_DISCRIMINATOR
    if document.get(name) != version:
        checks.append(
            fail(
                "spine.discriminator",
                f"{name} is not {version!r}",
                f"/{name}",
                upstream_code="unknown_format",
            )
        )
        return SpineResult(decide(checks, VOCABULARY).outcome, tuple(checks), None)
    checks.append(passed("spine.discriminator", f"{name} is {version!r}", f"/{name}"))
    seal = document.get("seal")
    if not isinstance(seal, dict):
        checks.append(
            fail(
                "spine.sealed",
                "the receipt carries no seal object; it cannot be checked",
                "/seal",
                upstream_code="unsealed",
            )
        )
        checks.extend(_evidence_checks(document))
        return SpineResult(decide(checks, VOCABULARY).outcome, tuple(checks), None)
    checks.extend(_shape_checks(document, seal))
    inexact = _inexact_numbers(document)
    checks.extend(inexact)
    commitment_checks = _commitment_checks(document, _field_lines(raw))
    checks.extend(commitment_checks)
    commitments_ok = all(check.status == _PASS for check in commitment_checks)
    signature, signer = _signature_check(document, receipt_pubkeys, not inexact, commitments_ok)
    checks.append(signature)
    checks.extend(_evidence_checks(document))
    return SpineResult(decide(checks, VOCABULARY).outcome, tuple(checks), signer)
