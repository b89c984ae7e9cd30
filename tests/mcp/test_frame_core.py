"""The frame core against real evidence: SDK captures, malformed frames, real seal receipts."""

from __future__ import annotations

import base64
import json

import pytest

from sealverify._internal.mcp.frame import FrameOptions, analyze_frame, analyze_stream
from sealverify._internal.wire.framing import frame_of, raw_line, sha256_hex, split_stdio
from sealverify._internal.wire.strictjson import parse_bytes
from tests.conftest import shared_path

FRAMES = ("frames", "mcp-python-sdk-2.3.0")


def _malformed_cases() -> list[dict[str, str]]:
    return json.loads(shared_path(*FRAMES, "malformed", "INDEX.json").read_text())


def test_every_malformed_frame_gets_its_expected_verdict() -> None:
    cases = _malformed_cases()
    assert len(cases) >= 30
    for case in cases:
        data = shared_path(*FRAMES, "malformed", case["file"]).read_bytes()
        results = analyze_stream(split_stdio(data))
        assert len(results) == 1, case["file"]
        verdict = "accept" if results[0].admissible else "refuse"
        assert verdict == case["expected"], (case["file"], results[0].refusals)
        for refusal in results[0].refusals:
            assert refusal.reason and refusal.code and refusal.wire_error < 0


@pytest.mark.parametrize(
    ("name", "code", "wire"),
    [
        ("meta-absent.bin", "meta.absent", -32602),
        ("meta-null.bin", "meta.not-object", -32602),
        ("dup-meta-in-params.bin", "json.duplicate-member", -32700),
        ("protocolversion-missing.bin", "meta.required-key-missing", -32602),
        ("traceparent-version-ff.bin", "meta.reserved-key-invalid", -32602),
        ("key-empty-label.bin", "meta.key-grammar", -32602),
        ("meta-over-64k.bin", "meta.too-large", -32602),
        ("unterminated.bin", "frame.unterminated", -32700),
        ("invalid-utf8.bin", "json.invalid-utf8", -32700),
        ("bom-prefixed.bin", "json.bom", -32700),
    ],
)
def test_refusals_name_the_reason_and_wire_error(name: str, code: str, wire: int) -> None:
    data = shared_path(*FRAMES, "malformed", name).read_bytes()
    result = analyze_stream(split_stdio(data))[0]
    assert (code, wire) in {(r.code, r.wire_error) for r in result.refusals}


def test_meta_depth_limit_applies_to_meta_itself() -> None:
    data = shared_path(*FRAMES, "malformed", "meta-depth-100.bin").read_bytes()
    relaxed = FrameOptions(limits=FrameOptions().limits.__class__(max_depth=1000))
    result = analyze_stream(split_stdio(data), relaxed)[0]
    assert [r.code for r in result.refusals] == ["meta.too-deep"]


def test_unsupported_version_is_32022_and_legacy_absent_meta_is_distinct() -> None:
    base = shared_path(*FRAMES, "modern-diff-base.c2s.bin").read_bytes()
    first = split_stdio(base)[0]
    old = first.data.replace(b'"2026-07-28"', b'"1900-01-01"')
    result = analyze_frame(frame_of(old))
    assert [(r.code, r.wire_error) for r in result.refusals] == [
        ("meta.unsupported-protocol-version", -32022)
    ]
    bare = b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":{}}}\n'
    legacy = analyze_frame(frame_of(bare), FrameOptions(era="legacy"))
    modern = analyze_frame(frame_of(bare))
    assert legacy.admissible and legacy.meta is not None and legacy.meta.state == "absent"
    assert not modern.admissible and modern.meta is not None and modern.meta.state == "absent"


def test_every_real_capture_is_processed() -> None:
    index = json.loads(shared_path(*FRAMES, "INDEX.json").read_text())
    for entry in index:
        for direction, key in (("c2s", "frames"), ("s2c", "s2c_frames")):
            data = shared_path(*FRAMES, f"{entry['name']}.{direction}.bin").read_bytes()
            frames = split_stdio(data)
            assert [(f.offset, f.length) for f in frames] == [
                (f["offset"], f["length"]) for f in entry[key]
            ]
            results = analyze_stream(frames, FrameOptions(era="auto"))
            assert len(results) == len(frames)
            if direction == "c2s":
                expected_era = "legacy" if entry["mode"] == "legacy" else "2026-07-28"
                assert {r.era for r in results} == {expected_era}
                calls = [r for r in results if r.method == "tools/call"]
                assert calls
                for call in calls:
                    # 2**53+1 and 2**64-1 are refused by seal-host's binary64 agreement guard.
                    if entry["name"] == "modern-numbers":
                        assert {r.code for r in call.refusals} == {"wire.number"}
                    else:
                        assert call.admissible, (entry["name"], call.refusals)
                        assert call.identities is not None


def _receipts() -> list[tuple[str, dict]]:
    base = shared_path("fixtures", "seal")
    found = []
    for path in sorted(base.rglob("*.json")):
        doc = parse_bytes(path.read_bytes())
        if isinstance(doc, dict) and "canonical_request" in doc:
            found.append((str(path.relative_to(base)), doc))
    log = base / "seal-live-demo" / "evidence" / "receipts.jsonl"
    for number, line in enumerate(log.read_bytes().splitlines(), 1):
        doc = parse_bytes(line)
        assert isinstance(doc, dict)
        if "canonical_request" in doc:
            found.append((f"receipts.jsonl:{number}", doc))
    return found


def _server(doc: dict) -> str:
    config = doc.get("kernel_config")
    if not isinstance(config, dict):
        return ""
    safety = config.get("safety")
    return str(config.get("server") or (safety or {}).get("server") or "")


def test_real_receipts_reproduce_from_their_frames() -> None:
    """The frame inside each real receipt reproduces the receipt's own bound hashes.

    Object B v2 receipts carry the frame (object_a); for the others the wire line was the
    canonical request itself (host receipts prove it: their request_sha256 and framed
    subject match that line), so the frame is rebuilt as canonical_request + LF.
    """
    receipts = _receipts()
    assert len(receipts) >= 15
    guarded = 0
    with_subject = 0
    for name, doc in receipts:
        artifacts = doc.get("signed_artifacts")
        if isinstance(artifacts, dict):
            data = base64.b64decode(artifacts["object_a"])
        else:
            data = doc["canonical_request"].encode() + b"\n"
        result = analyze_frame(frame_of(data), FrameOptions(era="legacy", server=_server(doc)))
        assert result.admissible, name
        ids = result.identities
        assert ids is not None
        if "framed_subject_sha256" in doc:
            with_subject += 1
            assert result.frame.exact_sha256 == doc["framed_subject_sha256"], name
            assert result.frame.length == int(doc["framed_subject_length"].lexeme), name
        if "request_sha256" in doc:
            assert result.frame.raw_line_sha256 == doc["request_sha256"], name
        assert ids.canonical_request == doc["canonical_request"], name
        assert ids.canonical_request_sha256 == doc["canonical_request_sha256"], name
        if "args_hash" in doc:
            assert ids.args_hash == doc["args_hash"], name
        reasons = [c["reason"] for c in doc.get("certs", []) if c.get("kernel") == "safety"]
        config = doc.get("kernel_config") or {}
        rules = (config.get("safety") or config).get("tools", [])
        full = any(
            r.get("name") == ids.tool and r.get("target") == [{"full_arguments": True}]
            for r in rules
            if isinstance(r, dict)
        )
        if full and reasons and doc.get("verdict") == "BLOCK":
            guarded += 1
            assert ids.guard_target_host == reasons[0], name
    assert with_subject >= 3
    assert guarded >= 3


def test_effect_commitment_vectors_and_their_staleness() -> None:
    """mcp-seal-dev's committed v4 vectors use the e502718 layout (meta pair only).

    HEAD's Lean definition also appends the requestState and inputResponses pairs, so our
    HEAD-exact effect_v4 must differ from every stored commitment, while the older layout,
    rebuilt here independently from the netstring rule, reproduces every one of them.
    """
    import hashlib

    from sealverify._internal.mcp.frame import analyze_frame as analyze
    from sealverify._internal.primitives import identities
    from sealverify._internal.wire import leanjson

    vectors = json.loads(
        shared_path(
            "fixtures", "seal", "mcp-seal-dev", "test", "vectors", "effect_commitment_vectors.json"
        ).read_text()
    )["vectors"]
    committed = 0
    for vector in vectors:
        args = vector["arguments_json"]
        meta = vector["meta_json"]
        params = '{"name":' + json.dumps(vector["tool"])
        if args != "null":  # the vector stands for a tools/call without arguments
            params += ',"arguments":' + args
        if meta is not None:
            params += ',"_meta":' + meta
        line = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":' + params + "}}\n"
        result = analyze(frame_of(line.encode()), FrameOptions(era="legacy"))
        if vector["expect"] == "rejected":
            assert not result.admissible, vector["name"]
            continue
        parsed = parse_bytes(line.encode())["params"]
        assert leanjson.compress(parsed.get("arguments")) == vector["canonical_arguments"]
        parts = [
            "seal.effect/v4-proposed-meta-all",
            vector["server"],
            vector["tool"],
            vector["canonical_arguments"],
        ]
        if meta is None:
            parts += ["meta.absent", ""]
        else:
            canonical_meta = json.dumps(
                vector["canonical_meta"], separators=(",", ":"), sort_keys=True, ensure_ascii=False
            )
            assert leanjson.compress(parsed["_meta"]) == canonical_meta
            parts += ["meta.present", canonical_meta]
        old_layout = "".join(f"{len(p)}:{p}" for p in parts)
        assert hashlib.sha256(old_layout.encode()).hexdigest() == vector["effect_commitment"]
        assert identities.effect_v4(parsed, vector["server"]) != vector["effect_commitment"]
        committed += 1
    assert committed == 22


def test_raw_line_strips_one_lf_then_one_cr() -> None:
    assert raw_line(b"{}\r\n") == b"{}"
    assert raw_line(b"{}\n\n") == b"{}\n"
    assert raw_line(b"{}\r\r\n") == b"{}\r"
    assert raw_line(b"{}") == b"{}"
    assert sha256_hex(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_crlf_frame_keeps_the_line_digest_and_changes_the_frame_digest() -> None:
    lf = split_stdio(shared_path(*FRAMES, "modern-rich-meta-string-token.c2s.bin").read_bytes())[0]
    crlf = split_stdio(shared_path(*FRAMES, "malformed", "crlf-terminated.bin").read_bytes())[0]
    assert crlf.terminator == "CRLF" and lf.terminator == "LF"
    assert crlf.raw_line_sha256 == lf.raw_line_sha256
    assert crlf.exact_sha256 != lf.exact_sha256


def test_http_transport_uses_the_body_as_the_frame() -> None:
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}'
    frame = frame_of(body, "http")
    assert frame.raw_line_sha256 == frame.exact_sha256 == sha256_hex(body)
    result = analyze_frame(frame)
    assert {r.code for r in result.refusals} == {"meta.required-key-missing"}


def test_bare_cr_inside_a_frame_is_refused() -> None:
    data = b'{"jsonrpc":"2.0",\r"id":1,"method":"tools/list"}\n'
    result = analyze_frame(frame_of(data), FrameOptions(era="legacy"))
    assert "frame.embedded-newline" in {r.code for r in result.refusals}
