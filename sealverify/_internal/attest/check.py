"""The ``attestation verify`` report: a signed verification summary judged, PASSED or FAILED.

The steps follow in-toto/attestation ``docs/validation.md``: the envelope's signatures under
the given key (securesystemslib's DSSE), the payload type, the Statement (``_type``, subjects
with digests, predicate type and predicate), then the caller's own questions: that the
summary says PASSED, that each file it names is a subject by its SHA-256, and that the
policy it was verified under has the digest of the trust file the caller holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey

from sealverify._internal.attest.envelope import (
    loads,
    open_envelope,
    read_documents,
    signature_verifies,
)
from sealverify._internal.attest.statement import (
    RUN_PREDICATE_TYPE,
    STATEMENT_TYPE,
    VSA_PREDICATE_TYPE,
    Digested,
)
from sealverify._internal.primitives import publishedkeys
from sealverify._internal.primitives.publishedkeys import PublishedKey
from sealverify._internal.results.model import Check, Report, Status, Subject, fail, info, passed
from sealverify._internal.results.outcomes import EXIT_CODES, Outcome, Vocabulary, decide
from sealverify._internal.wire.spelling import hex64_any_case

_FAIL = Status.FAIL

__all__ = ["VOCABULARY", "attestation_verify_report"]

# What the attestation is called under the one rule (results/outcomes.py ``decide``): SLSA's
# verificationResult words, a failed check FAILED and anything else PASSED, save that a key
# whose authority is not established (a published key) is UNPINNED.
VOCABULARY = Vocabulary(passed=Outcome.PASSED, failed=Outcome.FAILED, unpinned=Outcome.UNPINNED)

# in-toto/attestation spec/v1/envelope.md: a JSON Statement, with or without the predicate name.
_IN_TOTO_TYPE = re.compile(r"application/vnd\.in-toto(\.[A-Za-z0-9_.-]+)?\+json")
# SLSA's verificationResult words are the outcome words of attestation verify.
_RESULTS = (Outcome.PASSED.value, Outcome.FAILED.value)
# The Statements the report reads (the summary, the run): of any other kind none is kept.
_KEPT = (VSA_PREDICATE_TYPE, RUN_PREDICATE_TYPE)


def attestation_verify_report(
    data: bytes,
    key: SSlibKey,
    subjects: Sequence[Digested] = (),
    policy: Digested | None = None,
    *,
    name: str = "attestation",
    allow_published_keys: bool = False,
) -> Report:
    """The report ``sealverify attestation verify`` writes for the attestation file ``data``.

    ``key`` is the verifier's trusted key; ``subjects`` the files the caller names, each by its
    SHA-256; ``policy`` the trust file (or pins document) the caller expects. The one subject
    is FAILED (exit 1) when any check fails, else UNPINNED (exit 3) when ``key`` is a published
    key (its secret is public: sealverify explain authority.published-key) and
    ``allow_published_keys`` is False, else PASSED (exit 0).
    """
    checks = _checks(data, key, subjects, policy)
    published = _published(key)
    if published is not None:
        checks.append(
            publishedkeys.check_key("attestation", published, "--pubkey", allow_published_keys)
        )
    failed = sum(1 for c in checks if c.status == _FAIL)
    outcome = decide(checks, VOCABULARY).outcome
    summary = {
        "failed_checks": failed,
        "keyid": key.keyid,
        "allow_published_keys": allow_published_keys,
    }
    return Report(
        "attestation verify",
        (Subject(name, outcome, tuple(checks)),),
        summary,
        EXIT_CODES[outcome],
        layout="detail",
    )


def _published(key: SSlibKey) -> PublishedKey | None:
    """The published key ``key`` is, when it is an Ed25519 key whose secret is public."""
    if key.keytype != "ed25519":
        return None
    return publishedkeys.lookup(str(key.keyval.get("public", "")).lower())


def _checks(
    data: bytes, key: SSlibKey, subjects: Sequence[Digested], policy: Digested | None
) -> list[Check]:
    documents = read_documents(data)
    if isinstance(documents, str):
        return [fail("attestation.envelope", f"the file holds no DSSE envelope: {documents}")]
    checks: list[Check] = []
    count = 0
    for count, document in enumerate(documents, 1):
        opened = open_envelope(document)
        if isinstance(opened, str):
            checks.append(fail("attestation.envelope", opened, f"envelope {count}"))
    if checks:
        return checks
    checks.append(passed("attestation.envelope", f"{count} DSSE envelope(s)"))
    # A second pass judges each envelope as it is read again: only its checks are kept, and
    # of the Statements only how many there are of each predicate type and the first.
    kinds: dict[object, tuple[int, dict[str, object]]] = {}
    for number, document in enumerate(documents, 1):
        envelope = open_envelope(document)
        assert not isinstance(envelope, str)  # the first pass opened every envelope
        where = f"envelope {number}"
        checks.append(_signature(envelope, key, where))
        checks.append(_payload_type(envelope, where))
        statement, check = _statement(envelope, where)
        checks.append(check)
        if statement is not None:
            kind = statement.get("predicateType")
            if kind in _KEPT:
                seen, first = kinds.get(kind, (0, statement))
                kinds[kind] = (seen + 1, first)
    summaries, summary = kinds.get(VSA_PREDICATE_TYPE, (0, None))
    if summaries != 1 or summary is None:
        checks.append(
            fail(
                "attestation.predicate",
                f"expected one Statement of predicate type {VSA_PREDICATE_TYPE}, found {summaries}",
            )
        )
        return checks
    checks.extend(_summary(summary, subjects, policy))
    runs, run = kinds.get(RUN_PREDICATE_TYPE, (0, None))
    if runs == 1 and run is not None:
        checks.append(_run(run))
    return checks


def _run(statement: dict[str, object]) -> Check:
    """What the run Statement adds (info): the command, its exit code, published keys allowed.

    Whether the run accepted published keys is what a PASSED summary alone does not show.
    """
    predicate = statement["predicate"]
    assert isinstance(predicate, dict)
    options = predicate.get("options")
    allowed = isinstance(options, dict) and options.get("allow_published_keys") is True
    said = f"{predicate.get('command')} exited {predicate.get('exitCode')}"
    if allowed:
        said += "; --allow-published-keys was on: signatures under published keys were accepted"
    return info("attestation.run", said, "run summary", allow_published_keys=allowed)


def _signature(envelope: Envelope, key: SSlibKey, where: str) -> Check:
    if signature_verifies(envelope, key):
        labels = sorted(k for k in envelope.signatures if k != key.keyid)
        hint = f" (labelled {', '.join(labels)})" if any(labels) else ""
        if labels == [""]:
            hint = " (the signature names no key id)"
        return passed("attestation.signature", f"signed by key {key.keyid[:16]}…{hint}", where)
    return fail(
        "attestation.signature",
        f"no signature verifies under key {key.keyid[:16]}… over this payload type and payload",
        where,
    )


def _payload_type(envelope: Envelope, where: str) -> Check:
    if _IN_TOTO_TYPE.fullmatch(envelope.payload_type):
        return passed("attestation.payload-type", envelope.payload_type, where)
    return fail(
        "attestation.payload-type",
        f"payloadType {envelope.payload_type!r} is not an in-toto Statement "
        "(application/vnd.in-toto+json)",
        where,
    )


def _statement(envelope: Envelope, where: str) -> tuple[dict[str, object] | None, Check]:
    try:
        statement = loads(envelope.payload)
    except ValueError as exc:
        return None, fail("attestation.statement", f"payload is not JSON: {exc}", where)
    if not isinstance(statement, dict) or statement.get("_type") != STATEMENT_TYPE:
        return None, fail(
            "attestation.statement",
            f"payload is not an in-toto Statement ({STATEMENT_TYPE})",
            where,
        )
    found = statement.get("subject")
    if not isinstance(found, list) or not found or not all(_digested(s) for s in found):
        return None, fail(
            "attestation.statement", "subject must be a non-empty array, each with a digest", where
        )
    kind = statement.get("predicateType")
    if not isinstance(kind, str) or not kind or not isinstance(statement.get("predicate"), dict):
        return None, fail("attestation.statement", "predicateType and predicate required", where)
    return statement, passed("attestation.statement", f"{len(found)} subject(s), {kind}", where)


def _digested(entry: object) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("digest"), dict) and entry["digest"]


def _sha256s(statement: dict[str, object]) -> dict[str, str]:
    """The subjects' sha256 digests (lowercase hex), each with its subject's name."""
    found: dict[str, str] = {}
    entries = statement["subject"]
    assert isinstance(entries, list)  # _statement checked each entry has a digest object
    for entry in entries:
        digest = entry["digest"].get("sha256")
        if isinstance(digest, str) and hex64_any_case(digest):
            found.setdefault(digest.lower(), str(entry.get("name", "")))
    return found


def _summary(
    statement: dict[str, object], subjects: Sequence[Digested], policy: Digested | None
) -> list[Check]:
    predicate = statement["predicate"]
    assert isinstance(predicate, dict)
    verifier = predicate.get("verifier")
    result = predicate.get("verificationResult")
    where = "predicate"
    checks: list[Check] = []
    if not isinstance(verifier, dict) or not isinstance(verifier.get("id"), str):
        checks.append(fail("attestation.predicate", "verifier.id is required", where))
    elif result not in _RESULTS or not isinstance(predicate.get("policy"), dict):
        checks.append(
            fail("attestation.predicate", "verificationResult and policy are required", where)
        )
    else:
        checks.append(passed("attestation.predicate", f"verifier {verifier['id']}", where))
        levels = predicate.get("verifiedLevels")
        named = ", ".join(map(str, levels)) if isinstance(levels, list) else "no levels"
        checks.append(
            passed("attestation.result", f"PASSED: {named}", where)
            if result == Outcome.PASSED
            else fail("attestation.result", "the verification it summarises FAILED", where)
        )
    digests = _sha256s(statement)
    for wanted in subjects:
        subject = digests.get(wanted.sha256)
        checks.append(
            passed(
                "attestation.subject",
                f"sha256 {wanted.sha256[:16]}… is subject {subject}",
                wanted.name,
            )
            if subject is not None
            else fail(
                "attestation.subject",
                f"sha256 {wanted.sha256[:16]}… of this file is no subject of the summary",
                wanted.name,
            )
        )
    if policy is not None:
        checks.append(_policy(predicate.get("policy"), policy))
    else:
        checks.append(info("attestation.policy", "not compared: no --policy given", where))
    return checks


def _policy(recorded: object, policy: Digested) -> Check:
    digest = recorded.get("digest") if isinstance(recorded, dict) else None
    sha = digest.get("sha256") if isinstance(digest, dict) else None
    uri = recorded.get("uri") if isinstance(recorded, dict) else None
    if isinstance(sha, str) and sha.lower() == policy.sha256:
        return passed(
            "attestation.policy", f"policy {uri} has sha256 {policy.sha256[:16]}…", policy.name
        )
    return fail(
        "attestation.policy",
        f"the summary was verified under policy {uri} with sha256 {str(sha)[:16]}…, "
        f"not this file's {policy.sha256[:16]}…",
        policy.name,
    )
