"""The attacker holding the testkit: mint, change one member, re-sign, expect a refusal.

For every receipt of the adversarial corpus (every family, both Object B domains, BLOCK,
ALLOW by approval and by policy, unparseable, MRTR members) every member is changed, removed
and added to, at every depth and inside every carried document
(tests/helpers/adversarial_mutants.py). Each mutant is verified twice: as changed (every signature
now stale) and re-signed under the pinned test keys. Its row in docs/claims.md says what the
re-signed mutant may be: `document` and `recomputed` members must FAIL, `replay` and `unbound`
members must not be VERIFIED, and only `signed` and `asserted` members may verify again. A mutant
never crashes. The real upstream receipts are mutated too, without re-signing (their keys are not
ours).
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from sealverify_testkit import mint

from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import (
    DEFAULT_KERNEL_SHA256,
    VerifyOptions,
    verify_receipt,
)
from sealverify._internal.results.model import Subject
from tests.conftest import shared_path
from tests.helpers import adversarial_corpus as corpus
from tests.helpers.adversarial_mutants import Mutant, mutants
from tests.helpers.adversarial_receipts import OPTIONS
from tests.helpers.claims_table import Row, lookup, receipt_table, tables

CASES = corpus.build()
BASELINE = {
    # What each unchanged corpus receipt is: the ceiling every mutant is judged against.
    "v3": "VERIFIED",
    "spine": "VERIFIED",
    # No receipt signature: the decision is authenticated by re-deriving it (replay.decision
    # passes for the fleet families); a host v2 record also states a framed subject nothing
    # binds, and its judged line (with _meta) is not carried, so it stays REDUCED.
    "v2-host": "REDUCED",
    "v2": "VERIFIED",
    "v1": "VERIFIED",
    "v0-live": "VERIFIED",
}


def _verify(record: corpus.Record, name: str) -> Subject:
    return verify_receipt(mint.render_pretty(record), name, OPTIONS)


def expected(case: corpus.Case) -> str:
    if "unparseable" in case.name or "mrtr" in case.name:
        return "REDUCED"  # named by the corpus: a decision no profiled build re-derives
    if case.name == "v3-b1-block":
        # Object B v1 BLOCK: no Object A and no release frame, and the wire line (id 7) is not
        # the canonical line, so the judged line is not carried: not re-derived, REDUCED.
        return "REDUCED"
    if not case.signed and case.name.endswith("-allow"):
        return "REDUCED"  # an ALLOW by approval: nothing authenticates the approver's consent
    if "bypass" in case.name:
        return "FAIL"
    return BASELINE[case.family]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_baseline(case: corpus.Case) -> None:
    subject = verify_receipt(case.data, case.name, OPTIONS)
    problems = [
        f"{c.id}: {c.reason}"
        for c in subject.checks
        if c.status in ("fail", "not-evaluated") and c.id != "replay.decision"
    ]
    assert subject.outcome == expected(case), problems


def demand(row: Row | None, mutant: Mutant) -> str:
    """What the re-signed mutant must be: FAIL, NOT_VERIFIED or ANY."""
    if row is None:
        return "FAIL"  # a member no row names is not the family's: refused
    if mutant.how == "add" and row.members == "exact":
        return "FAIL"
    if mutant.how == "remove" and not row.subtree:
        # An optional member may be absent; one the producer always writes may not.
        return "ANY" if row.optional else "FAIL"
    return row.demand


def _judge(outcome: str, wanted: str) -> bool:
    if wanted == "FAIL":
        return outcome == "FAIL"
    if wanted == "NOT_VERIFIED":
        return outcome != "VERIFIED"
    return True


def _run(case: corpus.Case, found: Iterable[Mutant]) -> list[str]:
    table = tables()[receipt_table(case.record) or case.family]
    problems: list[str] = []
    for mutant in found:
        row = lookup(table, mutant.path)
        wanted = demand(row, mutant)
        try:
            resigned = corpus.resign(mutant.record, case.family, mutant.path)
            outcome = _verify(resigned, case.name).outcome
            stale = _verify(mutant.record, case.name).outcome if case.signed else "FAIL"
        except Exception as exc:
            problems.append(f"{mutant.describe()}: CRASH {type(exc).__name__}: {exc}")
            continue
        if expected(case) == "FAIL":
            wanted = "FAIL"
        if not _judge(outcome, wanted):
            kinds = "/".join(row.kinds) if row else "no row"
            problems.append(f"{mutant.describe()} [{kinds}] re-signed: {outcome}, wanted {wanted}")
        if case.signed and stale != "FAIL" and mutant.record != case.record:
            problems.append(f"{mutant.describe()} not re-signed: {stale}, wanted FAIL")
    return problems


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_no_minted_mutant_passes_its_claims_row(case: corpus.Case) -> None:
    problems = _run(case, mutants(case.record))
    assert not problems, f"{len(problems)} mutant(s):\n" + "\n".join(problems[:120])


# Real receipts: (path under ../shared/fixtures/seal, config pins, receipt pins, kernel pins)
RFC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
REAL = [
    ("seal-check/examples/allow.receipt.json", [RFC], [], []),
    ("seal-verify-action/fixtures/pass/block.receipt.json", [RFC], [], []),
    ("seal-check/test/fixtures/unparseable-block.receipt.json", [RFC], [], []),
    (
        "seal-check/test/fixtures/host-v2-block.receipt.json",
        ["a1c7f2c1cfe8651990f14de4a36d25380a79b6346c9332f34f9a6be053271669"],
        [],
        ["0b5e792500592b56847f70b1e27e47aecdc65023c7c59fd79695102c465f26ec"],
    ),
    (
        "seal-check/test/fixtures/host-v3-block.receipt.json",
        ["bdf3db19a2007e5b6ab0d2a6578006d07ff8f7a35a7a8c0b3ed51de411d2e8ff"],
        ["85d7bdc4f48aebef2ef5d2e5f75f7ec5b921c1a03f50e4ed786d775b18fff87c"],
        [],
    ),
    (
        "seal-check/examples/spine-allow.receipt.json",
        [],
        ["9a45c6817d70bc6f347d1631f618616c50b92cf5a34d5d20140974a0872ef53b"],
        [],
    ),
    (
        "seal-assurance-kit/fixtures/object-b-v2-host-04f7ba83.json",
        ["88d2d0c0cbb47cfc637efda0d9dc2f4277dfc7d7e686049fae89ac2153b740c3"],
        ["e74e48b61d5b203a3346b001af5a9aabe8890e75e3df2c932b5023dd5f6ec948"],
        [],
    ),
]


@pytest.mark.parametrize("source", REAL, ids=[r[0].rsplit("/", 1)[-1] for r in REAL])
def test_no_mutant_of_a_real_receipt_verifies(
    source: tuple[str, list[str], list[str], list[str]],
) -> None:
    path, config, receipt, kernels = source
    data = shared_path("fixtures", "seal", *path.split("/")).read_bytes()
    options = VerifyOptions(
        TrustStore.from_pins(config=config, receipt=receipt),
        kernel_pins=(DEFAULT_KERNEL_SHA256, *kernels),
        allow_published_keys=True,
    )
    record = mint.parse_record(data)
    key = receipt_table(record)
    assert key is not None
    table = tables()[key]
    signed = key.startswith("v3") or key == "spine"
    problems: list[str] = []
    for mutant in mutants(record):
        # Without the producer's keys nothing is re-signed: a signed family's mutant must
        # FAIL outright; on the others each member's row says what its lie may give.
        wanted = "FAIL" if signed else demand(lookup(table, mutant.path), mutant)
        try:
            outcome = verify_receipt(mint.render_pretty(mutant.record), path, options).outcome
        except Exception as exc:
            problems.append(f"{mutant.describe()}: CRASH {type(exc).__name__}: {exc}")
            continue
        if not _judge(outcome, wanted):
            problems.append(f"{mutant.describe()}: {outcome}, wanted {wanted}")
    assert not problems, f"{len(problems)} mutant(s):\n" + "\n".join(problems[:120])
