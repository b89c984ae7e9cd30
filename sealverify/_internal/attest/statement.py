"""The two in-toto Statements a run attests: a SLSA Verification Summary and sealverify's own.

The VSA follows https://slsa.dev/spec/v1.0/verification_summary (predicate type
``https://slsa.dev/verification_summary/v1``) inside an in-toto Statement v1 (in-toto/attestation
``spec/v1/statement.md``); the second Statement carries what the VSA has no field for: the run's
counts by outcome and its options (docs/report-format.md). Both are serialized as RFC 8785 JSON,
so the same run gives the same payload bytes but for ``timeVerified``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import rfc8785

from sealverify._internal.results.outcomes import Outcome

__all__ = [
    "PAYLOAD_TYPE",
    "RUN_PREDICATE_TYPE",
    "STATEMENT_TYPE",
    "VERIFIER_ID",
    "VSA_PREDICATE_TYPE",
    "Digested",
    "Run",
    "payload",
    "pins_document",
    "run_statement",
    "vsa_statement",
]

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
VSA_PREDICATE_TYPE = "https://slsa.dev/verification_summary/v1"
# sealverify's own predicate: the run's counts and options (docs/report-format.md).
RUN_PREDICATE_TYPE = "https://pypi.org/project/sealverify/#run-summary/v1"
# The verifier's identity (SLSA: "URI indicating the verifier's identity"): the package.
VERIFIER_ID = "https://pypi.org/project/sealverify/"
# in-toto/attestation spec/v1/envelope.md: a JSON Statement in a DSSE envelope.
PAYLOAD_TYPE = "application/vnd.in-toto+json"
JsonScalar = str | int | bool | None
JsonOption = JsonScalar | list[str]


@dataclass(frozen=True, slots=True)
class Digested:
    """A file or object by name and the SHA-256 of its bytes (lowercase hex)."""

    name: str
    sha256: str


@dataclass(frozen=True, slots=True)
class Run:
    """What a finished run attests: its inputs, report, policy, verdict, counts and options.

    ``exit_code`` is the run's own; the verdict is PASSED only when it is 0. ``rule`` names the
    outcome rule a PASSED run met (``SEALVERIFY_VERIFIED_REDERIVED``...). ``profiles`` are the
    kernel-model build profiles (wasm sha256 prefixes) this sealverify re-derives under.
    """

    command: str
    exit_code: int
    rule: str
    subjects: tuple[Digested, ...]
    policy: Digested
    resource_uri: str
    time_verified: str
    version: str
    profiles: tuple[str, ...]
    counts: Mapping[str, int] = field(default_factory=dict)
    options: Mapping[str, JsonOption] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.exit_code == 0


def _subjects(found: Sequence[Digested]) -> list[dict[str, object]]:
    return [{"name": d.name, "digest": {"sha256": d.sha256}} for d in found]


def vsa_statement(run: Run) -> dict[str, object]:
    """The SLSA Verification Summary of ``run`` as an in-toto Statement v1."""
    verifier_version = {"sealverify": run.version}
    # One component per kernel build the model re-derives (sealverify/_internal/kernel/profiles.py).
    verifier_version["sealverify-kernel-profiles"] = ",".join(run.profiles)
    return {
        "_type": STATEMENT_TYPE,
        "subject": _subjects(run.subjects),
        "predicateType": VSA_PREDICATE_TYPE,
        "predicate": {
            "verifier": {"id": VERIFIER_ID, "version": verifier_version},
            "timeVerified": run.time_verified,
            "resourceUri": run.resource_uri,
            "policy": {"uri": run.policy.name, "digest": {"sha256": run.policy.sha256}},
            # Receipts are the evidence verified, named as subjects; no attestation was input.
            "inputAttestations": [],
            "verificationResult": (Outcome.PASSED if run.passed else Outcome.FAILED).value,
            # SLSA: the levels or properties verified, "or FAILED if policy verification failed".
            "verifiedLevels": [run.rule] if run.passed else [Outcome.FAILED.value],
        },
    }


def run_statement(run: Run) -> dict[str, object]:
    """The run's own Statement of ``run``: the same subjects, its counts and its options."""
    return {
        "_type": STATEMENT_TYPE,
        "subject": _subjects(run.subjects),
        "predicateType": RUN_PREDICATE_TYPE,
        "predicate": {
            "command": run.command,
            "exitCode": run.exit_code,
            "counts": dict(sorted(run.counts.items())),
            "options": dict(sorted(run.options.items())),
            "timeVerified": run.time_verified,
        },
    }


def payload(statement: Mapping[str, object]) -> bytes:
    """The bytes a DSSE envelope carries for ``statement``: RFC 8785 (JCS) JSON."""
    return bytes(rfc8785.dumps(cast(Any, statement)))


def pins_document(pins: Mapping[str, Sequence[str]]) -> bytes:
    """The pins a run was given, as one canonical JSON document (RFC 8785), for ``policy``.

    Each list is sorted, so the same pins in any order give the same bytes and digest;
    docs/attestation.md shows how to write the document to check it.
    """
    return bytes(rfc8785.dumps({name: sorted(values) for name, values in sorted(pins.items())}))
