"""The adversarial corpus: one minted receipt per family and case, and the pins that trust it.

Every receipt is minted with the project's own testkit and public test keys
(docs/minting.md). Families the testkit has no minting function for are derived from a
minted receipt by the producer's own member rules: a host ``record_version: 2`` record is a
v3 record without the v3 members and without Object B (seal-host before ``f2c3f89``); a
fleet ``seal_receipt: "v1"`` receipt is a v2 one without the v2 extras (seal-check
``docs/DECISION-RECEIPT-SCHEMA.md`` §1 and §11); ``seal_live_receipt: "v0"`` is v1 with the
merged kernel identity block it is grandfathered for (§4); a ``seal.spine/v1`` receipt is
sealed with the spine byte rule (docs/spine.md).
"""

from __future__ import annotations

import base64
import copy
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from sealverify_testkit import mint

from sealverify._internal.kernel.profiles import CURRENT
from sealverify._internal.primitives.objectb import OBJECT_B_V1, OBJECT_B_V2
from sealverify._internal.receipts.spine import commitments, signing_message
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue

Record = dict[str, JsonValue]

CONFIG = mint.KERNEL_VALID_CONFIG  # a policy the kernel loads, so decisions re-derive
KERNEL = CURRENT.wasm_sha256  # the current build: replay.decision can pass
# The demo build has no profile in the kernel model: receipts naming it are not re-derived.
# Unparseable requests are minted under it (the minting emulation does not reproduce the
# kernel's audit for a line serde refuses), so their decision stays not evaluated.
DEMO_KERNEL = mint.DEMO_WASM_SHA256
META = (
    '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",'
    '"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientInfo":{"name":"sealverify-adversary","version":"1.0"},'
    '"io.modelcontextprotocol/clientCapabilities":{}}'
)
GUARDED = '{"command":"systemctl restart app","cwd":"/srv/app"}'
SEARCH = '{"query":"invoice 2291","limit":5}'


def frame(
    tool: str = "shell_exec",
    arguments: str = GUARDED,
    *,
    meta: str | None = META,
    request_id: int = 7,
    extra: str = "",
) -> bytes:
    """A compact tools/call frame; ``extra`` is spliced into params (MRTR members)."""
    params = f'"name":"{tool}","arguments":{arguments}'
    if meta is not None:
        params = f'"_meta":{meta},' + params
    params += extra
    line = f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{{params}}}}}'
    return line.encode("utf-8") + b"\n"


MRTR = ',"requestState":"opaque-state-1","inputResponses":{"confirm":{"action":"accept"}}'


@dataclass(frozen=True, slots=True)
class Case:
    """One corpus receipt: its family, what it shows and its exact bytes."""

    name: str
    family: str
    signed: bool  # a receipt signature (Object B, spine seal) covers the whole record
    data: bytes

    @property
    def record(self) -> Record:
        return mint.parse_record(self.data)


def _host(kind: str, domain: str = OBJECT_B_V2, channel: str = "file", extra: str = "") -> bytes:
    # A guarded call with a context (MRTR members) carries the ruled guard target over it,
    # which no profiled kernel build computes: such receipts, and unparseable ones, name the
    # demo build and are not re-derived (REDUCED). The others name the current build and
    # re-derive; their guarded calls carry no _meta, so the ruled target is the build's.
    derivable = kind != "unparseable" and not extra
    ctx = mint.HostContext(
        domain=domain,
        approval_channel=channel,
        operation_seed=f"{kind}-{domain}".encode(),
        wasm_sha256=KERNEL if derivable else DEMO_KERNEL,
    )
    if kind == "unparseable":
        call = frame("db.execute", '{"database":"prod","x":1e309}')
        return mint.mint_unparseable_v3(call, CONFIG, ctx=ctx)
    return _by_kind(
        kind,
        META if kind == "explicit" or extra else None,
        extra,
        lambda call, approved: mint.mint_host_v3(call, CONFIG, approvals=approved, ctx=ctx),
    )


def _by_kind(
    kind: str, meta: str | None, extra: str, minter: Callable[[bytes, tuple[str, ...]], bytes]
) -> bytes:
    """A guarded BLOCK, the same call ALLOWed by its approval, or an explicit policy allow."""
    if kind == "explicit":
        return minter(frame("search_notes", SEARCH, meta=meta, extra=extra), ())
    call = frame(meta=meta, extra=extra)
    if kind == "block":
        return minter(call, ())
    if kind == "allow":
        return minter(call, (mint.guard_target_of(call, CONFIG),))
    raise ValueError(kind)


_V3_ONLY = (
    "signed_artifacts",
    "release_status",
    "operation_id",
    "durability_class",
    "release_valid_until",
    "post_state_hash",
    "release_frame",
    "signature",
)


def _host_v2(data: bytes) -> bytes:
    record = mint.parse_record(data)
    record["record_version"] = JsonNumber("2")
    for name in _V3_ONLY:
        record.pop(name, None)
    return mint.render_pretty(record)


FLEET = mint.FleetContext(wasm_sha256=KERNEL)


def _fleet(kind: str) -> bytes:
    return _by_kind(
        kind,
        None,
        "",
        lambda call, approved: mint.mint_fleet_v2(call, CONFIG, approvals=approved, ctx=FLEET),
    )


def _fleet_v1(data: bytes, live: bool = False) -> bytes:
    record = mint.parse_record(data)
    out: Record = {}
    for name, value in record.items():
        if name in ("args_hash", "authorization", "approval"):
            continue
        if name == "seal_receipt":
            if live:
                out["seal_live_receipt"] = "v0"
            else:
                out["seal_receipt"] = "v1"
            continue
        if live and name == "asserted_provenance":
            continue
        out[name] = value
    if live:
        identity = out["kernel_identity"]
        assert isinstance(identity, dict)
        identity["lean_toolchain"] = "leanprover/lean4:v4.28.0"
        identity["axioms"] = ["propext", "Classical.choice", "Quot.sound"]
    return mint.render_pretty(out)


def spine_record(decision: str = "ALLOW", key: mint.TestKey = mint.RECEIPT_KEY) -> Record:
    """A sealed ``seal.spine/v1`` receipt (the shape seal's CLI writes)."""
    record: Record = {
        "receipt": "seal.spine/v1",
        "at": JsonNumber("1786873203318"),
        "decision": decision,
        "tool": "demo.mutate",
        "arguments": {"line": "sealverify adversary wrote this line"},
        "child": {"argv": ["/usr/bin/node", "seal", "__demo-server", "data.txt"]},
        "evidence": {
            "within_expiry": True,
            "one_use_consumed_now": True,
            "approval_nonce": "278417655e80ee2d23f5eb2b5a1edce3",
            "human_present": "unknown",
        },
        "seal": {"alg": "ed25519"},
    }
    seal = record["seal"]
    assert isinstance(seal, dict)
    seal.update(commitments(record))
    return reseal_spine(record, key)


def reseal_spine(record: Record, key: mint.TestKey = mint.RECEIPT_KEY) -> Record:
    """Sign a spine record again (its commitments as they stand), ``sig`` last."""
    seal = record.get("seal")
    if not isinstance(seal, dict):
        return record
    seal.pop("sig", None)
    seal["sig"] = key.sign(signing_message(record)).hex()
    return record


def _render(record: Record) -> bytes:
    return mint.render_pretty(record)


def build() -> list[Case]:
    """Every corpus receipt, deterministic."""
    cases: list[Case] = []
    for domain, tag in ((OBJECT_B_V2, "b2"), (OBJECT_B_V1, "b1")):
        for kind in ("block", "allow", "explicit", "unparseable"):
            cases.append(Case(f"v3-{tag}-{kind}", "v3", True, _host(kind, domain)))
    cases.append(Case("v3-b2-allow-ed25519", "v3", True, _host("allow", channel="ed25519")))
    cases.append(Case("v3-b2-block-mrtr", "v3", True, _host("block", extra=MRTR)))
    cases.append(Case("v3-b2-allow-mrtr", "v3", True, _host("allow", extra=MRTR)))
    for kind in ("block", "allow", "explicit"):
        cases.append(Case(f"v2-host-{kind}", "v2-host", False, _host_v2(_host(kind))))
        fleet = _fleet(kind)
        cases.append(Case(f"v2-{kind}", "v2", False, fleet))
        if kind != "explicit":
            cases.append(Case(f"v1-{kind}", "v1", False, _fleet_v1(fleet)))
            cases.append(Case(f"v0-live-{kind}", "v0-live", False, _fleet_v1(fleet, live=True)))
    cases.append(Case("v2-bypass", "v2", False, mint.mint_fleet_bypass(frame(meta=None))))
    cases.append(Case("spine-allow", "spine", True, _render(spine_record())))
    cases.append(Case("spine-block", "spine", True, _render(spine_record("BLOCK"))))
    return cases


def approval_tokens() -> tuple[tuple[str, bytes], ...]:
    """The signed ApprovalRecord v2 token of the ed25519 corpus ALLOW."""
    ctx = mint.HostContext(
        domain=OBJECT_B_V2,
        approval_channel="ed25519",
        operation_seed=f"allow-{OBJECT_B_V2}".encode(),
        wasm_sha256=KERNEL,
    )
    token = mint.approval_token(frame(meta=None), CONFIG, ctx=ctx)
    return (("tokens.ndjson:1", token),)


def resign(record: Record, family: str, path: str = "", domain: str | None = None) -> Record:
    """Make every signature of ``record`` valid again under the pinned test keys.

    ``path`` is the member that was changed (normalized pointer): a changed ``kernel_config``
    gets a fresh ``signed_config`` over its compact form, a changed ``payload`` a fresh
    signature over itself; the receipt signature (Object B, the spine seal) is made afresh
    unless the change was to that signature itself. ``domain`` is the Object B domain to sign
    in (default: the record's own). The input is never changed.
    """
    record = copy.deepcopy(record)
    config = record.get("signed_config")
    if isinstance(config, dict):
        if path.startswith("/kernel_config") and isinstance(record.get("kernel_config"), dict):
            fresh = mint.sign_config(record["kernel_config"], mint.CONFIG_KEY)
            config.update({k: fresh[k] for k in ("payload", "signature") if k in config})
        elif (
            path.startswith("/signed_config/payload") and {"payload", "signature"} <= config.keys()
        ):
            config["signature"] = config_signed_text(str(config["payload"]))
    if family == "spine":
        return record if path.startswith("/seal/sig") else reseal_spine(record)
    signature = record.get("signature")
    if not isinstance(signature, dict) or path.startswith("/signature"):
        return record  # nothing to re-sign, or the lie is the signature itself
    wanted = domain or signature.get("domain")
    if wanted not in (OBJECT_B_V1, OBJECT_B_V2):
        return record
    try:
        return mint.resign_v3(record, mint.RECEIPT_KEY, str(wanted))
    except (KeyError, AssertionError, ValueError, TypeError, AttributeError):
        return record  # the signer could not build the preimage either


def config_signed_text(payload: str) -> str:
    """Ed25519 by the pinned config key over a payload text (hex)."""
    return mint.CONFIG_KEY.sign(payload.encode("utf-8")).hex()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


Mutator = Callable[[Record], None]
