"""Record bytes as seal writes them: pretty and compact rendering, certs, emitted bytes, configs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from sealverify._internal.wire import leanjson, serdejson, strictjson
from sealverify._internal.wire.framing import sha256_hex
from sealverify._internal.wire.netstring import encode_parts
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue
from sealverify_testkit.keys import (
    TestKey,
)

__all__ = [
    "Cert",
    "cert_hash",
    "emitted_bytes",
    "parse_record",
    "post_state_hash",
    "render_compact",
    "render_pretty",
    "sign_config",
]


Record = dict[str, JsonValue]


# Byte rules


def json_int(value: int) -> JsonNumber:
    return JsonNumber(str(value))


def parse_record(data: bytes) -> Record:
    """Parse receipt bytes strictly (lexemes and member order kept); ValueError if no object."""
    value = strictjson.parse_bytes(data)
    if not isinstance(value, dict):
        raise ValueError("a receipt is a JSON object")
    return value


def render_compact(value: JsonValue) -> bytes:
    """Compact serde JSON in producer order (``serde_json::to_vec``)."""
    return serdejson.compact(value, exact=True).encode("utf-8")


def _pretty(value: JsonValue, indent: str, out: list[str]) -> None:
    if isinstance(value, dict) and value:
        inner = indent + "  "
        out.append("{\n")
        for index, (key, item) in enumerate(value.items()):
            out.append(("," if index else "") + ("\n" if index else "") + inner)
            out.append(serdejson.string_text(key) + ": ")
            _pretty(item, inner, out)
        out.append("\n" + indent + "}")
    elif isinstance(value, list) and value:
        inner = indent + "  "
        out.append("[\n")
        for index, item in enumerate(value):
            out.append(("," if index else "") + ("\n" if index else "") + inner)
            _pretty(item, inner, out)
        out.append("\n" + indent + "]")
    else:
        out.append(serdejson.compact(value, exact=True))


def render_pretty(value: JsonValue) -> bytes:
    """A receipt file as seal-host writes it: ``serde_json::to_string_pretty`` plus ``\\n``.

    Two-space indent, ``": "`` after keys, empty containers as ``{}``/``[]``, strings and
    numbers exactly as in compact output (equal to Python ``json.dumps(indent=2,
    ensure_ascii=False)`` on these values; tests/primitives/test_mint.py proves it on real host
    files).
    """
    out: list[str] = []
    _pretty(value, "", out)
    return ("".join(out) + "\n").encode("utf-8")


def cert_hash(kernel: str, verdict: str, reason: str) -> str:
    """``certHash``: FNV-1 style 64-bit fold over ``encodeParts([kernel, verdict, reason])``.

    mcp-seal-dev ``Seal/Hash.lean``: ``acc * 1099511628211 + ord(ch)`` mod 2^64 from the FNV
    offset basis, over characters (not bytes), written as a decimal string.
    """
    acc = 14695981039346656037
    for char in encode_parts([kernel, verdict, reason]):
        acc = (acc * 1099511628211 + ord(char)) % 2**64
    return str(acc)


@dataclass(frozen=True, slots=True)
class Cert:
    """One kernel certificate: ``kernel``, ``verdict`` (allow/deny), ``reason``."""

    kernel: str
    verdict: Literal["allow", "deny"]
    reason: str

    def host_form(self) -> Record:
        """Members in Lean compress order, as host receipts copy them from the audit."""
        return {
            "certHash": cert_hash(self.kernel, self.verdict, self.reason),
            "kernel": self.kernel,
            "reason": self.reason,
            "verdict": self.verdict,
        }

    def fleet_form(self) -> Record:
        """Members in the fleet (JS) producer order."""
        return {
            "kernel": self.kernel,
            "verdict": self.verdict,
            "reason": self.reason,
            "certHash": cert_hash(self.kernel, self.verdict, self.reason),
        }


def _block_response(request_id: JsonValue, reason: str) -> str:
    """mcp-seal-dev ``Seal/Block.lean`` ``blockResponseLine``: Lean compress plus ``\\n``."""
    response: Record = {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {
            "content": [{"type": "text", "text": f"approval required: {reason}"}],
            "isError": True,
        },
    }
    return leanjson.compress(response) + "\n"


def emitted_bytes(
    epoch: JsonValue,
    tool: str,
    certs: Sequence[Cert],
    request_sha256: str,
    request_id: JsonValue,
) -> str:
    """The kernel's step output (seal-host ``Ffi.lean``): ``{audit, response?, route}``.

    ``audit`` is ``Host/Audit.lean`` ``auditLine`` (keys sorted by Lean compress); the route is
    ``forward`` when every cert allows, else ``block`` with the first deny reason's response.
    """
    allowed = bool(certs) and all(cert.verdict == "allow" for cert in certs)
    audit: Record = {
        "epoch": epoch,
        "tool": tool,
        "verdict": "allow" if allowed else "deny",
        "request_sha256": request_sha256,
        "certs": [cert.host_form() for cert in certs],
    }
    step: Record = {"route": "forward" if allowed else "block"}
    if not allowed:
        deny = next((c.reason for c in certs if c.verdict == "deny"), "no kernel gated this call")
        step["response"] = _block_response(request_id, deny)
    step["audit"] = leanjson.compress(audit)
    return leanjson.compress(step)


def sign_config(kernel_config: JsonValue, key: TestKey) -> Record:
    """``signed_config``: Ed25519 over the exact compact payload bytes, no domain tag."""
    payload = serdejson.compact(kernel_config, exact=True)
    return {
        "payload": payload,
        "signature": key.sign(payload.encode("utf-8")).hex(),
        "pubkey": key.public_hex,
    }


def post_state_hash(operation_id: str, release_frame: bytes) -> str:
    """``sha256('{"operation_id":…,"release_frame_sha256":…}')``, compact, in that order."""
    text = serdejson.compact(
        {"operation_id": operation_id, "release_frame_sha256": sha256_hex(release_frame)}
    )
    return sha256_hex(text.encode("utf-8"))
