"""The ``partition verify`` report: one attestation judged, its outcome and exit code decided here.

``sealverify partition verify`` only reads the attestation and the frame, calls
:func:`attestation_report`, and writes the report, so the library and the command give one
answer, the published-key cap included: an attestation signed by a key whose secret is
published (``sealverify explain authority.published-key``) is UNPINNED, never VERIFIED,
unless the caller allows published keys (a test suite).
"""

from __future__ import annotations

from collections.abc import Iterable

from sealverify._internal.mcp.frame import FrameOptions
from sealverify._internal.partition.records import check_attestation
from sealverify._internal.primitives import publishedkeys
from sealverify._internal.results.model import Check, Report, Status, Subject, fail
from sealverify._internal.results.outcomes import EXIT_CODES, Outcome, Vocabulary, decide
from sealverify._internal.wire.strictjson import JsonError, parse_bytes

_FAIL = Status.FAIL

# EXIT_CODES (sealverify._internal.results.outcomes) gives the attestation's outcome its exit code.
__all__ = ["EXIT_CODES", "VOCABULARY", "attestation_report"]

# What the attestation is called under the one rule (results/outcomes.py ``decide``): a failed
# check FAILED; a signer whose authority is not established (a published key) UNPINNED; else
# VERIFIED.
VOCABULARY = Vocabulary(passed=Outcome.VERIFIED, failed=Outcome.FAILED, unpinned=Outcome.UNPINNED)


def attestation_report(
    attestation: bytes,
    frame: bytes,
    pubkeys: Iterable[bytes],
    *,
    name: str = "attestation",
    transport: str = "stdio",
    options: FrameOptions | None = None,
    allow_published_keys: bool = False,
) -> Report:
    """The report ``sealverify partition verify`` writes for one attestation and its frame.

    ``attestation`` is the attestation file's bytes (strict JSON, an object), ``frame`` the
    exact frame it attests (a stdio frame with its delimiter, or an http body), ``pubkeys``
    the trusted raw 32-byte Ed25519 keys. The one subject, ``name``, is FAILED when any check
    fails (exit 1), else UNPINNED when its signer's key is published and
    ``allow_published_keys`` is False (exit 3), else VERIFIED (exit 0).
    """
    checks = _checks(
        attestation, frame, pubkeys, transport, options or FrameOptions(), allow_published_keys
    )
    failed = sum(1 for c in checks if c.status == _FAIL)
    outcome = decide(checks, VOCABULARY).outcome
    summary = {"failed_checks": failed, "allow_published_keys": allow_published_keys}
    subject = Subject(name, outcome, tuple(checks))
    return Report("partition verify", (subject,), summary, EXIT_CODES[outcome], layout="detail")


def _checks(
    attestation: bytes,
    frame: bytes,
    pubkeys: Iterable[bytes],
    transport: str,
    options: FrameOptions,
    allow_published_keys: bool,
) -> list[Check]:
    try:
        parsed = parse_bytes(attestation)
    except JsonError as exc:
        return [fail("partition.attestation.json", f"attestation is not strict JSON: {exc}")]
    if not isinstance(parsed, dict):
        # Any other JSON value (null included) is a finding, never an internal error.
        return [fail("partition.attestation.json", "attestation must be a JSON object")]
    checks = check_attestation(parsed, frame, pubkeys, transport=transport, options=options)
    signature = parsed.get("signature")
    signer = signature.get("public_key") if isinstance(signature, dict) else None
    published = publishedkeys.lookup(signer)
    if published is not None:
        checks.append(
            publishedkeys.check_key(
                "attestation", published, "/signature/public_key", allow_published_keys
            )
        )
    return checks
