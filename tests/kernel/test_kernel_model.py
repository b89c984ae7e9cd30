"""The kernel step, kernel by kernel: reasons, certs, state, the gate and the principal envelope."""

from __future__ import annotations

import hashlib
import json

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

from sealverify._internal.kernel.evidence import json_number_to_float, parse_forecasts
from sealverify._internal.kernel.hashes import audit_hash_parts
from sealverify._internal.kernel.kernels import Verdict
from sealverify._internal.kernel.ljson import parse
from sealverify._internal.kernel.principal import ENVELOPE_TAG, nacl_verify
from sealverify._internal.kernel.profiles import CURRENT
from sealverify._internal.kernel.session import KernelSession, audit_line
from sealverify._internal.primitives.signatures import ED25519_L
from sealverify._internal.wire.leanjson import lean_number

APPROVAL = {"control_file": "/a", "ttl_seconds": 120}


def session(payload: dict[str, object], authority: str = "") -> KernelSession:
    text = json.dumps(payload, separators=(",", ":"))
    init = KernelSession.init_trusted(text, CURRENT, authority)
    assert init.session is not None, init.output
    return init.session


def call(tool: str, args: object, request_id: object = 1) -> str:
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call"}
    message["params"] = {"name": tool, "arguments": args}
    return json.dumps(message, separators=(",", ":"))


def step(line: str, **extra: object) -> str:
    envelope: dict[str, object] = {"line": line, "now": 1000, "approvals": []}
    envelope.update(votes="", grants="", forecasts="")
    envelope.update(extra)
    return json.dumps(envelope, separators=(",", ":"))


def test_cert_hash_is_the_fnv_style_fold() -> None:
    assert audit_hash_parts(["temporal", "allow", "trace ok (1 events)"]) == (12756644985251018087)


def test_audit_line_golden_vector() -> None:
    # seal-host Host/Audit.lean@099be66 #guard (v1): field names, key order, sha256("x").
    verdict = Verdict("safety", "deny", "approval required", 42)
    assert audit_line(1, "db.execute", False, (verdict,), "x") == (
        '{"certs":[{"certHash":"42","kernel":"safety","reason":"approval required",'
        '"verdict":"deny"}],"epoch":1,"request_sha256":'
        '"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881",'
        '"tool":"db.execute","verdict":"deny"}'
    )


def test_safety_reasons_and_one_shot_approval() -> None:
    tools = [
        {"name": "read", "mode": "allow"},
        {"name": "wipe", "mode": "deny"},
        {"name": "both", "mode": "allow"},
        {"name": "both", "mode": "deny"},
        {"name": "db", "mode": "guarded", "target": [{"full_arguments": True}]},
    ]
    s = session({"epoch": 1, "server": "srv", "safety": {"approval": APPROVAL, "tools": tools}})
    assert s.decide(step(call("read", {}))).verdicts[0].reason == "explicit policy allow"
    assert s.decide(step(call("wipe", {}))).verdicts[0].reason == "flat deny: wipe"
    assert s.decide(step(call("both", {}))).verdicts[0].reason == "flat deny: both"
    assert s.decide(step(call("nope", {}))).verdicts[0].reason == "no matching policy rule"
    blocked = s.decide(step(call("db", {"q": 1})))
    target = blocked.verdicts[0].reason
    assert len(target) == 64 and blocked.route == "block"
    assert blocked.response == (
        '{"id":1,"jsonrpc":"2.0","result":{"content":[{"text":"approval required: '
        + target
        + '","type":"text"}],"isError":true}}\n'
    )
    approved = s.decide(step(call("db", {"q": 1}, 2), approvals=[{"target": target}]))
    assert approved.route == "forward"
    assert s.decide(step(call("db", {"q": 1}, 3))).route == "block"  # consumed
    # An approval expires at min(issuedAt, now) + ttl: issued long ago, it is dead now.
    stale = [{"target": target, "issuedAt": 1}]
    late = step(call("db", {"q": 1}, 4), approvals=stale)
    late = late.replace('"now":1000', '"now":200000')
    assert s.decide(late).route == "block"


def test_guard_target_binds_full_arguments_and_server() -> None:
    tools = [{"name": "db", "mode": "guarded", "target": [{"full_arguments": True}]}]
    s = session({"epoch": 1, "server": "srv", "safety": {"approval": APPROVAL, "tools": tools}})
    target = s.decide(step(call("db", {"b": 1, "a": "x"}))).verdicts[0].reason
    parts = [
        "seal.guard-target/v2-proposed-meta-all",
        "srv",
        "db",
        '{"a":"x","b":1}',
        "meta.absent",
        "",
        "requestState.absent",
        "",
        "inputResponses.absent",
        "",
    ]
    encoded = "".join(f"{len(p)}:{p}" for p in parts)
    assert target == hashlib.sha256(encoded.encode()).hexdigest()


def test_temporal_no_after_and_trace_count() -> None:
    rules = [{"name": "no-x-after-y", "type": "no_after", "trigger": ["y"], "forbidden": ["x"]}]
    tools = [{"name": n, "mode": "allow"} for n in ("x", "y", "z")]
    s = session(
        {
            "epoch": 1,
            "safety": {"approval": APPROVAL, "tools": tools},
            "temporal": {"policies": rules},
        }
    )
    assert s.decide(step(call("x", {}))).verdicts[1].reason == "trace ok (1 events)"
    assert s.decide(step(call("nope", {}))).route == "block"  # a denied call is not executed
    assert s.decide(step(call("y", {}))).verdicts[1].reason == "trace ok (2 events)"
    denied = s.decide(step(call("x", {})))
    assert denied.verdicts[1].reason == "temporal policy violated: no-x-after-y"
    assert s.decide(step(call("z", {}))).verdicts[1].reason == "trace ok (3 events)"


def test_consensus_quorum() -> None:
    payload = {
        "epoch": 1,
        "safety": {"approval": APPROVAL, "tools": [{"name": "pay", "mode": "allow"}]},
        "consensus": {"roster": [1, 2, 3], "votes_file": "/v", "high_stakes": ["pay"]},
    }
    s = session(payload)
    votes = '{"acceptor":1,"value":"pay"}\n{"acceptor":1,"value":"pay"}\n'
    missing = s.decide(step(call("pay", {}), votes=votes)).verdicts[2]
    assert missing.reason == "quorum missing (1/3): pay"
    votes += '{"acceptor":2,"value":"pay"}\n{"acceptor":9,"value":"pay"}\nnot json\n'
    # acceptor 9 is not on the roster: the certificate checker refuses the whole quorum
    assert s.decide(step(call("pay", {}), votes=votes)).verdicts[2].reason == (
        "quorum missing (3/3): pay"
    )
    votes = '{"acceptor":1,"value":"pay"}\n{"acceptor":2,"value":"pay"}\n'
    assert s.decide(step(call("pay", {}), votes=votes)).verdicts[2].reason == (
        "quorum ok (2/3): pay"
    )


def test_convergence_linear_and_budget() -> None:
    tools = [{"name": n, "mode": "allow"} for n in ("store", "key", "db")]
    payload = {
        "epoch": 1,
        "safety": {"approval": APPROVAL, "tools": tools},
        "convergence": {"tools": [{"tool": "store", "op_arg": "op"}]},
        "linear": {"grants_file": "/g", "tools": [{"tool": "key", "cap_arg": "k"}]},
        "budget": {"budgets": [{"name": "calls", "cap": 5, "tools": ["db"], "cost_arg": "n"}]},
    }
    s = session(payload)
    reasons = lambda out: [v.reason for v in out.verdicts[2:]]  # noqa: E731
    assert reasons(s.decide(step(call("store", {"op": "orset.add"})))) == [
        "convergent op admitted: orset.add"
    ]
    assert reasons(s.decide(step(call("store", {"op": "assign"})))) == [
        "op not in the proven-convergent set: assign"
    ]
    assert reasons(s.decide(step(call("store", {})))) == [
        "missing op field for replicated tool: store"
    ]
    grant = '{"cap":"k1","uses":1}\n'
    assert reasons(s.decide(step(call("key", {"k": "k1"}), grants=grant))) == [
        "capability spent (0 uses left): k1"
    ]
    assert reasons(s.decide(step(call("key", {"k": "k1"})))) == [
        "capability exhausted, double-spend denied: k1"
    ]
    assert reasons(s.decide(step(call("db", {"n": 3})))) == ["within budget: db"]
    assert reasons(s.decide(step(call("db", {"n": 3})))) == ["over budget calls (3+3>5): db"]
    assert reasons(s.decide(step(call("db", {"n": 1.0})))) == [
        "missing cost field for budget calls: db"
    ]


def test_calibration_uses_lean_float() -> None:
    payload = {
        "epoch": 1,
        "safety": {"approval": APPROVAL, "tools": [{"name": "m", "mode": "allow"}]},
        "calibration": {
            "enabled": True,
            "delta_num": 1,
            "delta_den": 20,
            "min_samples": 10,
            "records_file": "/f",
            "gated_tools": ["m"],
        },
    }
    s = session(payload)
    half = "".join(json.dumps({"confidence": 0.5, "outcome": i % 2}) + "\n" for i in range(20))
    assert s.decide(step(call("m", {}), forecasts=half)).verdicts[2].reason == (
        "forecaster calibrated over 20 samples: m"
    )
    sure = "".join(json.dumps({"confidence": 0.9, "outcome": 0}) + "\n" for _ in range(20))
    assert s.decide(step(call("m", {}), forecasts=sure)).verdicts[2].reason == (
        "forecaster uncalibrated over 20 samples: m"
    )
    few = '{"confidence":0.5,"outcome":1}\n{"confidence":0.5,"outcome":2}\n'
    assert parse_forecasts(few)[0].outcome is True and len(parse_forecasts(few)) == 1
    assert s.decide(step(call("m", {}), forecasts=few)).verdicts[2].reason == (
        "calibration evidence insufficient (1/10 samples): m"
    )


@given(st.floats(min_value=0, max_value=1e300, allow_nan=False))
def test_json_number_to_float_agrees_on_shortest_decimals(value: float) -> None:
    # Lean's Float.ofScientific truncates twice; on the shortest decimal of a double (what a
    # JSON producer writes) it lands on that double.
    assert json_number_to_float(lean_number(repr(value).replace("inf", "1"))) == value


def test_mcp_version_gate_and_selection() -> None:
    s = session(
        {"epoch": 1, "safety": {"approval": APPROVAL, "tools": [{"name": "t", "mode": "allow"}]}}
    )
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    modern = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "t", "arguments": {}, "_meta": meta},
        },
        separators=(",", ":"),
    )
    assert s.decide(step(modern)).route == "forward"  # empty selection: validated, admitted
    s.decide(step('{"jsonrpc":"2.0","id":1,"method":"initialize"}'))
    rejected = s.decide(step(modern))
    assert rejected.route == "reject"
    assert json.loads(rejected.response or "")["error"] == {
        "code": -32602,
        "message": "Invalid params: request protocol version 2026-07-28 is inconsistent with "
        "selected session version 2025-06-18",
    }
    s.decide(step('{"jsonrpc":"2.0","id":2,"method":"server/discover"}'))  # rejected? no: admitted
    assert "session MCP era is ambiguous" in (s.decide(step(call("t", {}))).response or "")
    bad = dict(meta, **{"io.modelcontextprotocol/protocolVersion": "1999-01-01"})
    fresh = session({"epoch": 1, "safety": {"approval": APPROVAL, "tools": []}})
    unsupported = json.dumps(
        {"id": 1, "method": "tools/call", "params": {"name": "t", "_meta": bad}},
        separators=(",", ":"),
    )
    error = json.loads(fresh.decide(step(unsupported)).response or "")["error"]
    assert error["code"] == -32022
    assert error["data"] == {"supportedVersions": ["2025-06-18", "2026-07-28"]}


def test_refuse_route_and_passthrough() -> None:
    s = session({"epoch": 1, "safety": {"approval": APPROVAL, "tools": []}})
    refused = s.decide(step('{"method":"tools/call","method":"x"}'))
    assert refused.route == "refuse" and refused.refused_by == "keys"
    assert json.loads(refused.output) == {
        "route": "block",
        "response": '{"error":{"code":-32600,"message":"seal-host: request refused — unsafe '
        'numeric literal"},"id":null,"jsonrpc":"2.0"}\n',
    }
    assert s.decide(step("")).output == '{"route":"passthrough"}'
    assert s.decide(json.dumps({"now": 1})).output == '{"route":"passthrough"}'
    assert json.loads(s.decide('{"line":"x","now":1e9999999}').output) == {
        "error": "bad step input: unsafe numeric literal",
        "ok": False,
    }


def _principal_session() -> tuple[KernelSession, Ed25519PrivateKey, bytes]:
    authority_key = Ed25519PrivateKey.generate()
    authority = authority_key.public_key().public_bytes_raw()
    alice = Ed25519PrivateKey.generate()
    payload = {
        "epoch": 1,
        "safety": {"approval": APPROVAL, "tools": [{"name": "t", "mode": "allow"}]},
        "principals": {
            "keys": [{"id": "alice", "pubkey": alice.public_key().public_bytes_raw().hex()}],
            "budgets": [{"name": "calls", "cap": 1, "tools": ["t"]}],
        },
    }
    return session(payload, authority.hex()), alice, authority


def _envelope(key: Ed25519PrivateKey, authority: bytes, line: str, issued_at: int = 7) -> dict:
    nonce = bytes(range(32))
    message = (
        ENVELOPE_TAG
        + authority
        + len(b"alice").to_bytes(8, "big")
        + b"alice"
        + nonce
        + issued_at.to_bytes(8, "big")
        + line.encode()
    )
    return {
        "key_id": "alice",
        "sig": key.sign(message).hex(),
        "nonce": nonce.hex(),
        "issued_at": issued_at,
    }


def test_principal_envelope_and_per_principal_budget() -> None:
    s, alice, authority = _principal_session()
    line = call("t", {})
    assert s.decide(step(line)).verdicts[2].reason == "principal envelope required: t"
    first = s.decide(step(line, envelope=_envelope(alice, authority, line)))
    assert first.principal == "alice" and first.route == "forward"
    assert json.loads(first.output)["principal"] == "alice"
    second = s.decide(step(line, envelope=_envelope(alice, authority, line)))
    assert second.verdicts[2].reason == "over principal budget calls (1+1>1): t"
    # A signature over another line authenticates nobody.
    other = s.decide(step(line, envelope=_envelope(alice, authority, call("t", {"x": 1}))))
    assert other.principal is None


def test_nacl_accepts_a_scalar_above_the_group_order() -> None:
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes_raw()
    signature = key.sign(b"m")
    scalar = int.from_bytes(signature[32:], "little") + ED25519_L
    malleated = signature[:32] + scalar.to_bytes(32, "little")
    assert nacl_verify(public, b"m", signature) and nacl_verify(public, b"m", malleated)
    assert not nacl_verify(public, b"n", signature)


def test_lean_json_parse_semantics() -> None:
    value = parse('{"a":1,"a":2,"s":"\\ud800x","n":1e2,"f":1.0}')
    assert isinstance(value, dict)
    assert value["a"] == lean_number("2")  # last duplicate wins
    assert value["s"] == "\ufffdx"  # a lone surrogate escape becomes U+FFFD
    assert value["n"] == lean_number("100") and value["f"] == lean_number("1.0")


lean_values = st.recursive(
    st.none()
    | st.booleans()
    | st.text()
    | st.integers(-(10**30), 10**30).map(lambda n: lean_number(str(n)))
    | st.decimals(allow_nan=False, allow_infinity=False).map(lambda d: lean_number(f"{d:f}")),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)


@given(lean_values)
def test_compress_fast_path_equals_the_reference_printer(value: object) -> None:
    from sealverify._internal.kernel.ljson import compress
    from sealverify._internal.wire.leanjson import print_value

    assert compress(value) == print_value(value)  # type: ignore[arg-type]


def test_compress_spells_tab_like_lean() -> None:
    from sealverify._internal.kernel.ljson import compress

    assert compress({"b": "\t\b\f\x7f", "a": "é"}) == '{"a":"é","b":"\\u0009\\u0008\\u000c\x7f"}'
