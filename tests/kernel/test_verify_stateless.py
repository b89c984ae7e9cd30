"""``replay.decision`` on a step that cannot be re-derived whole: what needs no state is judged.

Every receipt here claims to be a later call of its session (or a call gated on evidence no
receipt carries), so the whole step cannot be re-derived from it alone. An attacker who holds
the pinned keys re-signs each lie; the parts the kernel's Lean source decides without session
state must still refute it (FAIL), and an honest receipt stays not-evaluated, never pass.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

import pytest
from sealverify_testkit import mint
from sealverify_testkit.records import Cert

from sealverify._internal.kernel.profiles import CURRENT
from sealverify._internal.kernel.receipt_inputs import NotEvaluated
from sealverify._internal.kernel.replay import rederive
from sealverify._internal.kernel.stateless import AGREE, judged_alone
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import VerifyOptions, verify_receipt
from tests.helpers.kernel_minting import (
    CONFIG,
    DENIED,
    FLEET,
    GUARDED,
    HOST,
    SEARCH,
    TARGET,
    Receipt,
)
from tests.helpers.verify_stateless import parsed_receipt, restate

PINS = TrustStore.from_pins(
    config=(mint.CONFIG_KEY.public_key.hex(),), receipt=(mint.RECEIPT_KEY.public_key.hex(),)
)
OPTIONS = VerifyOptions(trust=PINS, allow_published_keys=True)
LATER = dataclasses.replace(HOST, temporal_events=2)


def _host(frame: bytes, approvals: Sequence[str] = (), config: str = CONFIG) -> Receipt:
    return parsed_receipt(mint.mint_host_v3(frame, config, approvals=list(approvals), ctx=LATER))


def _fleet(frame: bytes, config: str = CONFIG) -> Receipt:
    ctx = dataclasses.replace(FLEET, temporal_events=2)
    return parsed_receipt(mint.mint_fleet_v2(frame, config, ctx=ctx))


def _verify(doc: Receipt) -> tuple[str, str, str]:
    if "record_type" in doc:
        doc = mint.resign_v3(doc, mint.RECEIPT_KEY, str(doc["signature"]["domain"]))  # type: ignore[index]
    subject = verify_receipt(mint.render_pretty(doc), "r", OPTIONS)
    replay = next(c for c in subject.checks if c.id == "replay.decision")
    return replay.status, replay.reason, subject.outcome


TRACE_2 = Cert("temporal", "allow", "trace ok (2 events)")


def test_an_honest_later_call_stays_not_evaluated_and_says_the_rest_agrees() -> None:
    for frame in (SEARCH, DENIED, GUARDED):
        status, reason, _ = _verify(_host(frame))
        assert status == "not-evaluated", reason
        assert "executed call 2 of its session" in reason and AGREE in reason


def test_a_flatly_denied_call_claimed_allowed_at_a_later_position_fails() -> None:
    doc = restate(_host(DENIED), [Cert("safety", "allow", "flat deny: shell_exec"), TRACE_2])
    status, reason, outcome = _verify(doc)
    assert status == "fail" and outcome == "FAIL"
    assert "cert 1 (safety)" in reason and "never allowed" in reason


def test_a_guarded_call_cannot_carry_explicit_policy_allow() -> None:
    doc = restate(_host(GUARDED), [Cert("safety", "allow", "explicit policy allow"), TRACE_2])
    status, reason, _ = _verify(doc)
    assert status == "fail" and TARGET in reason and "classifyToolCall" in reason


def test_an_unlisted_tool_cannot_be_allowed() -> None:
    frame = mint.tools_call_frame("not_in_policy", "{}")
    doc = restate(_host(frame), [Cert("safety", "allow", "no matching policy rule"), TRACE_2])
    status, reason, _ = _verify(doc)
    assert status == "fail" and "never allowed" in reason


def test_a_guarded_deny_despite_a_live_approval_in_the_step_fails() -> None:
    honest = _host(GUARDED, [TARGET])
    assert _verify(honest)[0] == "not-evaluated"
    forged = restate(_host(GUARDED, [TARGET]), [Cert("safety", "deny", TARGET), TRACE_2])
    status, reason, _ = _verify(forged)
    assert status == "fail" and "live approval" in reason


def test_a_block_blamed_on_the_wrong_kernel_fails() -> None:
    # The certs are the honest ones; the block response names another kernel's reason.
    certs = [Cert("safety", "deny", "flat deny: shell_exec"), TRACE_2]
    doc = restate(_host(DENIED), certs, blame="temporal policy violated: no-exfil")
    status, reason, _ = _verify(doc)
    assert status == "fail" and "block response" in reason
    # Or the blame moved to the temporal kernel, whose policies forbid nothing here.
    moved = [
        Cert("safety", "allow", "explicit policy allow"),
        Cert("temporal", "deny", "temporal policy violated: no-exfil"),
    ]
    status, reason, _ = _verify(restate(_host(SEARCH), moved))
    assert status == "fail" and "no temporal policy forbids search_notes" in reason


def test_a_route_that_does_not_follow_from_a_deny_fails() -> None:
    doc = _host(DENIED)
    doc["emitted_bytes"] = str(doc["emitted_bytes"]).replace('"route":"block"', '"route":"forward"')
    status, reason, _ = _verify(doc)
    assert status == "fail" and "route" in reason


CONSENSUS = CONFIG[:-1] + (
    ',"consensus":{"roster":[1,2,3],"votes_file":"/v","high_stakes":["db.execute"]}}'
)


def test_quorum_on_votes_for_a_tool_consensus_does_not_gate_fails() -> None:
    certs = [Cert("safety", "allow", "explicit policy allow"), TRACE_2]
    certs.append(Cert("consensus", "allow", "quorum ok (2/3): search_notes"))
    status, reason, _ = _verify(restate(_host(SEARCH), certs))
    assert status == "fail" and "from no gating kernel" in reason


def test_quorum_claims_are_judged_as_far_as_the_roster_goes() -> None:
    guarded = [Cert("safety", "allow", mint.guard_target_of(GUARDED, CONSENSUS)), TRACE_2]
    honest = restate(_host(GUARDED, config=CONSENSUS), [*guarded])
    honest_certs = [*guarded, Cert("consensus", "allow", "quorum ok (2/3): db.execute")]
    status, reason, _ = _verify(restate(honest, honest_certs))
    assert status == "not-evaluated" and AGREE in reason  # the state and the votes are left
    for lie in ("quorum ok (2/5): db.execute", "quorum ok (1/3): db.execute"):
        certs = [*guarded, Cert("consensus", "allow", lie)]
        doc = restate(_host(GUARDED, config=CONSENSUS), certs)
        assert _verify(doc)[0] == "fail", lie
    missing = [*guarded]  # the consensus kernel gates db.execute: its cert cannot be left out
    assert _verify(restate(_host(GUARDED, config=CONSENSUS), missing))[0] == "fail"


def test_fleet_receipts_are_judged_too() -> None:
    doc = restate(_fleet(DENIED), [Cert("safety", "allow", "flat deny: shell_exec"), TRACE_2])
    assert _verify(doc)[0] == "fail"


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        (CONFIG.replace('"epoch":1', '"epoch":0'), "config"),
        (CONFIG.replace('"mode":"deny"', '"mode":"maybe"'), "config"),
    ],
)
def test_a_config_the_kernel_refuses_fails_at_any_position(config: str, problem: str) -> None:
    doc = _fleet(SEARCH)
    doc["signed_config"] = {**doc["signed_config"], "payload": config}  # type: ignore[dict-item]
    result = judged_alone(rederive(doc), doc)
    assert result.status == "fail" and result.difference is not None
    assert result.difference.startswith(problem)


def _kernel_level(doc: Receipt, line: str, emitted: str) -> str:
    doc["canonical_request"] = line
    doc.pop("canonical_request_sha256", None)
    doc["emitted_bytes"] = emitted
    return judged_alone(rederive(doc), doc).status


def test_a_line_the_wire_guards_refuse_cannot_be_forwarded() -> None:
    doc = _fleet(SEARCH)
    line = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_notes",' + (
        '"arguments":{"q":"a","q":"b"}}}'
    )
    assert _kernel_level(doc, line, str(doc["emitted_bytes"])) == "fail"


def test_the_version_gate_rejects_whatever_the_session_selected() -> None:
    doc = _fleet(SEARCH)
    line = '{"jsonrpc":"2.0","id":1,"method":"tools/call"}'  # no params: rejected in every era
    assert _kernel_level(doc, line, str(doc["emitted_bytes"])) == "fail"


def test_judgement_needs_a_profile_and_never_passes_a_mediated_later_call() -> None:
    doc = _host(SEARCH)
    assert CURRENT.wasm_sha256 == doc["kernel_identity"]["wasm_sha256"]  # type: ignore[index]
    result = judged_alone(rederive(doc), doc)
    assert result.status == "not-evaluated"
    doc["kernel_identity"] = {"wasm_sha256": "ab" * 32}
    unknown = judged_alone(rederive(doc), doc)
    assert unknown.status == "not-evaluated" and AGREE not in unknown.reason


def test_a_guarded_allow_at_a_later_position_is_never_a_pass() -> None:
    # An approval ingested at an earlier call may still be live: the session decides, so this
    # is not evaluated (REDUCED), never re-derived.
    doc = restate(_host(GUARDED), [Cert("safety", "allow", TARGET), TRACE_2])
    status, reason, _ = _verify(doc)
    assert status == "not-evaluated" and AGREE in reason


HOSTILE_REASONS = [
    "trace ok (" + "9" * 5000 + " events)",
    "quorum ok (" + "9" * 5000 + "/3): db.execute",
    "over budget calls (" + "9" * 5000 + "+1>1): search_notes",
    "forecaster calibrated over " + "9" * 5000 + " samples: x",
    "\ud800",
    "",
]


@pytest.mark.parametrize("reason", HOSTILE_REASONS)
@pytest.mark.parametrize("kernel", ["temporal", "consensus"])
def test_hostile_claims_never_crash_the_judgement(kernel: str, reason: str) -> None:
    target = Cert("safety", "allow", mint.guard_target_of(GUARDED, CONSENSUS))
    hostile = Cert(kernel, "allow", reason)
    quorum = Cert("consensus", "allow", "quorum ok (2/3): db.execute")
    certs = [target, hostile, quorum] if kernel == "temporal" else [target, TRACE_2, hostile]
    doc = restate(_host(GUARDED, config=CONSENSUS), certs)
    assert judged_alone(rederive(doc), doc).status in ("fail", "not-evaluated")
    for emitted in ("[]", "{", '{"route":"forward","audit":"{\\"certs\\":7}"}', "\ud800"):
        doc["emitted_bytes"] = emitted
        assert judged_alone(rederive(doc), doc).status in ("fail", "not-evaluated")


def test_no_golden_upstream_step_is_refuted_when_judged_alone() -> None:
    # seal-host's own 18 golden steps (every kernel, state carried) judged with no state and no
    # evidence: the judgement must never refute an output the real kernel emitted.
    from sealverify._internal.kernel.profiles import PROFILES
    from sealverify._internal.kernel.receipt_inputs import ReplayInput
    from sealverify._internal.kernel.stateless import contradiction
    from tests.helpers.kernel_upstream import conformance_file, golden_scenarios

    golden = json.loads(conformance_file("wasm-spike_conformance_fixture.json").read_text())
    corpus = golden_scenarios()
    profile = PROFILES["0b5e792500592b56847f70b1e27e47aecdc65023c7c59fd79695102c465f26ec"]
    outputs = iter(golden)
    judged = 0
    for scenario in corpus["scenarios"]:
        next(outputs)  # the scenario's init
        for step in scenario["steps"]:
            envelope = json.loads(step["input"])
            inputs = ReplayInput(
                profile=profile,
                payload=corpus["payload"],
                payload_source="the golden corpus",
                line=envelope["line"],
                line_source="the golden corpus",
                now=envelope["now"],
                grants=tuple({"target": a["target"]} for a in envelope["approvals"]),
                issued_at=None,
                gate=True,
                expected=next(outputs),
            )
            found, _ = contradiction(inputs)
            assert found is None, (scenario["name"], found)
            judged += 1
    assert judged == 18


def test_no_real_receipt_is_refuted_when_judged_alone() -> None:
    from sealverify._internal.kernel.receipt_inputs import prepare
    from sealverify._internal.kernel.stateless import contradiction
    from tests.helpers.kernel_receipts import raw_line, upstream_receipts

    judged = 0
    for name, doc in upstream_receipts():
        inputs = prepare(doc, raw_line(doc))
        if isinstance(inputs, NotEvaluated):
            continue
        assert contradiction(inputs)[0] is None, name
        judged += 1
    assert judged >= 16
