"""One harness per entry-point family: seeds, and a target that runs the command on an input."""

from __future__ import annotations

import base64
import hashlib
import io
import json
from contextlib import redirect_stderr, redirect_stdout, suppress
from functools import cache

from sealverify_testkit import keys

from fuzz import seeds, shapes
from fuzz.base import Harness, run_cli, workspace, write
from sealverify._internal.cli.main import cli
from sealverify._internal.forensics import inputs
from sealverify._internal.forensics.integrity import RECEIPT_LIMITS
from sealverify._internal.wire import framing, leanjson, serdejson
from sealverify._internal.wire.framing import WHITESPACE
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonValue,
    display,
    member_spans,
    parse_bytes,
)

__all__ = ["HARNESSES", "Harness", "run_cli", "workspace_file"]

_workspace, _write = workspace, write
workspace_file = write  # the complexity cases write their inputs here too


CALL = seeds.FIXTURES / "frames" / "call.bin"
TRUST = seeds.FIXTURES / "demo" / "trust.json"


def _strict_json(data: bytes) -> None:
    try:
        value = parse_bytes(data)
    except JsonError:
        return
    display(value)
    with suppress(serdejson.NumberNotRepresentable):
        serdejson.compact(value, exact=True)
    try:
        leanjson.compress(value)
    except ValueError as exc:  # documented: a number Lean's parser would not read
        if "not a JSON number" not in str(exc) and "exponent over 6 digits" not in str(exc):
            raise
    if isinstance(value, dict):
        text = data.decode("utf-8")
        member_spans(text, len(text) - len(text.lstrip(" \t\r\n")))


def _frame(data: bytes) -> None:
    path = _write("frame.bin", data)
    small_cap = ["--max-frame-bytes", str(1 + len(data) % 13)]  # reaches the streamed frames
    extra = [["--era", "auto"], ["--transport", "http"], [], small_cap][len(data) % 4]
    run_cli(["frame", path, "--format", "json", *extra])


def _receipts(data: bytes) -> str:
    """The receipt directory holding ``data``: a JSON-lines log when it has several lines."""
    log = b"\n{" in data.rstrip(b"\n")
    names = ("r.jsonl", "r.receipt.json") if log else ("r.receipt.json", "r.jsonl")
    (_workspace() / "receipts" / names[1]).unlink(missing_ok=True)
    _write(f"receipts/{names[0]}", data)
    return str(_workspace() / "receipts")


def _verify(data: bytes) -> None:
    run_cli(["verify", _receipts(data), "--format", "json"])


def _verify_pinned(data: bytes) -> None:
    receipts = _receipts(data)
    run_cli(
        ["verify", receipts, "--trust", str(TRUST), "--allow-published-keys", "--format", "json"]
    )


def _chain(data: bytes) -> None:
    path = _write("audit.log", data)
    extra = [["--expect-count", "3"], []][len(data) % 2]
    run_cli(["chain", path, "--format", "json", *extra])


def _approval(data: bytes) -> None:
    path = _write("tokens.ndjson", data)
    pub = keys.APPROVER_KEY.public_hex
    run_cli(["approval", path, "--approval-pubkey", pub, "--frame", str(CALL), "--format", "json"])


def _partition_emit(data: bytes) -> None:
    path = _write("frame.bin", data)
    sign = ["--sign-key", str(_workspace() / "sign.key")] if len(data) % 2 else []
    run_cli(["partition", "emit", path, "--format", "json", "--era", "auto", *sign])


@cache
def _attestation() -> tuple[bytes, bytes]:
    """A signed attestation of the fixture call, made by ``partition emit`` itself."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        cli.main(
            ["partition", "emit", str(CALL), "--sign-key", str(_workspace() / "sign.key")],
            standalone_mode=False,
        )
    out.flush()
    buffer = out.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue(), CALL.read_bytes()


def _partition_verify(data: bytes) -> None:
    # Half the inputs are the attestation (with the fixture frame), half the frame.
    attestation, frame = _attestation()
    if data.startswith(b'{"jsonrpc"') or len(data) % 2:
        attestation, frame = attestation, data
    else:
        attestation = data
    att, frm = _write("att.json", attestation), _write("frame.bin", frame)
    pub = keys.RECEIPT_KEY.public_hex
    run_cli(["partition", "verify", att, "--frame", frm, "--pubkey", pub, "--format", "json"])


def _partition_seeds() -> list[bytes]:
    return [_attestation()[0], *seeds.frames()[:20]]


def _diff(data: bytes) -> None:
    a = _write("a.bin", data)
    other = [
        str(CALL),
        a,
        str(seeds.FIXTURES / "demo" / "receipts" / "verified-allow.receipt.json"),
    ]
    run_cli(["diff", a, other[len(data) % 3], "--format", "json"])
    _diff_reads_as_whole(data)


def _diff_reads_as_whole(data: bytes) -> None:
    """The diff reading in blocks of 1 to 13 bytes finds the document the whole bytes give.

    A fuzz input is shorter than the 64 KiB block ``diff`` reads, so its bracket scan (which
    decides past one block whether a side is one JSON object) is reached only here.
    """
    stripped = data.strip(WHITESPACE)

    def whole_object(document: bytes | None) -> JsonValue:
        try:
            value = parse_bytes(document, RECEIPT_LIMITS) if document is not None else None
        except JsonError:
            return None
        return value if isinstance(value, dict) else None

    saved, framing.BLOCK = framing.BLOCK, 1 + len(data) % 13  # read_blocks reads it
    try:
        blank, document = inputs.whole_document(lambda: io.BytesIO(data), RECEIPT_LIMITS)
    finally:
        framing.BLOCK = saved
    assert blank == (not stripped), "blank input read otherwise in blocks"
    assert document is None or document == stripped, "another document read in blocks"
    assert whole_object(document) == whole_object(stripped), "the one object read otherwise"


def _diff_seeds() -> list[bytes]:
    return seeds.frames() + seeds.receipts()[:5]


def _tools(data: bytes) -> None:
    path = _write("tools.json", data)
    profile = ["heldfast", "rugsnare"][len(data) % 2]
    run_cli(["tools", "digest", "--profile", profile, path, "--format", "json"])
    if len(data) % 3 == 0:
        listing = _write("listing.json", b'{"tools":[{"name":"a","inputSchema":{}}]}')
        run_cli(["tools", "compare", "--capture-a", path, listing, listing, "--format", "json"])


def _tools_seeds() -> list[bytes]:
    shared = seeds.SHARED
    return (
        seeds.files(shared / "vectors" / "tool-digests", "*.json", 40)
        + seeds.files(shared / "fixtures" / "seal" / "seal-host" / "profiles", "*.tools.json", 5)
        + seeds.files(shared / "frames" / "mcp-python-sdk-2.3.0", "*.s2c.bin", 20)
        + [b'{"observedAt":"2026-01-01T00:00:00Z","launch":{"env":{"A":"b"}}}']
    )


def _skill(data: bytes) -> None:
    skill = _workspace() / "skills" / "demo" / "SKILL.md"
    skill.parent.mkdir(parents=True, exist_ok=True)
    if data.startswith(b"---"):
        skill.write_bytes(data)
        listing = _listing_for(seeds.skill_files()[0])
    else:
        skill.write_bytes(seeds.skill_files()[0])
        listing = data
    path = _write("skills.json", listing)
    run_cli(["skill", "verify", "--listing", path, str(skill), "--format", "json"])


def _listing_for(skill: bytes) -> bytes:
    digest = "sha256:" + hashlib.sha256(skill).hexdigest()
    entry = {
        "uri": "skill://demo/SKILL.md",
        "frontmatter": {"name": "demo", "description": "A demo skill."},
        "resources": [{"uri": "skill://demo/SKILL.md", "digest": digest}],
    }
    return json.dumps(entry).encode()


def _skill_seeds() -> list[bytes]:
    return [*seeds.skill_files(), _listing_for(seeds.skill_files()[0])]


def _wording(data: bytes) -> None:
    name = "doc.json" if data[:1] in (b"{", b"[") else "doc.md"
    run_cli(["lint", _write(name, data), "--format", "json"])


def _wording_seeds() -> list[bytes]:
    return (
        seeds.files(seeds.SHARED / "seeds", "*.txt", 10)
        + seeds.files(seeds.ROOT / "docs", "wording.md", 1)
        + seeds.receipts()[:3]
    )


_META_FRAME = (
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":%s,'
    b'"name":"search_notes","arguments":{"q":1}}}\n'
)


def _meta(data: bytes) -> None:
    path = _write("frame.bin", _META_FRAME % data)
    run_cli(["frame", path, "--format", "json", "--era", "auto"])
    run_cli(["partition", "emit", path, "--format", "json", "--policy", "c-refuse-unknown"])


def _meta_seeds() -> list[bytes]:
    found: list[bytes] = []
    for frame in seeds.frames():
        for line in frame.splitlines():
            try:
                message = json.loads(line)
            except ValueError:
                continue
            params = message.get("params") if isinstance(message, dict) else None
            if isinstance(params, dict) and isinstance(params.get("_meta"), dict):
                found.append(json.dumps(params["_meta"], separators=(",", ":")).encode())
    return found or [b"{}"]


_ATTEST = seeds.FIXTURES / "attest"


def _attestation_verify(data: bytes) -> None:
    # Half the inputs are the attestation file itself; the other half a payload, signed here in
    # a DSSE envelope under the demo key, so mutations reach the Statement behind the signature.
    if len(data) % 2:
        from securesystemslib.dsse import Envelope

        from sealverify._internal.attest.keys import signer

        envelope = Envelope(data, "application/vnd.in-toto+json", {})
        envelope.sign(signer((_ATTEST / "key.pem").read_bytes(), "demo key"))
        data = json.dumps(envelope.to_dict()).encode()
    path = _write("gate.intoto.jsonl", data)
    pubkey, subject = str(_ATTEST / "key.pub.pem"), str(CALL)
    run_cli(["attestation", "verify", path, "--pubkey", pubkey, "--subject", subject])


def _attestation_seeds() -> list[bytes]:
    whole = (_ATTEST / "demo.intoto.jsonl").read_bytes()
    lines = whole.splitlines()
    payloads = [base64.b64decode(json.loads(line)["payload"]) for line in lines]
    return [
        whole,
        *lines,
        *payloads,
        (seeds.ROOT / "tests" / "data" / "attestation" / "dsse-hello-world.json").read_bytes(),
    ]


def _json_seeds() -> list[bytes]:
    return seeds.files(seeds.FIXTURES, "*.json*") + seeds.files(
        seeds.SHARED / "vectors" / "JSONTestSuite", "*.json", 300
    )


_ALL = (
    Harness("strict-json", "parse_bytes, serde and Lean renderings", _json_seeds, _strict_json),
    Harness("frame", "sealverify frame", seeds.frames, _frame),
    Harness("verify", "sealverify verify, no pins", seeds.receipts, _verify, resign=True),
    Harness("verify-pinned", "verify --trust", seeds.receipts, _verify_pinned, resign=True),
    Harness("chain", "sealverify chain", seeds.chain_logs, _chain),
    Harness("approval", "sealverify approval", seeds.approval_tokens, _approval),
    Harness("partition-emit", "sealverify partition emit", seeds.frames, _partition_emit),
    Harness("partition-verify", "partition verify", _partition_seeds, _partition_verify),
    Harness("diff", "sealverify diff", _diff_seeds, _diff),
    Harness("attestation", "attestation verify", _attestation_seeds, _attestation_verify),
    Harness("tools", "tools digest, tools compare --capture-a", _tools_seeds, _tools),
    Harness("skills", "sealverify skill verify", _skill_seeds, _skill),
    Harness("wording", "sealverify lint", _wording_seeds, _wording, structured=False),
    Harness("meta", "_meta through frame and partition emit", _meta_seeds, _meta),
    *shapes.HARNESSES,
)
HARNESSES: dict[str, Harness] = {h.name: h for h in _ALL}
