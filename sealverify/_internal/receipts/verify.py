"""Verify seal decision receipts from their bytes: one Subject per receipt, pure and offline.

The steps follow the P-ENFORCE checklist of docs/verify.md: document checks and family
(receipts), member rules, bypass, kernel identity, every binding and signature (bindings),
authority from pins only (trust), the decision re-derived by sealverify's model of the kernel
build the receipt names (rederivation), then the outcome (outcome).
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from sealverify._internal.approvals import consumed as receipt_approval
from sealverify._internal.approvals.consumed import SignedTime
from sealverify._internal.kernel.replay import Rederivation
from sealverify._internal.primitives import publishedkeys
from sealverify._internal.primitives.signatures import key_id
from sealverify._internal.primitives.trust import Decision, TrustStore
from sealverify._internal.receipts import bindings, claims, members, rederivation, sessions
from sealverify._internal.receipts.bindings.signatures import object_b_envelopes
from sealverify._internal.receipts.compared import attach_compared
from sealverify._internal.receipts.families import (
    DISCRIMINATOR_NAMES,
    ReceiptDocument,
    hex64,
    read_document,
)
from sealverify._internal.receipts.families import field_checks as receipt_field_checks
from sealverify._internal.receipts.view import ReceiptView, read_view
from sealverify._internal.receipts.view import (
    signed_time as signed_time,  # where it was first named
)
from sealverify._internal.results import ids
from sealverify._internal.results.model import (
    Check,
    Report,
    Status,
    Subject,
    fail,
    info,
    not_evaluated,
    passed,
    reduced,
    unpinned,
)
from sealverify._internal.results.outcomes import (
    NOT_MEDIATED,
    RECEIPT_OUTCOMES,
    Outcome,
    Vocabulary,
    decide,
    exit_code,
)
from sealverify._internal.results.vocabulary import Family, Role
from sealverify._internal.results.waivers import apply_waivers, waivable, waived_ids
from sealverify._internal.wire.spelling import pointer
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonValue,
    decode_utf8,
    parse_text,
    uint_value,
)
from sealverify._internal.wording import rules as wording

_PASS, _FAIL, _WAIVED = Status.PASS, Status.FAIL, Status.WAIVED

__all__ = [
    "DEFAULT_KERNEL_SHA256",
    "VOCABULARY",
    "VerifyOptions",
    "build_report",
    "build_report_from_tally",
    "is_receipt_like",
    "log_line_body",
    "log_lines",
    "verify_found",
    "verify_jsonl",
    "verify_log_line",
    "verify_receipt",
]

# The audited fleet kernel build: seal-host@099be66 VERIFIED_WASM_SHA256 (docs/verify.md).
DEFAULT_KERNEL_SHA256 = "28bb3ae71985357163e3b651791e2a70c462ea5d1313a59b4967d4c20ea77657"
# A walked file is a receipt when it holds a discriminator or one of these decision members.
_RECEIPT_MEMBERS = DISCRIMINATOR_NAMES | {"verdict", "emitted_bytes", "kernel_identity", "bypass"}
# The outcome words of a decision receipt (ENF-1..5; seal-check@0632f31 ``receipt.js``
# ``verifyReceipt``, seal-assurance-kit ``docs/VERIFY-PROFILES.md`` §4): no passing check at all
# is FAIL (U3), a failure FAIL (labelled NOT MEDIATED when the receipt is a bypass), an authority
# not pinned UNPINNED, a reduced scope REDUCED (a request the host could not parse, a decision
# not re-derived, a claim nothing binds: docs/claims.md), else VERIFIED. The rule is
# ``sealverify._internal.results.outcomes.decide``, shared by every command.
VOCABULARY = Vocabulary(
    passed=Outcome.VERIFIED,
    failed=Outcome.FAIL,
    unpinned=Outcome.UNPINNED,
    reduced=Outcome.REDUCED,
    empty=Outcome.FAIL,
    labels=MappingProxyType({ids.BYPASS_NOT_MEDIATED: NOT_MEDIATED}),
)


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    """Authority for a run: the pins (flags and trust file) and the accepted kernel builds."""

    trust: TrustStore = field(default_factory=TrustStore)
    kernel_pins: tuple[str, ...] = (DEFAULT_KERNEL_SHA256,)  # the trust file's kernels add to these
    approval_tokens: tuple[tuple[str, bytes], ...] | None = None  # None: no --approvals given
    wording_rules: wording.RuleSet = wording.DEFAULT_RULES
    # Raw request lines supplied out of band (--raw-line), by the sha256 of their lean_view.
    raw_lines: Mapping[str, bytes] = field(default_factory=dict)
    # Whether replay.decision re-derives decisions (--no-rederive switches it off).
    rederive: bool = True
    # --allow-published-keys: a signature under a published key (publishedkeys) is reported
    # as info instead of capping the receipt at UNPINNED.
    allow_published_keys: bool = False
    # Check ids the user waives (--waive, the trust file's "waive"): legacy.* only.
    waive: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        waivable(self.waive)  # OptionError for a check that is never waived

    @property
    def waivers(self) -> frozenset[str]:
        """Everything waived: the options' own ids and the trust file's."""
        return self.waive | frozenset(self.trust.waive)


def _side_checks(
    doc: dict[str, JsonValue],
    options: VerifyOptions,
    attestation: JsonValue | None,
    view: ReceiptView,
) -> list[Check]:
    """Approval tokens, the wording rules and partition attestations, from the one reading."""
    checks: list[Check] = []
    frame = view.frames.object_a
    if options.approval_tokens is not None:
        keys = [bytes.fromhex(p.public_key) for p in options.trust.pinned(Role.APPROVAL)]
        checks.extend(
            receipt_approval.check_receipt_approval(
                doc, options.approval_tokens, keys, view.time, frame=frame
            )
        )
    checks.extend(wording.lint_receipt(doc, view.meta_keys, options.wording_rules))
    carried = doc.get("partition_attestation")
    for source, item in (("receipt member", carried), ("side file", attestation)):
        if item is None:
            continue
        if not isinstance(item, dict):
            checks.append(fail("partition.attestation", f"{source}: not a JSON object"))
        elif frame is None:
            checks.append(
                not_evaluated(
                    "partition.attestation",
                    f"{source}: the receipt carries no frame bytes to recompute it from",
                )
            )
        else:
            # Loaded with the first attestation (with the frame validator it needs): a run
            # over receipts that carry none never pays for either.
            from sealverify._internal.partition import records as partition

            keys = [bytes.fromhex(p.public_key) for p in options.trust.pinned(Role.RECEIPT)]
            checks.extend(partition.check_attestation(item, frame, keys))
    return checks


def _decide(
    trust: TrustStore, role: Role, key: str, at_ms: int | None, no_time: str
) -> tuple[Decision, str]:
    """``TrustStore.decide_with_reason``, its ``unjudged`` reason naming why no time was signed.

    A matching pin without a window trusts at any time; a key whose only matching pins have
    windows, with no signed time to judge them at, is neither trusted nor refused: its
    authority cannot be established (not-evaluated).
    """
    decision, reason = trust.decide_with_reason(role, key, at_ms)
    if decision == "unjudged":
        pin = next(pin for pin in trust.pinned(role) if pin.public_key == key)
        reason = (
            f"{role} key matches pin {pin.describe()}, whose validity window "
            f"cannot be judged: {no_time}"
        )
    return decision, reason


def _authority(
    role: Role,
    check_id: str,
    key: JsonValue,
    time: SignedTime,
    trust: TrustStore,
) -> Check:
    where = (
        pointer("signed_config", "pubkey")
        if role == Role.CONFIG
        else pointer("signature", "public_key")
    )
    if not hex64(key):
        return fail(
            check_id, f"no {role} key in the receipt: authority cannot be established", where
        )
    decision, reason = _decide(trust, role, str(key), time.at_ms, time.why_none)
    if decision == "trusted":
        return passed(check_id, reason, where, key=key)
    if decision == "untrusted":
        return fail(check_id, f"unauthorised {role} signer: {reason}", where, key=key)
    if decision == "unjudged":
        return unpinned(check_id, f"authority not established: {reason}", where, key=key)
    return unpinned(check_id, f"UNPINNED: {reason}", where, key=key)


def _approval_authority(
    doc: dict[str, JsonValue], trust: TrustStore, time: SignedTime
) -> list[Check]:
    """With approval pins: an ed25519 approval's key_id must be sha256 of a pinned key."""
    pins = trust.pinned(Role.APPROVAL)
    approval = doc.get("approval")
    if not pins or not isinstance(approval, dict):
        return []
    identity = approval.get("approval_identity")
    identity = identity if isinstance(identity, dict) else {}
    where = pointer("approval", "approval_identity")
    if identity.get("channel") != "ed25519":
        return [
            info(
                "authority.approval-key",
                f"approval channel {identity.get('channel')!s} names no key; approval "
                "pins do not apply",
                where,
            )
        ]
    wanted = identity.get("key_id")
    for pin in pins:
        if key_id(bytes.fromhex(pin.public_key)) == wanted:
            decision, reason = _decide(
                trust, Role.APPROVAL, pin.public_key, time.at_ms, time.why_none
            )
            if decision == "trusted":
                return [passed("authority.approval-key", reason, where)]
            if decision == "unjudged":
                return [unpinned(ids.AUTHORITY_APPROVAL_KEY, reason, where)]
            return [fail("authority.approval-key", f"unauthorised approver: {reason}", where)]
    return [
        fail(
            "authority.approval-key",
            "unauthorised approver: approval key_id is not sha256 of any pinned approval key",
            where,
        )
    ]


def _kernel(doc: dict[str, JsonValue], pins: Sequence[str]) -> Check:
    identity = doc.get("kernel_identity")
    wasm = identity.get("wasm_sha256") if isinstance(identity, dict) else None
    where = pointer("kernel_identity", "wasm_sha256")
    if isinstance(wasm, str) and wasm in pins:
        return passed("kernel.identity", f"kernel wasm {wasm} is a pinned build", where)
    return fail(
        "kernel.identity",
        f"kernel wasm {wasm!s} is not a pinned build (pinned: "
        + ", ".join(p[:16] + "…" for p in pins)
        + "); add --kernel-sha256 to accept it",
        where,
        wasm_sha256=wasm if isinstance(wasm, str) else None,
    )


def _facts(doc: dict[str, JsonValue], family: str | None) -> dict[str, Any]:
    facts: dict[str, Any] = {"family": family}
    for name in ("tool", "verdict", "request_sha256", "canonical_request_sha256"):
        value = doc.get(name)
        if isinstance(value, str):
            facts[name] = value
    config = doc.get("signed_config")
    if isinstance(config, dict) and isinstance(config.get("pubkey"), str):
        facts["config_key"] = config["pubkey"]
    signature = doc.get("signature")
    if isinstance(signature, dict):
        for member, fact in (("public_key", "receipt_key"), ("domain", "receipt_domain")):
            if isinstance(signature.get(member), str):
                facts[fact] = signature[member]
    identity = doc.get("kernel_identity")
    wasm = identity.get("wasm_sha256") if isinstance(identity, dict) else None
    if isinstance(wasm, str):
        facts["kernel_wasm_sha256"] = wasm
    return facts


def _unpassed(checks: list[Check]) -> list[int]:
    """The indexes of the checks that do not pass (a few of a receipt's ~40), in order.

    A check's status is its :class:`Status` member whenever it is one of the words
    (``Check.__post_init__``; the helpers pass members), so ``is`` decides it.
    """
    return [index for index, check in enumerate(checks) if check.status is not _PASS]


def _subject(
    name: str,
    checks: list[Check],
    facts: dict[str, Any],
    replay: Check,
    waive: frozenset[str] = frozenset(),
    signed_at: int | None = None,
    unpassed: list[int] | None = None,
) -> Subject:
    """The receipt's subject; ``unpassed``: :func:`_unpassed` of ``checks``, when known."""
    odd = _unpassed(checks) if unpassed is None else unpassed
    checks[:] = apply_waivers(checks, waive, odd)
    if any(checks[index].status == _WAIVED for index in odd):
        facts["waived"] = waived_ids(checks[index] for index in odd)
    # The verdict reads statuses, effects and the ids of failures only: the checks that do not
    # pass, in order, and one that passes (when any does) decide as all of them do.
    few = [checks[index] for index in odd]
    if len(odd) < len(checks):
        few.append(checks[_first_gap(odd)])
    checks.append(replay)
    few.append(replay)
    facts["rederivation"] = str(replay.status)  # the plain word, as the report writes it
    result, label = decide(few, VOCABULARY)
    display = {} if signed_at is None else {"signed_time_ms": signed_at}
    return Subject(name, result, tuple(checks), facts, label, display)


def _first_gap(indexes: list[int]) -> int:
    """The least index not in ``indexes`` (increasing, distinct, from 0)."""
    gap = 0
    while gap < len(indexes) and indexes[gap] == gap:
        gap += 1
    return gap


def _replay(
    doc: dict[str, JsonValue],
    options: VerifyOptions,
    session_rederivation: Rederivation | None,
    view: ReceiptView,
) -> Check:
    if session_rederivation is not None and options.rederive:
        return rederivation.check_of(session_rederivation)
    return rederivation.rederivation_check(doc, options.raw_lines, options.rederive, view.frames)


_SPINE_REPLAY = rederivation.not_applicable(
    "seal.spine/v1 receipts record no kernel step (docs/spine.md)"
)
# Checks whose every text is fixed: one object serves every receipt (a check is immutable).
_MEDIATED = passed("bypass.not-mediated", "the call was mediated (bypass false)", pointer("bypass"))
_UNREAD_REPLAY = rederivation.not_applicable("the document was not read as a decision receipt")


def _verify_spine(
    raw: bytes, name: str, doc: dict[str, JsonValue], checks: list[Check], options: VerifyOptions
) -> Subject:
    # Loaded when a spine receipt is met. It is part of the package: an import that fails is a
    # defect in sealverify (an internal error), never a finding on the evidence.
    spine = importlib.import_module("sealverify._internal.receipts.spine")
    checker = spine.check_spine
    facts: dict[str, Any] = {"family": Family.SPINE}
    keys = [bytes.fromhex(p.public_key) for p in options.trust.pinned(Role.RECEIPT)]
    result = checker(raw, doc, keys)
    checks.extend(members.member_checks(doc, Family.SPINE))
    checks.extend(result.checks)
    published = publishedkeys.lookup_key_id(result.signer_key_id)
    if published is not None:
        checks.append(
            publishedkeys.check_key(
                "spine receipt", published, "/seal/sig", options.allow_published_keys
            )
        )
    checks.extend(_spine_window(doc, result.signer_key_id, options.trust))
    checks.append(_SPINE_REPLAY)
    facts["rederivation"] = str(_SPINE_REPLAY.status)
    final = decide(checks, spine.VOCABULARY).outcome
    at = uint_value(doc.get("at")) if result.signer_key_id is not None else None
    display = {} if at is None else {"signed_time_ms": at}
    return Subject(name, final, tuple(checks), facts, "", display)


def _spine_window(
    doc: dict[str, JsonValue], signer_key_id: str | None, trust: TrustStore
) -> list[Check]:
    """The spine signer's pin judged at ``at``, the time the verified spine seal covers."""
    if signer_key_id is None:
        return []
    signer = next(
        (
            p.public_key
            for p in trust.pinned(Role.RECEIPT)
            if key_id(bytes.fromhex(p.public_key)) == signer_key_id
        ),
        None,
    )
    if signer is None:  # pragma: no cover - the seal verified under one of these pins
        return []
    at = uint_value(doc.get("at"))
    why = "" if at is not None else "the spine receipt carries no integer at"
    decision, reason = _decide(trust, Role.RECEIPT, signer, at, why)
    where = "/seal/sig"
    if decision == "trusted":
        return [passed("authority.receipt-key", reason, where)]
    if decision == "untrusted":
        return [fail("authority.receipt-key", f"unauthorised receipt signer: {reason}", where)]
    return [unpinned(ids.AUTHORITY_RECEIPT_KEY, f"authority not established: {reason}", where)]


def verify_receipt(
    raw: bytes,
    name: str,
    options: VerifyOptions = VerifyOptions(),
    attestation: JsonValue | None = None,
    session_rederivation: Rederivation | None = None,
    read: ReceiptDocument | None = None,
    view: ReceiptView | None = None,
) -> Subject:
    """Verify one receipt document from its exact bytes; never raises on bad evidence.

    ``attestation`` is a partition attestation from a side file, when one was found;
    ``session_rederivation`` the receipt's re-derivation in its session's order, when one was made;
    ``read`` a :func:`read_document` of these bytes a caller already made (used only when it
    is the reading of exactly ``raw``; anything else is read again), and ``view`` the
    :func:`read_view` of its document the caller made (used only with ``read``).
    """
    reading = _reading(raw, read)
    return _verify_read(
        raw,
        name,
        reading,
        options,
        attestation,
        session_rederivation,
        view=_view(reading, read, view),
    )


def _view(
    reading: ReceiptDocument, read: ReceiptDocument | None, view: ReceiptView | None
) -> ReceiptView | None:
    """A caller's view, only when the reading verified is the one it was made of."""
    return view if reading is read else None


def _reading(raw: bytes, read: ReceiptDocument | None) -> ReceiptDocument:
    """``read`` when it is the reading of exactly ``raw``, else a fresh one."""
    return read if read is not None and read.of(raw) else read_document(raw)


def _verify_read(
    raw: bytes,
    name: str,
    read: ReceiptDocument,
    options: VerifyOptions,
    attestation: JsonValue | None,
    session_rederivation: Rederivation | None = None,
    session_feed: sessions.LineFeed | None = None,
    view: ReceiptView | None = None,
) -> Subject:
    checks = list(read.checks)
    doc, family = read.document, read.family
    if view is None and doc is not None:
        view = read_view(doc, family)  # the one reading
    if session_feed is not None and doc is not None and view is not None:
        session_rederivation = session_feed(
            doc, view.frames
        )  # in log order, every strictly read line
    if doc is None or family is None or view is None:
        return _subject(name, checks, _facts(doc or {}, family), _UNREAD_REPLAY)
    if family == Family.SPINE:
        return _verify_spine(raw, name, doc, checks, options)
    checks.extend(receipt_field_checks(doc, family))
    checks.extend(members.member_checks(doc, family))
    checks.extend(object_b_envelopes(doc, family, raw))
    bypass = doc.get("bypass") is True
    if bypass:
        checks.append(
            fail(
                "bypass.not-mediated",
                "bypass: the call did not go through seal; never verified",
                pointer("bypass"),
            )
        )
    elif doc.get("bypass") is False:
        checks.append(_MEDIATED)
        checks.append(_kernel(doc, (*options.kernel_pins, *options.trust.kernels)))
    if "request_parse_error" in doc:
        checks.append(
            reduced(
                ids.SCOPE_REQUEST_UNPARSEABLE,
                "the host could not parse the request: only its raw-line identity (request_sha256) "
                "is bound, and the decision re-derives only from a raw line supplied out of band "
                "(--raw-line) (REDUCED at best)",
                pointer("request_parse_error"),
            )
        )
    derived = bindings.Derivations(doc, view)  # every check below is handed the one reading
    for binding in bindings.ALL_BINDINGS:
        checks.extend(binding(doc, derived))
    if family == Family.V3:
        for binding in bindings.V3_BINDINGS:
            checks.extend(binding(doc, derived))
    time = view.time
    if doc.get("bypass") is False:
        config = doc.get("signed_config")
        key = config.get("pubkey") if isinstance(config, dict) else None
        checks.append(_authority(Role.CONFIG, ids.AUTHORITY_CONFIG_KEY, key, time, options.trust))
    checks.extend(_approval_authority(doc, options.trust, time))
    if family == Family.V3:
        signature = doc.get("signature")
        key = signature.get("public_key") if isinstance(signature, dict) else None
        checks.append(_authority(Role.RECEIPT, ids.AUTHORITY_RECEIPT_KEY, key, time, options.trust))
    checks.extend(publishedkeys.receipt_checks(doc, attestation, options.allow_published_keys))
    checks.extend(_side_checks(doc, options, attestation, view))
    replay = _replay(doc, options, session_rederivation, view)
    checks.append(claims.decision_check(family, replay))
    checks.extend(claims.unbound_check(doc, family, checks))
    checks.extend(claims.asserted_check(doc, family))
    unpassed = _unpassed(checks)  # one scan for the comparisons, the waivers and the verdict
    attach_compared(checks, doc, options.trust, unpassed)
    return _subject(
        name, checks, _facts(doc, family), replay, options.waivers, time.at_ms, unpassed
    )


def is_receipt_like(raw: bytes) -> bool:
    """Whether a file found by a directory walk should be verified as a receipt.

    False for strict JSON whose root is not an object, or an object with no discriminator and
    none of the members every decision receipt has: such files (policies, trust files,
    bundles, vector lists) are skipped, and the skip is reported. Anything that is not strict
    JSON is verified (and fails).
    """
    try:
        root = parse_text(decode_utf8(raw))
    except JsonError:
        return True
    return isinstance(root, dict) and bool(_RECEIPT_MEMBERS & root.keys())


def _worth_verifying(read: ReceiptDocument) -> bool:
    """:func:`is_receipt_like` from an already read document (no second parse)."""
    if read.document is None:  # not strict JSON (verified, and fails) or not an object
        return not any(c.id == ids.DOCUMENT_ROOT_NOT_OBJECT for c in read.checks)
    return bool(_RECEIPT_MEMBERS & read.document.keys())


def verify_found(
    raw: bytes,
    name: str,
    options: VerifyOptions = VerifyOptions(),
    attestation: JsonValue | None = None,
    session_rederivation: Rederivation | None = None,
    read: ReceiptDocument | None = None,
    view: ReceiptView | None = None,
) -> Subject | None:
    """Verify a file found by a directory walk, or return None to skip it.

    None exactly when :func:`is_receipt_like` is False, else :func:`verify_receipt`'s subject
    (``read`` and ``view`` as there); the document is parsed once for both.
    """
    reading = _reading(raw, read)
    if not _worth_verifying(reading):
        return None
    return _verify_read(
        raw,
        name,
        reading,
        options,
        attestation,
        session_rederivation,
        view=_view(reading, read, view),
    )


def log_lines(raw: bytes) -> Iterator[bytes]:
    """The lines of a JSONL log in memory, as :func:`verify_log_line` numbers them."""
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return iter(lines)


def verify_log_line(
    line: bytes,
    number: int,
    name: str,
    options: VerifyOptions = VerifyOptions(),
    session_rederivation: Rederivation | None = None,
    read: ReceiptDocument | None = None,
    session_feed: sessions.LineFeed | None = None,
    view: ReceiptView | None = None,
) -> Subject | Check:
    """Verify line ``number`` (1-based) of the log ``name``: its subject, or a log finding.

    ``line`` is the line without its ``\\n`` (a ``\\r`` before it is dropped here). A blank
    line, or one that is not strict JSON, is a finding with its line number.
    ``session_rederivation`` is the line's re-derivation in its session's log order, when one was
    made; ``read`` a :func:`read_document` of :func:`log_line_body` a caller already made (as in
    :func:`verify_receipt`), and ``view`` the :func:`read_view` of its document (used only
    with ``read``); ``session_feed`` the log's session pass, fed with this line's reading
    (:class:`sessions.LogSessions`) when the line is verified in log order.
    """
    where = f"{name}:{number}"
    body = log_line_body(line)
    if not body.strip(b" \t"):
        return fail("log.blank-line", "blank line in a receipt log", where)
    reading = _reading(body, read)  # parsed once: the strict-JSON test and the verification
    if reading.document is None:
        try:
            parse_text(decode_utf8(body))
        except JsonError as exc:  # the rare broken line pays a second parse for its message
            cut = cut_short(body)
            if cut is not None:
                return fail(
                    "log.broken-line",
                    f"line is a record cut short: it stops after {len(body)} byte(s) {cut} (a "
                    "write cut mid-record, or the log truncated there)",
                    where,
                    cut=True,
                )
            return fail("log.broken-line", f"line is not a JSON receipt: {exc}", where)
    return _verify_read(
        body,
        where,
        reading,
        options,
        None,
        session_rederivation,
        session_feed,
        view=_view(reading, read, view),
    )


def cut_short(body: bytes) -> str | None:
    """Where a line that opens a JSON object stops, when it stops before the object closes.

    A line that is a prefix of an object (every bracket and quote so far in order, the object
    still open) is a record cut short; the answer says where it stops ("inside a string, with
    2 objects or arrays open"). None for any other line (not an object, a stray closer, text
    after the object).
    """
    text = body.strip(b" \t")
    if not text.startswith(b"{"):
        return None
    depth, in_string, escaped = 0, False, False
    for byte in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (byte == 0x5C, byte != 0x22)
        elif byte == 0x22:
            in_string = True
        elif byte in b"{[":
            depth += 1
        elif byte in b"}]":
            depth -= 1
            if depth == 0:
                return None  # the object closed: whatever is wrong, it is not cut short
    inside = "inside a string" if in_string else "between values"
    return f"{inside}, with {depth} object(s) or array(s) open"


def log_line_body(line: bytes) -> bytes:
    """The receipt bytes of a log line, as :func:`verify_log_line` verified them."""
    return line[:-1] if line.endswith(b"\r") else line


def verify_jsonl(
    raw: bytes,
    name: str,
    options: VerifyOptions = VerifyOptions(),
    on_receipt: Callable[[bytes, Subject], None] | None = None,
) -> tuple[list[Subject], list[Check]]:
    """Verify a JSONL receipt log: one receipt per line, named ``name:line``.

    A blank line, or a line that is not strict JSON, is a finding with its line number; the
    run goes on with the next line. A final line terminator does not make a blank line.
    ``on_receipt`` sees each line's bytes with its subject (history facts use it).
    """
    subjects: list[Subject] = []
    findings: list[Check] = []
    log = sessions.LogSessions(log_lines(raw), options.raw_lines) if options.rederive else None
    log = None if log is None or log.idle else log
    for number, line in enumerate(log_lines(raw), start=1):
        session_feed = log.line(number, len(log_line_body(line))) if log is not None else None
        result = verify_log_line(line, number, name, options, session_feed=session_feed)
        if isinstance(result, Check):
            findings.append(result)
            continue
        if on_receipt is not None:
            on_receipt(log_line_body(line), result)
        subjects.append(result)
    return subjects, findings


def build_report(
    subjects: Sequence[Subject], findings: Sequence[Check], allow_published_keys: bool = False
) -> Report:
    """The verify report: subjects in input order, counts per outcome and the exit code."""
    tally = Counter((s.outcome, s.label) for s in subjects)
    rederived = Counter(str(s.facts.get("rederivation")) for s in subjects)
    return build_report_from_tally(
        tally, findings, tuple(subjects), rederived, allow_published_keys
    )


def build_report_from_tally(
    tally: Mapping[tuple[str, str], int],
    findings: Sequence[Check],
    subjects: tuple[Subject, ...] = (),
    rederived: Mapping[str, int] | None = None,
    allow_published_keys: bool = False,
) -> Report:
    """The verify report from counts of ``(outcome, label)``, with ``subjects`` (maybe none).

    A long run whose subjects were already written out (spooled JSON) keeps only these counts.
    ``allow_published_keys`` says whether the run accepted published keys; the summary says so.
    """
    # Keyed by each word as a plain str: an enum key makes orjson refuse the whole report (it
    # would fall back to the standard library's slower encoder, same bytes).
    counts: dict[str, int] = {
        name.value: sum(n for (o, _), n in tally.items() if o == name) for name in RECEIPT_OUTCOMES
    }
    summary: dict[str, Any] = {
        "receipts": sum(tally.values()),
        **counts,
        "not_mediated": sum(n for (_, label), n in tally.items() if label == NOT_MEDIATED),
        "findings": len(findings),
        "decision_rederivation": {
            status: (rederived or {}).get(status, 0) for status in rederivation.STATUSES
        },
        "allow_published_keys": allow_published_keys,
    }
    code = exit_code(
        [o for (o, _), n in tally.items() if n], any(f.status == _FAIL for f in findings)
    )
    return Report("verify", subjects, summary, code, tuple(findings), layout="receipts")
