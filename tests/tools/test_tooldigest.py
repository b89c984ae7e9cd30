"""Tool digests: upstream vectors (read from fetched mirrors), independent expectations, capture."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import rfc8785
from click.testing import CliRunner

from sealverify._internal.cli.main import cli
from sealverify._internal.tools.capture import build_capture, sanitize_declared
from sealverify._internal.tools.digests import (
    PROFILES,
    digest_tool,
    js_value,
    read_listing,
    rugsnare_canonical,
)
from sealverify._internal.wire.strictjson import parse_bytes
from tests.conftest import shared_path

HELDFAST = PROFILES["heldfast"]
RUGSNARE = PROFILES["rugsnare"]
# Upstream vectors (heldfast, rugsnare) in ../shared, read in place at test time, never committed;
# their provenance is ../shared/vectors/tool-digests/PROVENANCE.md.
VECTORS = ("vectors", "tool-digests")
SDK = ("frames", "mcp-python-sdk-2.3.0")


def _tool(obj: dict[str, Any]) -> Any:
    return parse_bytes(json.dumps(obj).encode())


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# --- upstream vectors, read at run time from ../shared, never committed ----------------------


def _vectors(project: str) -> Path:
    return shared_path(*VECTORS, project)


def test_heldfast_published_tool_vectors_reproduce() -> None:
    # rufat325/heldfast tests/golden/tools/*.json: {"id", "digest", "tool"} (docs/LOCK.md).
    vectors = sorted((_vectors("heldfast") / "tests" / "golden" / "tools").glob("*.json"))
    assert len(vectors) >= 14, "the heldfast golden tool vectors are incomplete"
    for path in vectors:
        vector = json.loads(path.read_bytes())
        got = digest_tool(parse_bytes(json.dumps(vector["tool"]).encode()), HELDFAST)
        assert got.digest == vector["digest"], path.name


def test_heldfast_published_jcs_vectors_reproduce() -> None:
    # tests/golden/jcs_vectors.json `canonical`: value -> exact canonical text. Values holding a
    # lone surrogate are refused by sealverify's strict parser before any profile sees them.
    path = _vectors("heldfast") / "tests" / "golden" / "jcs_vectors.json"
    vectors = json.loads(path.read_bytes())
    checked = 0
    for case in vectors["canonical"]:
        raw = json.dumps(case["value"]).encode()
        if any(0xD800 <= ord(c) <= 0xDFFF for c in json.dumps(case["value"], ensure_ascii=False)):
            continue
        assert HELDFAST.serialize(js_value(parse_bytes(raw))) == case["expect"].encode(), case
        checked += 1
    assert checked >= 25


def test_rugsnare_published_pins_reproduce() -> None:
    # Paraphern/rugsnare corpus/*/.rugsnare/pins.json that record description and inputSchema
    # beside hash/schemaHash/proseHash (docs/PIN-SPEC.md §2).
    files = sorted((_vectors("rugsnare") / "corpus").glob("*/.rugsnare/pins.json"))
    assert files, "no rugsnare pins files"
    checked = 0
    for path in files:
        pins = json.loads(path.read_bytes())
        for server in pins["servers"].values():
            for name, pin in server["tools"].items():
                if "inputSchema" not in pin or "schemaHash" not in pin:
                    continue
                tool = {
                    "name": name,
                    "description": pin["description"],
                    "inputSchema": pin["inputSchema"],
                }
                got = digest_tool(_tool(tool), RUGSNARE)
                assert got.digest == pin["hash"], (path.parent.parent.name, name)
                assert got.extra["schemaHash"] == pin["schemaHash"], (path.parent.parent.name, name)
                assert got.extra["proseHash"] == pin["proseHash"], (path.parent.parent.name, name)
                checked += 1
    assert checked, "no pins with inputSchema found"


# --- independent expectations (hashlib + rfc8785 over hand-built bodies) ----------------------


def _heldfast_expected(body: dict[str, Any]) -> str:
    return _sha(rfc8785.dumps(body))


def test_heldfast_minimal_tool_fills_missing_members() -> None:
    body = {"name": "ping", "title": "", "description": "", "input_schema": {}, "annotations": {}}
    assert digest_tool(_tool({"name": "ping"}), HELDFAST).digest == _heldfast_expected(body)


def test_heldfast_wire_names_and_omit_when_empty() -> None:
    tool = {
        "name": "t",
        "description": "d",
        "inputSchema": {"type": "object"},
        "outputSchema": {},
        "icons": [],
    }
    body = {
        "name": "t",
        "title": "",
        "description": "d",
        "input_schema": {"type": "object"},
        "annotations": {},
    }
    assert digest_tool(_tool(tool), HELDFAST).digest == _heldfast_expected(body)
    tool["outputSchema"] = {"type": "string"}
    body["output_schema"] = {"type": "string"}
    assert digest_tool(_tool(tool), HELDFAST).digest == _heldfast_expected(body)


def test_heldfast_null_snake_case_schema_falls_back_to_wire_name() -> None:
    tool = {"name": "e", "input_schema": None, "inputSchema": {"type": "object"}}
    body = {
        "name": "e",
        "title": "",
        "description": "",
        "input_schema": {"type": "object"},
        "annotations": {},
    }
    assert digest_tool(_tool(tool), HELDFAST).digest == _heldfast_expected(body)


def test_heldfast_numbers_follow_javascript() -> None:
    one = digest_tool(parse_bytes(b'{"name":"t","inputSchema":{"minimum":1.0}}'), HELDFAST)
    int_one = digest_tool(parse_bytes(b'{"name":"t","inputSchema":{"minimum":1}}'), HELDFAST)
    assert one.digest == int_one.digest
    big = digest_tool(parse_bytes(b'{"name":"t","inputSchema":{"m":9007199254740993}}'), HELDFAST)
    rounded = digest_tool(
        parse_bytes(b'{"name":"t","inputSchema":{"m":9007199254740992}}'), HELDFAST
    )
    assert big.digest == rounded.digest  # JSON.parse rounds both to one double
    body = {
        "name": "t",
        "title": "",
        "description": "",
        "input_schema": {"m": 2.0**60},
        "annotations": {},
    }
    assert b"1152921504606847000" in rfc8785.dumps(body)
    got = digest_tool(
        parse_bytes(b'{"name":"t","inputSchema":{"m":1152921504606846976}}'), HELDFAST
    )
    assert got.digest == _heldfast_expected(body)


def test_heldfast_refuses_what_it_cannot_spell() -> None:
    huge = digest_tool(parse_bytes(b'{"name":"t","inputSchema":{"m":1e400}}'), HELDFAST)
    assert huge.digest is None and "largest double" in huge.reason
    odd = digest_tool(parse_bytes(b'{"name":"t","description":["x"]}'), HELDFAST)
    assert odd.digest is None and "description" in odd.reason


def test_heldfast_key_order_does_not_matter() -> None:
    a = parse_bytes(b'{"name":"t","inputSchema":{"type":"object","properties":{}}}')
    b = parse_bytes(b'{"inputSchema":{"properties":{},"type":"object"},"name":"t"}')
    assert digest_tool(a, HELDFAST).digest == digest_tool(b, HELDFAST).digest


def test_rugsnare_independent_expectation() -> None:
    tool = {
        "name": "s",
        "description": "Find café",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
    }
    text = json.dumps(
        {"description": "Find café", "inputSchema": {"type": "object"}, "name": "s"},
        separators=(",", ":"),
        ensure_ascii=False,
    )
    got = digest_tool(_tool(tool), RUGSNARE)
    assert got.digest == _sha(text.encode())
    structural = '{"inputSchema":{"type":"object"},"name":"s"}'
    assert got.extra["schemaHash"] == _sha(structural.encode())
    assert got.extra["proseHash"] == _sha("Find café".encode())


def test_rugsnare_javascript_key_order_and_proto() -> None:
    value = {"a": 3, "10": 2, "9": 1, "__proto__": {"x": 1}, "B": 0}
    assert rugsnare_canonical(value) == b'{"9":1,"10":2,"B":0,"a":3}'


def test_rugsnare_null_is_missing_and_numbers_kept() -> None:
    null = digest_tool(_tool({"name": "n", "description": None}), RUGSNARE)
    missing = digest_tool(_tool({"name": "n"}), RUGSNARE)
    assert null.digest == missing.digest
    assert missing.digest == _sha(b'{"description":"","inputSchema":{},"name":"n"}')
    number = digest_tool(_tool({"name": "n", "description": 5}), RUGSNARE)
    assert number.digest == _sha(b'{"description":5,"inputSchema":{},"name":"n"}')
    assert "proseHash" not in number.extra  # hash.update() throws on a number in rugsnare


def test_profiles_disagree_on_the_same_tool() -> None:
    tool = _tool({"name": "x", "description": "d", "inputSchema": {}})
    assert digest_tool(tool, HELDFAST).digest != digest_tool(tool, RUGSNARE).digest


# --- listings, pagination, capture ------------------------------------------------------------


def _page(tools: list[dict[str, Any]], cursor: str | None, id_: int) -> bytes:
    result: dict[str, Any] = {"tools": tools}
    if cursor:
        result["nextCursor"] = cursor
    return json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}).encode() + b"\n"


def _req(id_: int, cursor: str | None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": "tools/list"}
    if cursor:
        msg["params"] = {"cursor": cursor}
    return json.dumps(msg).encode() + b"\n"


INIT_REQ = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
    b'"2025-06-18","capabilities":{"roots":{},"sampling":{}},"clientInfo":{}}}\n'
)
INIT_RES = (
    b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18",'
    b'"capabilities":{},"serverInfo":{"name":"s","version":"1"}}}\n'
)


def test_pagination_followed_and_recorded() -> None:
    c2s = INIT_REQ + _req(1, None) + _req(2, "p2")
    s2c = INIT_RES + _page([{"name": "a"}], "p2", 1) + _page([{"name": "b"}], None, 2)
    listing = read_listing(s2c, c2s)
    assert [t["name"] for _, t in listing.tools] == ["a", "b"]
    block, findings = build_capture(listing, None)
    assert block == {
        "transport": "stdio",
        "protocol": {"requested": "2025-06-18", "negotiated": "2025-06-18"},
        "pages": {"read": 2, "complete": True},
        "clientCapabilities": ["roots", "sampling"],
    }
    assert not findings


def test_stopped_listing_is_incomplete() -> None:
    listing = read_listing(INIT_RES + _page([{"name": "a"}], "p2", 1), INIT_REQ + _req(1, None))
    assert not listing.complete
    block, _ = build_capture(listing, None)
    assert block["pages"] == {"read": 1, "complete": False}


def test_cursor_mismatch_breaks_the_listing() -> None:
    c2s = _req(1, None) + _req(2, "other")
    s2c = _page([{"name": "a"}], "p2", 1) + _page([{"name": "b"}], None, 2)
    listing = read_listing(s2c, c2s)
    assert not listing.complete
    assert any(c.id == "tools.pages.cursor-mismatch" for c in listing.findings)


def test_json_array_of_pages() -> None:
    pages = [{"tools": [{"name": "a"}], "nextCursor": "c"}, {"tools": [{"name": "b"}]}]
    listing = read_listing(json.dumps(pages).encode())
    assert listing.complete and len(listing.pages) == 2 and len(listing.tools) == 2
    block, _ = build_capture(listing, None)
    assert "transport" not in block and "protocol" not in block  # unknown: omitted


def test_declared_capture_never_publishes_env_values() -> None:
    declared = {
        "observedAt": "2026-10-26T13:34:32Z",
        "guess": 1,
        "protocol": {"versionHeader": True, "negotiated": 7},
        "launch": {
            "env": {"EXAMPLE_API_KEY": "s3cr3t-value"},
            "envValues": "real",
            "network": "sometimes",
            "home": "/home/reader",
        },
    }
    block, findings = sanitize_declared(declared, "capture")
    assert block == {
        "observedAt": "2026-10-26T13:34:32Z",
        "protocol": {"versionHeader": True},
        "launch": {"envNames": ["EXAMPLE_API_KEY"], "envValues": "real", "home": "/home/reader"},
    }
    assert "s3cr3t-value" not in json.dumps(block) + "".join(c.reason for c in findings)
    ids = {c.id for c in findings}
    assert {"capture.env-values-withheld", "capture.declared.dropped"} <= ids


def test_real_sdk_transcripts_digest_completely() -> None:
    folder = shared_path(*SDK)
    sessions = sorted(folder.glob("*.s2c.bin"))
    assert len(sessions) >= 10
    for s2c in sessions:
        c2s = s2c.with_name(s2c.name.replace(".s2c.", ".c2s."))
        listing = read_listing(s2c.read_bytes(), c2s.read_bytes())
        raw = [json.loads(line) for line in s2c.read_bytes().splitlines()]
        expected = [t for m in raw if "tools" in m.get("result", {}) for t in m["result"]["tools"]]
        assert listing.complete, s2c.name
        assert [t["name"] for _, t in listing.tools] == [t["name"] for t in expected]
        block, _ = build_capture(listing, None)
        assert block["transport"] == "stdio" and block["pages"] == {"read": 1, "complete": True}
        for (_, tool), want in zip(listing.tools, expected, strict=True):
            body = {
                "name": want["name"],
                "title": want.get("title", ""),
                "description": want.get("description", ""),
                "input_schema": want.get("inputSchema", {}),
                "annotations": want.get("annotations", {}),
            }
            if want.get("outputSchema"):
                body["output_schema"] = want["outputSchema"]
            assert digest_tool(tool, HELDFAST).digest == _heldfast_expected(body), want["name"]


def test_real_legacy_handshake_records_versions() -> None:
    folder = shared_path(*SDK)
    listing = read_listing(
        (folder / "legacy-handshake.s2c.bin").read_bytes(),
        (folder / "legacy-handshake.c2s.bin").read_bytes(),
    )
    block, _ = build_capture(listing, None)
    assert block["protocol"] == {"requested": "2025-11-25", "negotiated": "2025-11-25"}
    assert block["clientCapabilities"] == []
    # Without the client stream the requested version is unknown, so it is omitted.
    alone = read_listing((folder / "legacy-handshake.s2c.bin").read_bytes())
    assert build_capture(alone, None)[0]["protocol"] == {"negotiated": "2025-11-25"}


def test_real_filesystem_manifest() -> None:
    path = shared_path(
        "fixtures", "seal", "seal-host", "profiles", "manifests", "filesystem-2026.7.10.tools.json"
    )
    listing = read_listing(path.read_bytes())
    assert len(listing.tools) == 13 and listing.complete
    body = {
        "name": "read_text_file",
        "title": "",
        "description": "",
        "input_schema": {},
        "annotations": {"readOnlyHint": True},
    }
    assert digest_tool(listing.tools[0][1], HELDFAST).digest == _heldfast_expected(body)


# --- CLI --------------------------------------------------------------------------------------


def test_cli_digest_table_prints_profile_beside_digest(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"tools": [{"name": "ping"}]}))
    result = _run("tools", "digest", str(path), "--profile", "heldfast")
    assert result.exit_code == 0, result.output
    want = _heldfast_expected(
        {"name": "ping", "title": "", "description": "", "input_schema": {}, "annotations": {}}
    )
    assert f"heldfast-jcs-v2 {want}" in result.stdout
    assert "heldfast-jcs-v2+set-v1" in result.stdout
    assert '"pages":{"complete":true,"read":1}' in result.stdout


def test_cli_digest_json_carries_capture_beside_each_digest(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"tools": [{"name": "a"}, {"name": "b"}], "nextCursor": "x"}))
    result = _run("tools", "digest", str(path), "--profile", "rugsnare", "--format", "json")
    assert result.exit_code == 1  # incomplete list
    report = json.loads(result.stdout)
    assert all(
        s["facts"]["capture"]["pages"] == {"read": 1, "complete": False} for s in report["subjects"]
    )
    assert all(s["facts"]["profile"].startswith("rugsnare-v1") for s in report["subjects"])
    assert any(f["id"] == "tools.pages.incomplete" for f in report["findings"])


def test_cli_digest_flags_home_without_printing_placeholder(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(
        json.dumps(
            {
                "tools": [
                    {"name": "a", "description": "root /home/reader/x"},
                    {"name": "b", "description": "key PLACEHOLDER-123"},
                ]
            }
        )
    )
    cap = tmp_path / "cap.json"
    cap.write_text(json.dumps({"launch": {"home": "/home/reader"}}))
    result = _run(
        "tools",
        "digest",
        str(path),
        "--profile",
        "heldfast",
        "--capture",
        str(cap),
        "--placeholder",
        "PLACEHOLDER-123",
        "--format",
        "json",
    )
    assert result.exit_code == 1
    assert "PLACEHOLDER-123" not in result.stdout
    flagged = [
        c
        for s in json.loads(result.stdout)["subjects"]
        for c in s["checks"]
        if c["id"] == "tools.capture.reader-environment"
    ]
    assert [c["location"] for c in flagged] == ["/tools/0/description", "/tools/1/description"]


def test_cli_digest_usage_errors_exit_2(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.json")
    assert _run("tools", "digest", missing, "--profile", "heldfast").exit_code == 2
    path = tmp_path / "t.json"
    path.write_text('{"tools":[]}')
    assert _run("tools", "digest", str(path), "--profile", "md5").exit_code == 2


def test_cli_digest_defaults_to_heldfast_as_compare_does(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    tool = {"name": "search", "description": "Search notes", "inputSchema": {"type": "object"}}
    path.write_text(json.dumps({"tools": [tool]}))
    bare = _run("tools", "digest", str(path), "--format", "json")
    named = _run("tools", "digest", str(path), "--profile", "heldfast", "--format", "json")
    assert bare.exit_code == named.exit_code == 0
    assert bare.output == named.output
    assert "heldfast-jcs-v2" in bare.output
    rug = _run("tools", "digest", str(path), "--profile", "rugsnare", "--format", "json")
    assert rug.output != bare.output
