"""Every real receipt in ../shared/fixtures/seal re-derives byte for byte, or says why not.

17 receipts carry ``emitted_bytes``. Fourteen carry their judged line; the three unparseable
ones do with the line supplied out of band, hash-checked against ``request_sha256``; the
forged-binding fixture's ``request_sha256`` matches no line, so it is not evaluated (its other
bindings fail elsewhere); the bypass receipt has no kernel output at all.
"""

from __future__ import annotations

from sealverify._internal.kernel.replay import rederive
from sealverify._internal.kernel.session_pass import rederive_log
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.verify import VerifyOptions, verify_receipt
from sealverify._internal.wire.strictjson import JsonValue
from tests.conftest import shared_path
from tests.helpers.kernel_receipts import argument_less_line, raw_line, upstream_receipts


def test_every_real_receipt() -> None:
    outcomes = {name: rederive(doc, raw_line(doc)) for name, doc in upstream_receipts()}
    passed = sorted(n for n, r in outcomes.items() if r.status == "pass")
    assert not [n for n, r in outcomes.items() if r.status == "fail"]
    assert len(passed) == 16, {n: r.reason for n, r in outcomes.items() if r.status != "pass"}
    unevaluated = {n: r.reason for n, r in outcomes.items() if r.status == "not-evaluated"}
    assert set(unevaluated) == {
        "seal-verify-action/fixtures/fail/forged-binding.receipt.json",
        "seal-live-demo/evidence/receipts.jsonl#3",
    }
    assert (
        "does not hash to the receipt's request_sha256"
        in unevaluated["seal-verify-action/fixtures/fail/forged-binding.receipt.json"]
    )
    assert "bypass" in unevaluated["seal-live-demo/evidence/receipts.jsonl#3"]
    builds = {outcomes[n].build for n in passed}
    assert builds == {"28bb3ae7", "0b5e7925", "ff1bfd68", "df42cbad", "d7d81e27"}
    for name in passed:
        assert "decision re-derived by sealverify's model of kernel build" in outcomes[name].reason


def test_unparseable_receipts_need_their_line() -> None:
    for name, doc in upstream_receipts():
        if "request_parse_error" in doc:
            result = rederive(doc)
            assert result.status == "not-evaluated", name
            assert "--raw-line" in result.reason


def test_a_wrong_raw_line_is_refused_before_use() -> None:
    for name, doc in upstream_receipts():
        if "request_parse_error" in doc and "forged" not in name:
            wrong = argument_less_line(doc).replace(b'"id":', b'"id":1', 1)
            result = rederive(doc, wrong)
            assert result.status == "not-evaluated"
            assert "does not hash" in result.reason


def test_the_live_demo_in_one_session_pass_exposes_the_trace() -> None:
    # The live-demo receipts were each the first call of their own session (trace ok (1
    # events)). SessionRederivation as one session, the second call claims the position the executed
    # first one took: the receipts contradict each other, so the log is not one session.
    docs = [doc for name, doc in upstream_receipts() if "receipts.jsonl" in name][:2]
    first, second = rederive_log([(doc, None) for doc in docs])
    assert first.status == "pass"
    assert second.status == "fail"
    assert second.difference is not None
    assert "claims position 1" in second.difference and "also the executed call" in (
        second.difference
    )


def _own_pins(doc: dict[str, JsonValue]) -> VerifyOptions:
    """Options that pin the receipt's own keys and build: only the decision is left to judge."""
    config = doc.get("signed_config")
    signature = doc.get("signature")
    identity = doc.get("kernel_identity")
    keys = {
        "config": [config["pubkey"]] if isinstance(config, dict) else [],
        "receipt": [signature["public_key"]] if isinstance(signature, dict) else [],
    }
    wasm = identity.get("wasm_sha256") if isinstance(identity, dict) else None
    return VerifyOptions(
        TrustStore.from_pins(**{k: [str(v) for v in vs] for k, vs in keys.items()}),
        kernel_pins=(wasm,) if isinstance(wasm, str) else (),
        allow_published_keys=True,
    )


def test_no_real_receipt_is_verified_without_its_decision_re_derived() -> None:
    """seal-check's rule: exit 0 only when signature, replay, bindings and pin all agree."""
    outcomes = {}
    for name, doc in upstream_receipts():
        if "#" in name:
            data = _live_line(name)
        else:
            data = shared_path("fixtures", "seal", name).read_bytes()
        subject = verify_receipt(data, name, _own_pins(doc))
        replay = next(c for c in subject.checks if c.id == "replay.decision")
        decision = next((c for c in subject.checks if c.id == "decision.authenticated"), None)
        outcomes[name] = (subject.outcome, replay.status)
        if subject.outcome == "VERIFIED":
            assert replay.status == "pass", name
        if replay.status == "not-evaluated":
            assert subject.outcome in ("REDUCED", "FAIL"), name
            assert replay.reason.startswith("decision not re-derived: "), name
            assert decision is not None and decision.status == "not-evaluated", name
            assert replay.reason in decision.reason, name
    # The receipts whose decision re-derives without a supplied line still pass it.
    rederived = {n for n, (_, status) in outcomes.items() if status == "pass"}
    assert len(rederived) == 13, outcomes
    assert not [n for n, (_, status) in outcomes.items() if status == "fail"]


def _live_line(name: str) -> bytes:
    index = int(name.rpartition("#")[2])
    live = shared_path("fixtures", "seal", "seal-live-demo", "evidence", "receipts.jsonl")
    return live.read_bytes().splitlines()[index - 1]
