"""``replay.decision`` on minted receipts: honest ones pass, forged decisions fail in every family.

The attacker holds the testkit: they mint, edit the decision (and re-sign where the family is
signed, so only the decision is wrong), and the re-derivation must refuse it. The families are
the host ``record_version`` 3 (Object B v2, the judged frame carried as Object A), the host
shape without Object A (``record_version`` 2 and 3 over Object B v1, judged line = canonical
request), ``seal_receipt`` v1 and v2, and ``seal_live_receipt`` v0.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sealverify_testkit import mint

from sealverify._internal.kernel.hashes import audit_hash_parts
from sealverify._internal.kernel.ljson import compress, parse
from sealverify._internal.kernel.replay import first_difference, rederive
from sealverify._internal.kernel.session_pass import rederive_log
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue, parse_bytes
from tests.helpers.kernel_minting import (
    BUILD,
    CONFIG,
    DENIED,
    FLEET,
    GUARDED,
    HOST,
    TARGET,
    Receipt,
)


def _host(frame: bytes, approvals: list[str], domain: str = mint.OBJECT_B_V2) -> Receipt:
    raw = mint.mint_host_v3(
        frame, CONFIG, approvals=approvals, ctx=dataclasses.replace(HOST, domain=domain)
    )
    receipt = parse_bytes(raw)
    assert isinstance(receipt, dict)
    return receipt


def _fleet(
    frame: bytes, approvals: list[str], label: tuple[str, str] = ("seal_receipt", "v2")
) -> Receipt:
    receipt = parse_bytes(mint.mint_fleet_v2(frame, CONFIG, approvals=approvals, ctx=FLEET))
    assert isinstance(receipt, dict)
    if label != ("seal_receipt", "v2"):
        del receipt["seal_receipt"]
        receipt = {label[0]: label[1], **receipt}
    return receipt


def _host_v2(frame: bytes, approvals: list[str]) -> Receipt:
    receipt = _host(frame, approvals, mint.OBJECT_B_V1)
    receipt["record_version"] = JsonNumber("2")
    return receipt


FAMILIES: dict[str, Callable[[bytes, list[str]], Receipt]] = {
    "record_version 3, Object B v2": _host,
    "record_version 3, Object B v1": lambda f, a: _host(f, a, mint.OBJECT_B_V1),
    "record_version 2": _host_v2,
    "seal_receipt v2": _fleet,
    "seal_receipt v1": lambda f, a: _fleet(f, a, ("seal_receipt", "v1")),
    "seal_live_receipt v0": lambda f, a: _fleet(f, a, ("seal_live_receipt", "v0")),
}


def _resign(receipt: Receipt) -> Receipt:
    if "signature" in receipt and "record_type" in receipt:
        domain = receipt["signature"]["domain"]  # type: ignore[index]
        return mint.resign_v3(receipt, HOST.receipt_key, str(domain))
    return receipt


def _allow(emitted: str) -> str:
    """Edit a BLOCK's emitted bytes into a consistent-looking ALLOW (certs re-hashed)."""
    out = parse(emitted)
    assert isinstance(out, dict)
    audit = parse(str(out["audit"]))
    assert isinstance(audit, dict) and isinstance(audit["certs"], list)
    for cert in audit["certs"]:
        assert isinstance(cert, dict)
        cert["verdict"] = "allow"
        cert["certHash"] = str(
            audit_hash_parts([str(cert["kernel"]), "allow", str(cert["reason"])])
        )
    audit["verdict"] = "allow"
    return compress({"route": "forward", "audit": compress(audit)})


@pytest.mark.parametrize("family", FAMILIES)
def test_honest_receipts_pass(family: str) -> None:
    make = FAMILIES[family]
    for frame, approvals, route in (
        (GUARDED, [], "block"),
        (GUARDED, [TARGET], "forward"),
        (DENIED, [], "block"),
    ):
        result = rederive(make(frame, approvals))
        assert result.status == "pass", (family, result.reason)
        assert result.result is not None and result.result.route == route
        assert (
            f"decision re-derived by sealverify's model of kernel build {BUILD[:8]}"
            in result.reason
        )


@pytest.mark.parametrize("family", FAMILIES)
def test_a_block_edited_into_an_allow_fails(family: str) -> None:
    receipt = FAMILIES[family](GUARDED, [])
    receipt["emitted_bytes"] = _allow(str(receipt["emitted_bytes"]))
    receipt["verdict"] = "ALLOW"
    result = rederive(_resign(receipt))
    assert result.status == "fail"
    assert result.difference == "route: the receipt says 'forward', the model 'block'"


@pytest.mark.parametrize("family", FAMILIES)
def test_an_allow_for_a_denied_tool_fails(family: str) -> None:
    receipt = FAMILIES[family](DENIED, [])
    receipt["emitted_bytes"] = _allow(str(receipt["emitted_bytes"]))
    result = rederive(_resign(receipt))
    assert result.status == "fail"
    assert "route" in (result.difference or "")


@pytest.mark.parametrize("family", FAMILIES)
def test_a_guarded_allow_without_its_approval_fails(family: str) -> None:
    receipt = FAMILIES[family](GUARDED, [TARGET])
    assert rederive(receipt).status == "pass"
    receipt["granted_capabilities"] = []
    receipt.pop("approval", None)
    result = rederive(_resign(receipt))
    assert result.status == "fail"
    assert result.difference == "route: the receipt says 'forward', the model 'block'"


@pytest.mark.parametrize("family", FAMILIES)
def test_an_approval_for_another_call_does_not_authorize(family: str) -> None:
    other = mint.guard_target_of(
        mint.tools_call_frame("db.execute", '{"sql":"select 1","database":"prod"}'), CONFIG
    )
    receipt = FAMILIES[family](GUARDED, [TARGET])
    receipt["granted_capabilities"] = [{"target": other}]
    result = rederive(_resign(receipt))
    assert result.status == "fail"


def test_an_edited_reason_is_named() -> None:
    receipt = _fleet(GUARDED, [])
    out = json.loads(str(receipt["emitted_bytes"]))
    audit = json.loads(out["audit"])
    audit["certs"][1]["reason"] = "trace ok (1 event)"
    out["audit"] = json.dumps(audit, separators=(",", ":"), sort_keys=True)
    receipt["emitted_bytes"] = json.dumps(out, separators=(",", ":"), sort_keys=True)
    result = rederive(receipt)
    assert result.status == "fail"
    assert result.difference == (
        "certs: cert 2 (temporal) reason: the receipt says 'trace ok (1 event)', the model "
        "'trace ok (1 events)'"
    )


def test_first_difference_block_response_and_spelling() -> None:
    receipt = _fleet(GUARDED, [])
    emitted = str(receipt["emitted_bytes"])
    assert first_difference(emitted, emitted.replace('\\"id\\":1', '\\"id\\":2')) == (
        "the block response differs"
    )
    assert first_difference("{not json", emitted) == "emitted_bytes is not the kernel's JSON output"


def test_not_evaluated_reasons() -> None:
    unknown = _fleet(GUARDED, [])
    unknown["kernel_identity"] = {"wasm_sha256": "ab" * 32}
    assert rederive(unknown).reason == (
        "decision not re-derived: kernel build abababababab… has no profile in this model"
    )
    later = _fleet(GUARDED, [])
    later["emitted_bytes"] = str(later["emitted_bytes"]).replace("(1 events)", "(4 events)")
    result = rederive(later)
    assert result.status == "not-evaluated" and "executed call 4 of its session" in result.reason
    no_line = _host(GUARDED, [], mint.OBJECT_B_V1)
    no_line["request_sha256"] = "00" * 32
    assert "--raw-line" in rederive(no_line).reason
    bypass = parse_bytes(mint.mint_fleet_bypass(GUARDED))
    assert isinstance(bypass, dict) and "bypass" in rederive(bypass).reason


def test_evidence_kernels_are_not_evaluated() -> None:
    config = (
        CONFIG[:-1] + ',"consensus":{"roster":[1],"votes_file":"/v","high_stakes":["db.execute"]}}'
    )
    receipt = parse_bytes(mint.mint_fleet_v2(GUARDED, CONFIG, ctx=FLEET))
    assert isinstance(receipt, dict)
    receipt["signed_config"] = {**receipt["signed_config"], "payload": config}  # type: ignore[dict-item]
    result = rederive(receipt)
    assert result.status == "not-evaluated"
    assert "consensus kernel gates db.execute on votes" in result.reason


def test_a_session_log_carries_state() -> None:
    # Two calls of one session: the second follows an executed call, so its temporal cert
    # says 2 events; alone it is not evaluated, in its session pass it re-derives.
    first = _fleet(mint.tools_call_frame("search_notes", '{"q":"a"}'), [])
    second = _fleet(
        mint.tools_call_frame("search_notes", '{"q":"b"}'),
        [],
    )
    second["emitted_bytes"] = str(second["emitted_bytes"]).replace("(1 events)", "(2 events)")
    audit_hash = audit_hash_parts(["temporal", "allow", "trace ok (2 events)"])
    second["emitted_bytes"] = str(second["emitted_bytes"]).replace(
        str(audit_hash_parts(["temporal", "allow", "trace ok (1 events)"])), str(audit_hash)
    )
    assert rederive(second).status == "not-evaluated"
    assert [r.status for r in rederive_log([(first, None), (second, None)])] == ["pass", "pass"]
    # Out of order, the log does not start at the session's first call, and a first call
    # after an executed second one contradicts it.
    swapped = rederive_log([(second, None), (first, None)])
    assert [r.status for r in swapped] == ["not-evaluated", "fail"]
    assert "the session's first call is not among its receipts here" in swapped[0].reason
    assert "claims position 1" in swapped[1].reason
    # A first call repeated: the second copy follows an executed call, so its trace differs.
    repeated = rederive_log([(first, None), (first, None)])
    assert [r.status for r in repeated] == ["pass", "fail"]


hostile_values = st.recursive(
    st.none()
    | st.booleans()
    | st.text(max_size=20)
    | st.sampled_from(["1e999999", "-0", "1.5", "9" * 50]).map(JsonNumber)
    | st.just("[" * 600 + "]" * 600),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3)
    ),
    max_leaves=8,
)
MEMBERS = [
    "emitted_bytes",
    "kernel_identity",
    "signed_config",
    "kernel_config",
    "canonical_request",
    "request_sha256",
    "granted_capabilities",
    "approval",
    "now",
    "signed_artifacts",
    "request_parse_error",
]


@given(st.sampled_from(sorted(FAMILIES)), st.sampled_from(MEMBERS), hostile_values)
def test_hostile_members_never_crash(family: str, member: str, value: JsonValue) -> None:
    receipt = FAMILIES[family](GUARDED, [TARGET])
    receipt[member] = value
    result = rederive(receipt, b"[" * 5000 + b"]" * 5000)
    assert result.status in ("pass", "fail", "not-evaluated")


def test_hostile_lines_and_configs() -> None:
    receipt = _fleet(GUARDED, [])
    for line in ("[" * 100_000, '{"a":' * 3000, "\ud800", '{"v":1e999999}', "x" * 300_000):
        receipt["canonical_request"] = line
        assert rederive(receipt).status in ("fail", "not-evaluated")
    receipt = _fleet(GUARDED, [])
    receipt["signed_config"] = {"payload": "[" * 100_000 + "]" * 100_000}
    assert rederive(receipt).status in ("fail", "not-evaluated")
