"""Partition records, signed attestations, the seed 000 §7 controls and the partition CLI."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest
import rfc8785
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sealverify._internal.cli.main import cli
from sealverify._internal.mcp.frame import FrameOptions, analyze_frame
from sealverify._internal.partition import records as pt
from sealverify._internal.wire.framing import FrameBytes, frame_of, split_stdio
from sealverify._internal.wire.strictjson import JsonNumber
from tests.conftest import shared_path

GOLDEN = Path(__file__).parents[1] / "golden"
REGEN = os.environ.get("SEALVERIFY_REGEN_GOLDEN") == "1"
SEED = bytes(range(32))
PUBLIC = Ed25519PrivateKey.from_private_bytes(SEED).public_key().public_bytes_raw()

PV = "io.modelcontextprotocol/protocolVersion"
CC = "io.modelcontextprotocol/clientCapabilities"
# Seed 000 §3.2 and §3.3, typed out here from the seed (not read from sealverify).
SEED_COMMITTED = {PV, CC}
SEED_EXCLUDED = [
    "baggage",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/logLevel",
    "io.modelcontextprotocol/serverInfo",
    "io.modelcontextprotocol/subscriptionId",
    "progressToken",
    "traceparent",
    "tracestate",
]
TWO_VERSIONS = FrameOptions(supported_versions=frozenset({"2026-07-28", "2026-12-01"}))

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
TRACEPARENT_2 = "00-4bf92f3577b34da6a3ce929d0e0e4736-1111111111111111-01"
META: dict[str, Any] = {
    PV: "2026-07-28",
    CC: {"roots": {}},
    "io.modelcontextprotocol/clientInfo": {"name": "partition-test", "version": "1.0.0"},
    "io.modelcontextprotocol/logLevel": "info",
    "progressToken": "tok-1",
    "traceparent": TRACEPARENT,
    "tracestate": "vendor=abc",
    "baggage": "k=v",
    "org.example/purpose": "audit",
    "io.modelcontextprotocol/experimental-hint": "x",
}
# A second valid value for every key above, for the "every key changes the identity" control.
ALTERNATIVE: dict[str, Any] = {
    PV: "2026-12-01",
    CC: {"roots": {}, "sampling": {}},
    "io.modelcontextprotocol/clientInfo": {"name": "partition-test", "version": "1.0.1"},
    "io.modelcontextprotocol/logLevel": "debug",
    "progressToken": "tok-2",
    "traceparent": TRACEPARENT_2,
    "tracestate": "vendor=abd",
    "baggage": "k=w",
    "org.example/purpose": "review",
    "io.modelcontextprotocol/experimental-hint": "y",
}
OPTIONAL = sorted(set(META) - {PV, CC})


def make_frame(meta: dict[str, Any] | None, name: str = "lookup") -> FrameBytes:
    params: dict[str, Any] = {"name": name, "arguments": {"q": "invoice", "n": 3}}
    if meta is not None:
        params["_meta"] = meta
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    return frame_of(json.dumps(message, separators=(",", ":")).encode() + b"\n")


def with_meta(**changes: Any) -> dict[str, Any]:
    meta = dict(META)
    meta.update(changes)
    return meta


def without_unknown() -> dict[str, Any]:
    return {k: v for k, v in META.items() if k in SEED_COMMITTED or k in SEED_EXCLUDED}


def record_of(
    frame: FrameBytes, policy: str, options: FrameOptions = TWO_VERSIONS
) -> dict[str, Any]:
    result = pt.partition_frame(frame, policy, options)
    assert result.record is not None, result.refused
    return result.record


# --- the record, computed independently -------------------------------------------------------


def expected_record(policy: str, meta: dict[str, Any], frame: FrameBytes) -> dict[str, Any]:
    """The §3.4 record written out from the seed's tables and hashlib, not from partition.py."""
    line = frame.data[:-1]
    record: dict[str, Any] = {
        "schema": "seal.meta-partition/v1",
        "policy": policy,
        "era": "2026-07-28",
        "meta_state": "object",
        "exact_frame_sha256": hashlib.sha256(frame.data).hexdigest(),
        "exact_frame_length": len(frame.data),
        "raw_line_sha256": hashlib.sha256(line).hexdigest(),
    }
    if policy == "commit-all":
        record.update(
            committed=meta,
            exclusion_declaration=[],
            excluded_present=[],
            unknown_key_policy="commit",
        )
        return record
    record.update(
        committed={k: v for k, v in meta.items() if k in SEED_COMMITTED},
        exclusion_declaration=SEED_EXCLUDED,
        excluded_present=sorted(k for k in meta if k in SEED_EXCLUDED),
        unknown_key_policy="refuse" if policy == "c-refuse-unknown" else "commit",
    )
    if policy == "c-commit-unknown":
        record["unknown_committed"] = {
            k: v for k, v in meta.items() if k not in SEED_COMMITTED and k not in SEED_EXCLUDED
        }
    return record


@pytest.mark.parametrize(
    ("policy", "meta"),
    [
        ("commit-all", META),
        ("c-commit-unknown", META),
        ("c-refuse-unknown", without_unknown()),
    ],
)
def test_record_matches_seed_tables(policy: str, meta: dict[str, Any]) -> None:
    frame = make_frame(meta)
    assert record_of(frame, policy) == expected_record(policy, meta, frame)


def test_c_refuse_unknown_refuses_and_names_unknown_keys() -> None:
    result = pt.partition_frame(make_frame(META), "c-refuse-unknown")
    assert result.record is None and result.refused is not None
    assert result.refused.refused_unknown == (
        "io.modelcontextprotocol/experimental-hint",
        "org.example/purpose",
    )
    assert result.refused.refusals[-1].code == "partition.unknown-key-refused"


def test_payload_is_jcs_and_statement_layout() -> None:
    record = record_of(make_frame(META), "c-commit-unknown")
    payload = pt.payload_bytes(record)
    # JCS: members sorted, no whitespace; the first member is the smallest name.
    assert payload.startswith(b'{"committed":{"io.modelcontextprotocol/clientCapabilities":')
    assert b" " not in payload.replace(b"partition-test", b"")
    assert json.loads(payload) == json.loads(json.dumps(record))
    tag = b"seal.meta-partition-statement/v1"
    assert pt.statement(payload) == tag + b"\x00" + len(payload).to_bytes(8, "big") + payload


def test_signature_verifies_independently() -> None:
    """Rebuild the statement by hand and verify with `cryptography`, not with sealverify."""
    record = record_of(make_frame(META), "commit-all")
    attestation = pt.sign_record(record, SEED)
    sig = attestation["signature"]
    assert sig["public_key"] == PUBLIC.hex()
    assert sig["key_id"] == hashlib.sha256(PUBLIC).hexdigest()
    assert "=" not in sig["value"] and len(sig["value"]) == 86
    payload = rfc8785.dumps(json.loads(json.dumps(attestation["record"])))
    message = b"seal.meta-partition-statement/v1\x00" + len(payload).to_bytes(8, "big") + payload
    raw = base64.urlsafe_b64decode(sig["value"] + "==")
    Ed25519PrivateKey.from_private_bytes(SEED).public_key().verify(raw, message)


@pytest.mark.parametrize(
    ("mutate", "state"),
    [
        (lambda p: p.pop("_meta"), "absent"),
        (lambda p: p.__setitem__("_meta", None), "null"),
        (lambda p: p.__setitem__("_meta", []), "non-object"),
        (lambda p: p.__setitem__("_meta", "x"), "non-object"),
    ],
    ids=["absent", "null", "array", "string"],
)
def test_refusal_evidence_distinguishes_meta_states(
    mutate: Callable[[dict[str, Any]], Any], state: str
) -> None:
    message = json.loads(make_frame(META).data)
    mutate(message["params"])
    frame = frame_of(json.dumps(message).encode() + b"\n")
    for policy in pt.POLICIES:
        result = pt.partition_frame(frame, policy)
        assert result.record is None and result.refused is not None
        assert result.refused.meta_state == state


def test_legacy_absent_meta_is_a_distinct_state() -> None:
    frame = make_frame(None)
    record = record_of(frame, "commit-all", FrameOptions(era="legacy"))
    assert record["meta_state"] == "absent" and record["committed"] == {}
    empty = record_of(make_frame({}), "commit-all", FrameOptions(era="legacy"))
    assert empty["meta_state"] == "object"
    assert pt.authority_identity(record) != pt.authority_identity(empty)


def test_numbers_enter_jcs_only_when_exact() -> None:
    # The frame core already refuses such a literal (seal's wire guard) ...
    frame = make_frame(with_meta(**{"org.example/n": 1}))
    text = frame.data.replace(b'"org.example/n":1', b'"org.example/n":0.10000000000000000001')
    assert pt.partition_frame(frame_of(text), "commit-all").record is None
    # ... and the payload refuses it too, for records that arrive from elsewhere.
    with pytest.raises(ValueError, match="not exactly an IEEE double"):
        pt.payload_bytes({"n": JsonNumber("0.10000000000000000001")})
    with pytest.raises(ValueError, match="not finite"):
        pt.payload_bytes({"n": JsonNumber("1e400")})
    assert pt.payload_bytes({"n": JsonNumber("1.0"), "m": JsonNumber("-0.5e1")}) == (
        b'{"m":-5,"n":1}'
    )


# --- golden records ---------------------------------------------------------------------------


def assert_golden(name: str, data: bytes) -> None:
    """Compare with tests/golden/<name>; rewrite only under SEALVERIFY_REGEN_GOLDEN=1."""
    path = GOLDEN / name
    if REGEN:
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
    assert path.exists(), f"{path} missing; run with SEALVERIFY_REGEN_GOLDEN=1"
    assert path.read_bytes() == data, f"{name} differs from its golden file"


GOLDEN_CASES = {
    "commit-all": META,
    "c-commit-unknown": META,
    "c-refuse-unknown": without_unknown(),
}


def golden_record_assertion(policy: str) -> None:
    record = record_of(make_frame(GOLDEN_CASES[policy]), policy)
    assert_golden(f"partition-{policy}.json", pt.payload_bytes(record) + b"\n")


@pytest.mark.parametrize("policy", pt.POLICIES)
def test_golden_records(policy: str) -> None:
    golden_record_assertion(policy)


def test_golden_signed_attestation() -> None:
    record = record_of(make_frame(META), "commit-all")
    assert_golden(
        "attestation-commit-all.json", pt.payload_bytes(pt.sign_record(record, SEED)) + b"\n"
    )


# --- seed 000 §7 controls (parametrized mutations) --------------------------------------------


def pv_changes_identity(policy: str) -> None:
    """Committed-value identity assertion: changing only protocolVersion changes identity."""
    base = GOLDEN_CASES[policy]
    one = record_of(make_frame(base), policy)
    two = record_of(make_frame({**base, PV: "2026-12-01"}), policy)
    assert pt.authority_identity(one) != pt.authority_identity(two), "protocolVersion not bound"


def traceparent_keeps_identity(policy: str) -> None:
    """C stability assertion: a traceparent change keeps identity, changes subject/evidence."""
    base = GOLDEN_CASES[policy]
    one = record_of(make_frame(base), policy)
    two = record_of(make_frame({**base, "traceparent": TRACEPARENT_2}), policy)
    assert pt.authority_identity(one) == pt.authority_identity(two), "identity moved"
    assert one["exact_frame_sha256"] != two["exact_frame_sha256"]
    assert "traceparent" in two["excluded_present"]


def mutate(monkeypatch: pytest.MonkeyPatch, mutation: str) -> None:
    if mutation == "protocolVersion-excluded":
        monkeypatch.setitem(pt.C_TABLE, PV, "excluded")
    elif mutation == "traceparent-deleted":
        monkeypatch.delitem(pt.C_TABLE, "traceparent")


C_POLICIES = ("c-refuse-unknown", "c-commit-unknown")


@pytest.mark.parametrize("policy", C_POLICIES)
@pytest.mark.parametrize("mutation", ["none", "protocolVersion-excluded", "traceparent-deleted"])
def test_section7_controls(monkeypatch: pytest.MonkeyPatch, mutation: str, policy: str) -> None:
    mutate(monkeypatch, mutation)
    base = make_frame(GOLDEN_CASES[policy])
    if mutation == "none":
        pv_changes_identity(policy)
        traceparent_keeps_identity(policy)
        golden_record_assertion(policy)
        return
    if mutation == "protocolVersion-excluded":
        with pytest.raises(AssertionError, match="protocolVersion not bound"):
            pv_changes_identity(policy)
        if not REGEN:
            with pytest.raises(AssertionError, match="differs from its golden"):
                golden_record_assertion(policy)
    elif policy == "c-refuse-unknown":
        result = pt.partition_frame(base, policy, TWO_VERSIONS)
        assert result.record is None and result.refused is not None
        assert "traceparent" in result.refused.refused_unknown
        return
    else:
        with pytest.raises(AssertionError, match="identity moved"):
            traceparent_keeps_identity(policy)
    # The verifier pins the declaration, so a record from the mutated emitter is caught too.
    record = record_of(base, policy)
    failed = {
        c.data.get("field")
        for c in pt.check_attestation(
            pt.sign_record(record, SEED), base.data, [PUBLIC], options=TWO_VERSIONS
        )
        if c.status == "fail"
    }
    assert "exclusion_declaration" in failed


@pytest.mark.parametrize("key", sorted(META))
def test_commit_all_every_value_change_moves_identity(key: str) -> None:
    one = make_frame(META)
    two = make_frame(with_meta(**{key: ALTERNATIVE[key]}))
    assert pt.authority_identity(record_of(one, "commit-all")) != pt.authority_identity(
        record_of(two, "commit-all")
    )
    targets = [analyze_frame(f, TWO_VERSIONS).identities for f in (one, two)]
    assert targets[0] is not None and targets[1] is not None
    assert targets[0].guard_target != targets[1].guard_target


@pytest.mark.parametrize("key", OPTIONAL)
def test_commit_all_every_key_presence_moves_identity(key: str) -> None:
    one = make_frame(META)
    two = make_frame({k: v for k, v in META.items() if k != key})
    assert pt.authority_identity(record_of(one, "commit-all")) != pt.authority_identity(
        record_of(two, "commit-all")
    )


# --- tampering --------------------------------------------------------------------------------


def _flip_hex(text: str) -> str:
    return ("1" if text[0] == "0" else "0") + text[1:]


def tampered_value(name: str, record: dict[str, Any]) -> Any:
    value = record[name]
    if name == "policy":
        return "c-commit-unknown" if value == "commit-all" else "commit-all"
    if name == "era":
        return "legacy" if value == "2026-07-28" else "2026-07-28"
    if name in ("exact_frame_sha256", "raw_line_sha256"):
        return _flip_hex(value)
    if name == "exact_frame_length":
        return value + 1
    if name in ("committed", "unknown_committed"):
        return {**value, "org.example/smuggled": "v"}
    if name in ("exclusion_declaration", "excluded_present"):
        return value[1:] if value else ["traceparent"]
    if name == "meta_state":
        return "absent" if value == "object" else "object"
    if name == "unknown_key_policy":
        return "refuse" if value == "commit" else "commit"
    return value + "-tampered"


def assert_field_named(checks: list[Any], name: str) -> None:
    named = {c.data.get("field") for c in checks if c.status == "fail"}
    assert name in named, (name, [(c.id, c.reason) for c in checks if c.status == "fail"])


def tamper_all_fields(frame: FrameBytes, record: dict[str, Any], options: FrameOptions) -> int:
    attestation = pt.sign_record(record, SEED)
    clean = pt.check_attestation(attestation, frame.data, [PUBLIC], options=options)
    assert [c for c in clean if c.status == "fail"] == []
    count = 0
    for name in sorted(record):
        bad = copy.deepcopy(attestation)
        bad["record"][name] = tampered_value(name, record)
        checks = pt.check_attestation(bad, frame.data, [PUBLIC], options=options)
        assert_field_named(checks, name)
        assert any(c.id == "partition.signature" and c.status == "fail" for c in checks)
        # Re-signed by the trusted key: the signature passes, the field still fails.
        resigned = pt.sign_record(bad["record"], SEED)
        checks = pt.check_attestation(resigned, frame.data, [PUBLIC], options=options)
        assert_field_named(checks, name)
        count += 1
    other = Ed25519PrivateKey.from_private_bytes(bytes(32)).public_key().public_bytes_raw()
    for name, value in {
        "domain": "seal.approval-statement/v1",
        "algorithm": "ed448",
        "encoding": "base64",
        "public_key": other.hex(),
        "key_id": _flip_hex(attestation["signature"]["key_id"]),
        "value": ("B" if attestation["signature"]["value"][0] == "A" else "A")
        + attestation["signature"]["value"][1:],
    }.items():
        bad = copy.deepcopy(attestation)
        bad["signature"][name] = value
        checks = pt.check_attestation(bad, frame.data, [PUBLIC], options=options)
        assert_field_named(checks, f"signature.{name}")
        count += 1
    return count


@pytest.mark.parametrize("policy", pt.POLICIES)
def test_every_field_tampered_is_named(policy: str) -> None:
    frame = make_frame(GOLDEN_CASES[policy])
    assert tamper_all_fields(frame, record_of(frame, policy), TWO_VERSIONS) >= 17


def test_wrong_frame_fails_subject_fields() -> None:
    record = record_of(make_frame(META), "commit-all")
    other = make_frame(with_meta(traceparent=TRACEPARENT_2))
    checks = pt.check_attestation(pt.sign_record(record, SEED), other.data, [PUBLIC])
    for name in ("exact_frame_sha256", "raw_line_sha256", "committed"):
        assert_field_named(checks, name)


def test_untrusted_key_and_bare_record_fail() -> None:
    record = record_of(make_frame(META), "commit-all")
    checks = pt.check_attestation(pt.sign_record(record, SEED), make_frame(META).data, [])
    assert_field_named(checks, "signature.public_key")
    bare = pt.check_attestation(record, make_frame(META).data, [PUBLIC])
    assert_field_named(bare, "signature")


def test_bool_is_not_a_number_when_comparing() -> None:
    frame = make_frame(with_meta(**{"org.example/flag": True}))
    record = record_of(frame, "commit-all")
    bad = copy.deepcopy(record)
    bad["committed"]["org.example/flag"] = 1
    checks = pt.check_attestation(pt.sign_record(bad, SEED), frame.data, [PUBLIC])
    assert_field_named(checks, "committed")


# --- real frames ------------------------------------------------------------------------------

ERA = {"legacy": "legacy", "2026-07-28": "2026-07-28", "auto": "auto"}


def real_frames() -> list[tuple[str, int, str | None, FrameBytes, str]]:
    root = shared_path("frames", "mcp-python-sdk-2.3.0")
    found = []
    for entry in json.loads((root / "INDEX.json").read_text()):
        frames = split_stdio((root / f"{entry['name']}.c2s.bin").read_bytes())
        assert len(frames) == len(entry["frames"])
        for meta, frame in zip(entry["frames"], frames, strict=True):
            found.append((entry["name"], meta["index"], meta["method"], frame, ERA[entry["mode"]]))
    return found


@pytest.mark.parametrize("policy", pt.POLICIES)
def test_real_frames_round_trip(policy: str) -> None:
    made = 0
    for name, index, method, frame, era in real_frames():
        options = FrameOptions(era=era)
        result = pt.partition_frame(frame, policy, options)
        admissible = analyze_frame(frame, options).admissible
        if method != "tools/call" or not admissible:
            assert result.record is None, (name, index)
            continue
        params = json.loads(frame.line)["params"]
        unknown = sorted(
            k for k in params.get("_meta", {}) if k not in SEED_COMMITTED | set(SEED_EXCLUDED)
        )
        if policy == "c-refuse-unknown" and unknown:
            assert result.refused is not None and list(result.refused.refused_unknown) == unknown
            continue
        assert result.record is not None, (name, index, result.refused)
        record = result.record
        if policy != "commit-all":
            assert sorted(record.get("unknown_committed", {})) == unknown
            assert record["excluded_present"] == sorted(
                k for k in params.get("_meta", {}) if k in SEED_EXCLUDED
            )
        attestation = pt.sign_record(record, SEED)
        # Through JSON text and back, as a verifier receives it.
        received = json.loads(pt.payload_bytes(attestation))
        checks = pt.check_attestation(received, frame.data, [PUBLIC])
        assert [c.id for c in checks if c.status == "fail"] == [], (name, index)
        made += 1
    assert made >= 4


def test_real_frames_every_field_tampered() -> None:
    for name, _index, method, frame, era in real_frames():
        if method != "tools/call" or name not in (
            "modern-rich-meta-string-token",
            "legacy-handshake",
        ):
            continue
        options = FrameOptions(era=era)
        for policy in ("commit-all", "c-commit-unknown"):
            record = record_of(frame, policy, options)
            assert tamper_all_fields(frame, record, options) >= 17


def test_real_diff_frames_partition_boundary() -> None:
    """Seed 000 §7 paired assertions on the real forensic-diff frames."""
    root = shared_path("frames", "mcp-python-sdk-2.3.0")
    frames = {
        n: split_stdio((root / f"modern-diff-{n}.c2s.bin").read_bytes())[0]
        for n in ("base", "traceparent", "progresstoken")
    }
    for policy in ("commit-all", "c-commit-unknown"):
        ids = {n: pt.authority_identity(record_of(f, policy)) for n, f in frames.items()}
        if policy == "commit-all":
            assert len(set(ids.values())) == 3
        else:
            assert len(set(ids.values())) == 1
    assert len({f.exact_sha256 for f in frames.values()}) == 3


@pytest.mark.parametrize(
    ("file", "state"),
    [
        ("meta-absent.bin", "absent"),
        ("meta-null.bin", "null"),
        ("meta-empty-array.bin", "non-object"),
        ("meta-string.bin", "non-object"),
        ("dup-meta-in-params.bin", "unparsed"),
    ],
)
def test_real_malformed_refusal_states(file: str, state: str) -> None:
    frame = split_stdio(
        shared_path("frames", "mcp-python-sdk-2.3.0", "malformed", file).read_bytes()
    )[0]
    for policy in pt.POLICIES:
        result = pt.partition_frame(frame, policy)
        assert result.record is None and result.refused is not None
        assert result.refused.meta_state == state


def test_real_malformed_expected_refusals() -> None:
    root = shared_path("frames", "mcp-python-sdk-2.3.0", "malformed")
    for entry in json.loads((root / "INDEX.json").read_text()):
        frames = split_stdio((root / entry["file"]).read_bytes())
        result = pt.partition_frame(frames[0], "commit-all")
        assert (result.record is None) == (entry["expected"] == "refuse"), entry["file"]


# --- CLI --------------------------------------------------------------------------------------


def run(args: list[str]) -> tuple[int, str]:
    """Invoke the CLI as main() does: a usage error is exit 2."""
    result = CliRunner().invoke(cli, args, standalone_mode=False)
    if isinstance(result.exception, click.ClickException):  # a usage error, or could not run
        return 2, result.output
    assert result.exception is None, result.exception
    return int(result.return_value or 0), result.stdout


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    key = tmp_path / "seed.hex"
    key.write_text(SEED.hex() + "\n")
    frame = tmp_path / "frame.bin"
    frame.write_bytes(make_frame(META).data)
    return {"key": key, "frame": frame, "dir": tmp_path}


@pytest.mark.parametrize("policy", pt.POLICIES)
def test_cli_emit_verify_round_trip(files: dict[str, Path], policy: str) -> None:
    frame = files["frame"]
    if policy == "c-refuse-unknown":
        frame = files["dir"] / "known.bin"
        frame.write_bytes(make_frame(without_unknown()).data)
    code, out = run(
        ["partition", "emit", str(frame), "--policy", policy, "--sign-key", str(files["key"])]
    )
    assert code == 0
    assert out.encode() == pt.payload_bytes(json.loads(out)) + b"\n"
    att = files["dir"] / "att.json"
    att.write_text(out)
    verify = ["partition", "verify", str(att), "--frame", str(frame), "--pubkey", PUBLIC.hex()]
    # SEED is mcp-seal-dev's public test seed 00..1f: a published key, so UNPINNED (exit 3)
    # unless --allow-published-keys, which still names it.
    code, out = run([*verify, "--format", "json"])
    subject = json.loads(out)["subjects"][0]
    assert (code, subject["outcome"]) == (3, "UNPINNED")
    published = [c for c in subject["checks"] if c["id"] == "authority.published-key"]
    assert [(c["status"], c["location"]) for c in published] == [
        ("not-evaluated", "/signature/public_key")
    ]
    code, out = run([*verify, "--allow-published-keys", "--format", "json"])
    subject = json.loads(out)["subjects"][0]
    assert (code, subject["outcome"]) == (0, "VERIFIED")
    assert [c["status"] for c in subject["checks"] if c["id"] == "authority.published-key"] == [
        "info"
    ]
    verify.append("--allow-published-keys")
    tampered = json.loads(att.read_text())
    tampered["record"]["excluded_present"] = ["baggage"]
    att.write_text(json.dumps(tampered))
    code, out = run([*verify, "--format", "json"])
    assert code == 1
    failed = [c for c in json.loads(out)["subjects"][0]["checks"] if c["status"] == "fail"]
    assert "excluded_present" in {c.get("data", {}).get("field") for c in failed}


def test_cli_emit_refusal_and_unsigned(files: dict[str, Path]) -> None:
    code, out = run(
        [
            "partition",
            "emit",
            str(files["frame"]),
            "--policy",
            "c-refuse-unknown",
            "--format",
            "json",
        ]
    )
    assert code == 1
    facts = json.loads(out)["subjects"][0]["facts"]
    assert facts["meta_state"] == "object"
    assert facts["refused_unknown"] == [
        "io.modelcontextprotocol/experimental-hint",
        "org.example/purpose",
    ]
    code, out = run(["partition", "emit", str(files["frame"])])
    assert code == 0 and json.loads(out)["schema"] == "seal.meta-partition/v1"


@pytest.mark.parametrize(
    "content", ["", "zz\n", SEED.hex().upper(), SEED.hex() + "\n\n", (SEED * 2).hex()]
)
def test_cli_bad_key_file_exit_2(files: dict[str, Path], content: str) -> None:
    files["key"].write_text(content)
    code, _ = run(["partition", "emit", str(files["frame"]), "--sign-key", str(files["key"])])
    assert code == 2


def test_cli_verify_usage_errors(files: dict[str, Path]) -> None:
    assert (
        run(
            [
                "partition",
                "verify",
                str(files["frame"]),
                "--frame",
                str(files["frame"]),
                "--pubkey",
                "xyz",
            ]
        )[0]
        == 2
    )
    assert (
        run(
            [
                "partition",
                "verify",
                str(files["dir"] / "missing.json"),
                "--frame",
                str(files["frame"]),
                "--pubkey",
                PUBLIC.hex(),
            ]
        )[0]
        == 2
    )


def test_partition_frame_is_short_for_partition_emit_frame(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sealverify._internal.cli.main import cli

    frame = Path(__file__).resolve().parents[2] / "fixtures" / "frames" / "call.bin"
    runner = CliRunner()
    short = runner.invoke(cli, ["partition", str(frame), "--policy", "c-commit-unknown"])
    long = runner.invoke(cli, ["partition", "emit", str(frame), "--policy", "c-commit-unknown"])
    assert short.exit_code == long.exit_code == 0
    assert short.stdout == long.stdout
    piped = runner.invoke(cli, ["partition", "-"], input=frame.read_bytes())
    assert piped.exit_code == 0 and piped.stdout.startswith("{")
