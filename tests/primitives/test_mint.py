import base64
import hashlib
import json
from pathlib import Path

import pytest
from sealverify_testkit import mint

from sealverify._internal.primitives.objectb import OBJECT_B_V1
from sealverify._internal.wire import strictjson
from sealverify._internal.wire.framing import raw_line
from tests.conftest import shared_path
from tests.helpers.mint import config_ok, object_b_ok, parsed_record

HOST_FIXTURES = [
    ("seal-check", "test", "fixtures", "host-v2-block.receipt.json"),
    ("seal-check", "test", "fixtures", "host-v3-block.receipt.json"),
    ("seal-assurance-kit", "fixtures", "object-b-v2-host-04f7ba83.json"),
]


def _fixture(*parts: str) -> Path:
    return shared_path("fixtures", "seal", *parts)


# -- file rendering ---------------------------------------------------------------------------


@pytest.mark.parametrize("parts", HOST_FIXTURES)
def test_pretty_rendering_reproduces_real_host_files(parts: tuple[str, ...]) -> None:
    raw = _fixture(*parts).read_bytes()
    assert mint.render_pretty(parsed_record(raw)) == raw
    # ...and equals Python's json.dumps(indent=2, ensure_ascii=False) + "\n" on the same file.
    assert (json.dumps(json.loads(raw), indent=2, ensure_ascii=False) + "\n").encode() == raw


def test_pretty_empty_containers_and_unicode() -> None:
    value = parsed_record('{"a":[],"b":{},"c":"é\\u0001","d":[1,{"e":null}]}'.encode())
    expected = (
        json.dumps(
            json.loads(json.dumps({"a": [], "b": {}, "c": "é\x01", "d": [1, {"e": None}]})),
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )
    assert mint.render_pretty(value) == expected.encode()


# -- byte rules against real certificates -------------------------------------------------------


def _certs(parts: tuple[str, ...]) -> list[dict[str, str]]:
    certs = json.loads(_fixture(*parts).read_bytes())["certs"]
    assert certs
    return list(certs)


@pytest.mark.parametrize(
    "parts",
    [
        *HOST_FIXTURES,
        ("seal-check", "examples", "allow.receipt.json"),
        ("seal-assurance-kit", "fixtures", "receipt-unparseable.json"),
    ],
)
def test_cert_hash_matches_real_certs(parts: tuple[str, ...]) -> None:
    for cert in _certs(parts):
        assert mint.cert_hash(cert["kernel"], cert["verdict"], cert["reason"]) == cert["certHash"]


# -- re-minting real receipts -----------------------------------------------------------------


def _host_ctx(real: dict[str, strictjson.JsonValue], **over: object) -> mint.HostContext:
    view, kernel, host = real["effect_view"], real["kernel_identity"], real["host_identity"]
    assert isinstance(view, dict) and isinstance(kernel, dict) and isinstance(host, dict)
    now = real["now"]
    assert isinstance(now, strictjson.JsonNumber)
    return mint.HostContext(
        now=int(now.lexeme),
        session=str(view["session"]),
        operation_id=str(real["operation_id"]),
        wasm_sha256=str(kernel["wasm_sha256"]),
        native_executable_sha256=str(host["native_executable_sha256"]),
        lean_ffi_sha256=str(host["lean_ffi_sha256"]),
        **over,  # type: ignore[arg-type]
    )


def _without_own_signatures(record: dict[str, strictjson.JsonValue]) -> dict[str, object]:
    out: dict[str, object] = {k: v for k, v in record.items() if k != "signature"}
    signed = record["signed_config"]
    assert isinstance(signed, dict)
    out["signed_config"] = {"payload": signed["payload"]}
    return out


def test_remint_real_object_b_v2_host_receipt() -> None:
    raw = _fixture("seal-assurance-kit", "fixtures", "object-b-v2-host-04f7ba83.json").read_bytes()
    real = parsed_record(raw)
    artifacts = real["signed_artifacts"]
    assert isinstance(artifacts, dict)
    frame = base64.b64decode(str(artifacts["object_a"]))
    signed = real["signed_config"]
    assert isinstance(signed, dict)
    minted_bytes = mint.mint_host_v3(frame, str(signed["payload"]), ctx=_host_ctx(real))
    minted = parsed_record(minted_bytes)
    # Every member, in order, equals the real host's, except the signatures (other keys).
    assert list(minted) == list(real)
    assert _without_own_signatures(minted) == _without_own_signatures(real)
    assert object_b_ok(minted_bytes) and object_b_ok(raw)
    assert config_ok(minted)


def test_remint_real_object_b_v1_host_receipt() -> None:
    raw = _fixture("seal-check", "test", "fixtures", "host-v3-block.receipt.json").read_bytes()
    real = parsed_record(raw)
    frame = (str(real["canonical_request"]) + "\n").encode()
    assert len(frame) == int(str(real["framed_subject_length"]))
    signed = real["signed_config"]
    assert isinstance(signed, dict)
    ctx = _host_ctx(real, domain=OBJECT_B_V1)
    minted_bytes = mint.mint_host_v3(frame, str(signed["payload"]), ctx=ctx)
    minted = parsed_record(minted_bytes)
    assert list(minted) == list(real)
    assert _without_own_signatures(minted) == _without_own_signatures(real)
    assert object_b_ok(minted_bytes)


def test_remint_seal_check_fleet_allow_byte_for_byte() -> None:
    # Its config signer is RFC 8032 TEST 1, whose secret key is published: every byte,
    # the config signature included, must come out identical.
    raw = _fixture("seal-check", "examples", "allow.receipt.json").read_bytes()
    real = json.loads(raw)
    ctx = mint.FleetContext(
        now=real["now"],
        config_key=mint.RFC8032_TEST1_KEY,
        wasm_sha256=real["kernel_identity"]["wasm_sha256"],
        extra_certs=(mint.Cert("convergence", "allow", "convergent op admitted: orset.add"),),
    )
    minted = mint.mint_fleet_v2(
        (real["canonical_request"] + "\n").encode(),
        real["signed_config"]["payload"],
        approvals=[grant["target"] for grant in real["granted_capabilities"]],
        ctx=ctx,
    )
    assert minted == raw


def test_unparseable_matches_kit_receipt_hash_and_error() -> None:
    kit = json.loads(
        _fixture("seal-assurance-kit", "fixtures", "receipt-unparseable.json").read_bytes()
    )
    # The 1e309 corpus line of seal-host Host/Audit.lean, whose hash the kit receipt carries.
    frame = mint.tools_call_frame(
        "db.execute", '{"database":"prod","sql":"drop table accounts","x":1e309}', request_id=90
    )
    minted = parsed_record(mint.mint_unparseable_v3(frame, mint.DEMO_KERNEL_CONFIG))
    assert minted["request_sha256"] == kit["request_sha256"]
    assert minted["request_parse_error"] == kit["request_parse_error"]
    for absent in ("tool", "arguments", "args_hash", "effect_view", "canonical_request"):
        assert absent not in minted
    assert minted["verdict"] == "BLOCK"
    with pytest.raises(ValueError):
        mint.mint_unparseable_v3(mint.tools_call_frame("db.execute", "{}"), mint.DEMO_KERNEL_CONFIG)


# -- minted ALLOW: release authority and bindings, recomputed independently --------------------


@pytest.fixture(scope="module")
def allow() -> bytes:
    frame = mint.tools_call_frame("shell_exec", '{"command":"make deploy"}', request_id=7)
    target = mint.guard_target_of(frame, mint.DEMO_KERNEL_CONFIG)
    return mint.mint_host_v3(frame, mint.DEMO_KERNEL_CONFIG, approvals=[target])


def test_allow_release_frame_and_post_state(allow: bytes) -> None:
    record = json.loads(allow)
    assert record["verdict"] == "ALLOW" and record["authorization"] == "approval"
    assert record["release_status"] == "PENDING"
    release_frame = record["release_frame"]
    frame = base64.b64decode(release_frame["base64"])
    assert release_frame["length"] == len(frame)
    assert release_frame["sha256"] == hashlib.sha256(frame).hexdigest()
    assert json.loads(frame.rstrip(b"\n"))["operation_id"] == record["operation_id"]
    state = json.dumps(
        {"operation_id": record["operation_id"], "release_frame_sha256": release_frame["sha256"]},
        separators=(",", ":"),
    )
    assert record["post_state_hash"] == hashlib.sha256(state.encode()).hexdigest()
    object_a = base64.b64decode(record["signed_artifacts"]["object_a"])
    unspliced = frame.replace(f',"operation_id":"{record["operation_id"]}"'.encode(), b"")
    assert unspliced == object_a
    assert record["release_valid_until"] == record["now"] + 120_000


def test_allow_bindings(allow: bytes) -> None:
    record = json.loads(allow)
    object_a = base64.b64decode(record["signed_artifacts"]["object_a"])
    line = raw_line(object_a)
    assert record["request_sha256"] == hashlib.sha256(line).hexdigest()
    assert record["framed_subject_sha256"] == hashlib.sha256(object_a).hexdigest()
    assert record["framed_subject_length"] == len(object_a)
    compact = json.dumps(record["arguments"], separators=(",", ":"), ensure_ascii=False)
    assert record["args_hash"] == hashlib.sha256(compact.encode()).hexdigest()
    payload = record["signed_config"]["payload"]
    assert payload == json.dumps(record["kernel_config"], separators=(",", ":"), ensure_ascii=False)
    policy_hash = hashlib.sha256(payload.encode()).hexdigest()
    assert record["approval"]["policy_hash"] == policy_hash
    assert record["effect_view"]["policy_hash"] == policy_hash
    assert record["effect_view"]["raw_preimage_sha256"] == record["request_sha256"]
    audit = json.loads(json.loads(record["emitted_bytes"])["audit"])
    assert audit["request_sha256"] == record["request_sha256"]
    assert audit["certs"] == record["certs"]
    assert json.loads(record["emitted_bytes"])["route"] == "forward"
    safety = record["certs"][0]
    assert safety["verdict"] == "allow"
    assert {"target": safety["reason"]} in record["granted_capabilities"]
    assert object_b_ok(allow) and config_ok(parsed_record(allow))


def test_block_guard_target_is_the_challenge() -> None:
    frame = mint.tools_call_frame("shell_exec", '{"command":"rm -rf /tmp/x"}', request_id=3)
    record = json.loads(mint.mint_host_v3(frame, mint.DEMO_KERNEL_CONFIG))
    assert record["verdict"] == "BLOCK" and record["release_status"] == "NOT_APPLICABLE"
    assert not {"release_frame", "post_state_hash", "release_valid_until"} & record.keys()
    target = record["certs"][0]["reason"]
    assert record["reason"] == f"safety kernel: {target}"
    response = json.loads(json.loads(record["emitted_bytes"])["response"])
    assert response["id"] == 3
    assert response["result"]["content"][0]["text"] == f"approval required: {target}"


def test_explicit_allow_has_no_approval() -> None:
    frame = mint.tools_call_frame("search_notes", '{"query":"q"}')
    record = json.loads(mint.mint_host_v3(frame, mint.DEMO_KERNEL_CONFIG))
    assert record["verdict"] == "ALLOW"
    assert record["authorization"] == "explicit_policy_allow"
    assert "approval" not in record and record["granted_capabilities"] == []


def test_meta_is_stored_in_wire_order_and_sorted_in_canonical_request() -> None:
    frame = mint.tools_call_frame("search_notes", '{"query":"q"}', meta='{"z":1,"a":2}')
    record = json.loads(mint.mint_host_v3(frame, mint.DEMO_KERNEL_CONFIG))
    assert list(record["_meta"]) == ["z", "a"]
    assert list(record["effect_view"]["effect"]["_meta"]) == ["z", "a"]
    assert '"_meta":{"a":2,"z":1}' in record["canonical_request"]


# -- tampering, determinism, keys ---------------------------------------------------------------


def test_tamper_breaks_signature_and_resign_restores_it(allow: bytes) -> None:
    record = mint.parse_record(allow)
    record["now"] = strictjson.JsonNumber("1")
    assert not object_b_ok(mint.render_pretty(record))
    assert object_b_ok(mint.render_pretty(mint.resign_v3(record, mint.RECEIPT_KEY)))
    assert not object_b_ok(
        mint.render_pretty(mint.resign_v3(record, mint.RECEIPT_KEY)).replace(
            b'"now": 1', b'"now": 2'
        )
    )


def test_deterministic() -> None:
    frame = mint.tools_call_frame("shell_exec", '{"command":"ls"}')
    assert mint.mint_host_v3(frame, mint.DEMO_KERNEL_CONFIG) == mint.mint_host_v3(
        frame, mint.DEMO_KERNEL_CONFIG
    )
    first = list(mint.mint_many(9))
    assert first == list(mint.mint_many(9))
    assert len(set(first)) == 9
    kinds = {json.loads(item)["verdict"] for item in first}
    assert kinds == {"ALLOW", "BLOCK"}
    assert len({json.loads(item)["signed_config"]["payload"] for item in first}) == 3
    assert all(object_b_ok(item) for item in first)


def test_keys() -> None:
    assert mint.CONFIG_KEY.seed == hashlib.sha256(b"sealverify-demo-config-key").digest()
    assert mint.RECEIPT_KEY.seed == hashlib.sha256(b"sealverify-demo-receipt-key").digest()
    assert (
        len(
            {
                mint.CONFIG_KEY.public_hex,
                mint.RECEIPT_KEY.public_hex,
                mint.OTHER_CONFIG_KEY.public_hex,
                mint.OTHER_RECEIPT_KEY.public_hex,
            }
        )
        == 4
    )
    assert mint.RFC8032_TEST1_KEY.public_hex == (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    )


def test_splice_operation_id() -> None:
    assert mint.splice_operation_id(b'{"a":1}\r\n', "x") == b'{"a":1,"operation_id":"x"}\r\n'
    assert mint.splice_operation_id(b"{ }\n", "x") == b'{ "operation_id":"x"}\n'
    assert mint.splice_operation_id(b'{"a":1} ', "x") == b'{"a":1,"operation_id":"x"} '
    with pytest.raises(ValueError):
        mint.splice_operation_id(b'{"operation_id":"y"}\n', "x")
    with pytest.raises(ValueError):
        mint.splice_operation_id(b"[1]\n", "x")


def test_bypass_receipt_shape() -> None:
    record = json.loads(
        mint.mint_fleet_bypass(mint.tools_call_frame("shell_exec", '{"command":"ls"}'))
    )
    assert record["bypass"] is True and record["kernel_identity"]["wasm_sha256"] is None
    assert not {"args_hash", "signed_config", "approval", "certs"} & record.keys()
