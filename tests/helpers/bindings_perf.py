"""Shared with other test modules by tests/perf/test_bindings_perf.py."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

from sealverify_testkit.mint import mint_many
from sealverify_testkit.mintfixtures import demo_receipts

from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonNumber,
    JsonValue,
    display,
    parse_bytes,
)


def outcome(function: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    """What a call gives: ("ok", value) or ("raise", exception type and message)."""
    try:
        return "ok", function(*args)
    except (ValueError, UnicodeError) as exc:  # NumberNotRepresentable, JsonError included
        return "raise", (type(exc), str(exc))


SCALAR = re.compile(r'(:\s*)("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)')
HOSTILE = ['"\\ud800"', "1e9999", "-0", '"QQ=="', '"AB=="', "{}", "[]", '"\\u0000"', "null"]


def perf_documents() -> list[dict[str, JsonValue]]:
    """Minted v3 receipts (every verdict shape), the demo receipts, and hostile mutants."""
    raws = list(mint_many(9, seed=b"perf-bindings"))
    raws += [raw for name, raw in sorted(demo_receipts().items()) if name.endswith(".json")]
    text = raws[1].decode()  # an approved ALLOW: release frame, approval statement
    for n, match in enumerate(SCALAR.finditer(text)):
        value = HOSTILE[n % len(HOSTILE)]
        raws.append((text[: match.start(2)] + value + text[match.end(2) :]).encode())
    docs = []
    for raw in raws:
        try:
            doc = parse_bytes(raw)
        except JsonError:
            continue
        if isinstance(doc, dict):
            docs.append(doc)
    return docs + frame_mutants(docs[1])


FRAMES = [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}\r\n',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}\r',
    b'{"jsonrpc":"2.0","id":1,"params":{"arguments":{"x":1.50,"y":[1e400]},"_meta":{"b":1,"a":{}}}}\n',
    b'{"jsonrpc":"2.0","id":1,"params":{"name":"t","arguments":{"x":1},"x":1,"x":2}}\n',
    b'{"jsonrpc":"2.0","operation_id":"o","params":{"name":"t","arguments":{}}}\n',
    b'{"params":{"name":"t","arguments":{"s":"\\ud800"}}}\n',
    b'{"params":"nope"}\n',
    b"{}\n",
    b"[1]\n",
    b"{\n",
    b"\xff\n",
    b"",
]


def frame_mutants(doc: dict[str, JsonValue]) -> list[dict[str, JsonValue]]:
    """Copies of an approved ALLOW whose Object A, release frame or statement is replaced."""
    out = []
    for frame in FRAMES:
        for member in ("object_a", "release_frame"):
            mutant = parse_bytes(display(doc).encode())
            assert isinstance(mutant, dict)
            text = base64.b64encode(frame).decode()
            holder = mutant["signed_artifacts" if member == "object_a" else "release_frame"]
            assert isinstance(holder, dict)
            holder["object_a" if member == "object_a" else "base64"] = text
            out.append(mutant)
    for text in ["QQ", "QR==", " QQ==", "e30=", None, 7]:
        mutant = parse_bytes(display(doc).encode())
        assert isinstance(mutant, dict) and isinstance(mutant["signed_artifacts"], dict)
        mutant["signed_artifacts"]["approval_statement"] = (
            JsonNumber(str(text)) if isinstance(text, int) else text
        )
        out.append(mutant)
    return out
