"""Shared with other test modules by tests/kernel/test_kernel_receipts.py."""

from __future__ import annotations

import json

from sealverify._internal.wire.strictjson import JsonValue, parse_bytes
from tests.conftest import shared_path

# seal-host Host/Audit.lean@099be66, golden vector (v2): the corpus line serde cannot parse
# (1e309 overflows f64), which the kit's unparseable receipt was minted from.
LINE_1E309 = (
    b'{"jsonrpc":"2.0","id":90,"method":"tools/call","params":{"name":"db.execute",'
    b'"arguments":{"database":"prod","sql":"drop table accounts","x":1e309}}}'
)


def upstream_receipts() -> list[tuple[str, dict[str, JsonValue]]]:
    root = shared_path("fixtures", "seal")
    found = []
    for path in sorted(root.rglob("*.json")):
        document = parse_bytes(path.read_bytes())
        if isinstance(document, dict) and "emitted_bytes" in document:
            found.append((str(path.relative_to(root)), document))
    live = root / "seal-live-demo" / "evidence" / "receipts.jsonl"
    for index, line in enumerate(live.read_bytes().splitlines()):
        document = parse_bytes(line)
        assert isinstance(document, dict)
        found.append((f"seal-live-demo/evidence/receipts.jsonl#{index + 1}", document))
    return found


def argument_less_line(receipt: dict[str, JsonValue]) -> bytes:
    """The argument-less call for the tool and id the receipt's own emitted bytes name."""
    emitted = json.loads(str(receipt["emitted_bytes"]))
    tool = json.loads(emitted["audit"])["tool"]
    request_id = json.loads(emitted["response"])["id"]
    line = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": tool}}
    return json.dumps(line, separators=(",", ":")).encode()


def raw_line(receipt: dict[str, JsonValue]) -> bytes | None:
    if "request_parse_error" not in receipt:
        return None
    if "1e309" in str(receipt["request_parse_error"]) or "number out of range" in str(
        receipt["request_parse_error"]
    ):
        return LINE_1E309
    return argument_less_line(receipt)
