"""Regenerate the bundled ``fixtures/`` tree deterministically (``nox -s fixtures``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from sealverify._internal.primitives.objectb import OBJECT_B_V2
from sealverify._internal.wire.strictjson import JsonValue
from sealverify_testkit import attestsample, mint, samples

__all__ = ["GENERATORS", "demo_receipts", "main", "mint_demo", "mint_frames"]


def _frame(meta: str, name: str, arguments: str, request_id: int = 1) -> bytes:
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{"_meta":{meta},'
        f'"name":"{name}","arguments":{arguments}}}}}\n'
    ).encode()


_ENVELOPE = (
    '"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientInfo":{"name":"sealverify-demo","version":"1.0"},'
    '"io.modelcontextprotocol/clientCapabilities":{}'
)


def mint_frames(root: Path) -> None:
    """Write example request frames: an admissible call, a trace-only variant, a refusal."""
    out = root / "frames"
    out.mkdir(parents=True, exist_ok=True)
    trace = '"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"'
    (out / "call.bin").write_bytes(
        _frame("{" + trace + "," + _ENVELOPE + "}", "search_notes", '{"query":"invoice 2291"}')
    )
    other = trace.replace("00f067aa0ba902b7", "9d7c5e3a1f0b2468")
    (out / "call-other-trace.bin").write_bytes(
        _frame("{" + other + "," + _ENVELOPE + "}", "search_notes", '{"query":"invoice 2291"}')
    )
    (out / "refused-meta-null.bin").write_bytes(
        _frame("null", "search_notes", '{"query":"invoice 2291"}')
    )


_DEMO_META = (
    '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",'
    '"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientInfo":{"name":"sealverify-demo","version":"1.0"},'
    '"io.modelcontextprotocol/clientCapabilities":{}}'
)


# The current kernel pin (seal-host 099be66 VERIFIED_WASM_SHA256), which sealverify's kernel
# model has a profile for; tests/cli/test_demo_fixtures.py holds it equal to that profile.
CURRENT_KERNEL_SHA256 = "28bb3ae71985357163e3b651791e2a70c462ea5d1313a59b4967d4c20ea77657"


def _flip_hex_digit(text: str) -> str:
    return ("1" if text[0] == "0" else "0") + text[1:]


def demo_receipts() -> dict[str, bytes]:
    """Every demo receipt by file name (under ``fixtures/demo/receipts/``); see its README.

    Pure and deterministic: fixed frames, the demo policy, fixed contexts, the demo keys.
    """
    config = mint.DEMO_KERNEL_CONFIG
    # The guarded calls carry no _meta: the ruled guard target over _meta is one no kernel
    # build computes yet, and these receipts name the real build, whose decisions re-derive.
    block_frame = mint.tools_call_frame(
        "shell_exec", '{"command":"rm -rf /srv/app/cache","cwd":"/srv/app"}', request_id=11
    )
    allow_frame = mint.tools_call_frame(
        "shell_exec", '{"command":"systemctl restart app","cwd":"/srv/app"}', request_id=12
    )
    search_frame = mint.tools_call_frame("search_notes", '{"query":"invoice 2291"}', request_id=13)
    # The same guarded call with _meta, under the ruled target, naming a made-up build the
    # kernel model has no profile for (trust.json pins it): its decision cannot be re-derived.
    ruled_frame = mint.tools_call_frame(
        "shell_exec",
        '{"command":"rm -rf /srv/app/cache","cwd":"/srv/app"}',
        request_id=14,
        meta=_DEMO_META,
    )
    unparseable_frame = mint.tools_call_frame(
        "db.execute", '{"database":"prod","sql":"drop table accounts","x":1e309}', request_id=90
    )
    base = mint.HostContext(
        now=1_786_000_000_000, operation_seed=b"demo-block", session=_session("demo-block")
    )
    out: dict[str, bytes] = {}
    out["verified-block.receipt.json"] = mint.mint_host_v3(block_frame, config, ctx=base)
    approved = [mint.guard_target_of(allow_frame, config)]
    allow_ctx = mint.HostContext(
        now=1_786_000_060_000, operation_seed=b"demo-allow", session=_session("demo-allow")
    )
    out["verified-allow.receipt.json"] = mint.mint_host_v3(
        allow_frame, config, approvals=approved, ctx=allow_ctx
    )
    # Every receipt names the current kernel build under a config that build loads, so its
    # decision re-derives (VERIFIED needs it, whatever signs the receipt).
    out["verified-fleet-v2.receipt.json"] = mint.mint_fleet_v2(
        search_frame, config, ctx=mint.FleetContext()
    )
    unknown_ctx = mint.HostContext(
        now=1_786_000_240_000,
        operation_seed=b"demo-unknown-build",
        session=_session("demo-unknown-build"),
        wasm_sha256=mint.DEMO_WASM_SHA256,
    )
    out["reduced-unknown-build.receipt.json"] = mint.mint_host_v3(
        ruled_frame, config, ctx=unknown_ctx
    )
    other = mint.HostContext(
        now=1_786_000_120_000,
        operation_seed=b"demo-unpinned",
        session=_session("demo-unpinned"),
        config_key=mint.OTHER_CONFIG_KEY,
        receipt_key=mint.OTHER_RECEIPT_KEY,
    )
    out["other-signer.receipt.json"] = mint.mint_host_v3(block_frame, config, ctx=other)
    # The minting emulation does not reproduce what a kernel with the number guard does with
    # a line serde refuses, so this receipt names the made-up build (not re-derived).
    reduced_ctx = mint.HostContext(
        now=1_786_000_180_000,
        operation_seed=b"demo-unparseable",
        session=_session("demo-unparseable"),
        wasm_sha256=mint.DEMO_WASM_SHA256,
    )
    out["reduced-unparseable.receipt.json"] = mint.mint_unparseable_v3(
        unparseable_frame, config, ctx=reduced_ctx
    )
    # A forged binding behind a valid signature: request_sha256 no longer matches the signed
    # frame nor the kernel's audit hash, and the record was re-signed afterwards.
    forged = mint.parse_record(out["verified-block.receipt.json"])
    forged["request_sha256"] = _flip_hex_digit(str(forged["request_sha256"]))
    out["fail-forged-binding.receipt.json"] = mint.render_pretty(
        mint.resign_v3(forged, mint.RECEIPT_KEY, OBJECT_B_V2)
    )
    # An edited record that was not re-signed: the arguments no longer match args_hash,
    # canonical_request, the frame, or the signature.
    edited = mint.parse_record(out["verified-allow.receipt.json"])
    edited["arguments"] = {"command": "systemctl stop app", "cwd": "/srv/app"}
    out["fail-edited-arguments.receipt.json"] = mint.render_pretty(edited)
    out["fail-bypass.receipt.json"] = mint.mint_fleet_bypass(search_frame)
    lines = [
        mint.render_compact(mint.parse_record(out[name]))
        for name in (
            "verified-block.receipt.json",
            "verified-allow.receipt.json",
            "verified-fleet-v2.receipt.json",
        )
    ]
    broken = mint.render_compact(mint.parse_record(out["verified-block.receipt.json"]))[:200]
    lines.insert(2, broken)
    lines.append(mint.render_compact(mint.parse_record(out["reduced-unparseable.receipt.json"])))
    out["receipts.jsonl"] = b"".join(line + b"\n" for line in lines)
    return out


def _session(name: str) -> str:
    """A session of its own for one demo call, each its session's first call.

    Every demo receipt claims "trace ok (1 events)"; two receipts of one session claiming one
    position would contradict each other.
    """
    return f"seal-host-rs/stdio:{name}"


def _trust_file() -> bytes:
    document: dict[str, JsonValue] = {
        "sealverify_trust": 1,  # type: ignore[dict-item]
        "keys": [
            {
                "public_key": mint.CONFIG_KEY.public_hex,
                "roles": ["config"],
                "label": "sealverify demo config key (public seed; test only)",
            },
            {
                "public_key": mint.RECEIPT_KEY.public_hex,
                "roles": ["receipt"],
                "label": "sealverify demo receipt key (public seed; test only)",
            },
        ],
        "kernels": [mint.DEMO_WASM_SHA256],
    }
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()


_DEMO_README = """\
# Demo receipts

Minted by `python -m sealverify_testkit.mintfixtures fixtures` (testkit/sealverify_testkit/mint.py,
docs/minting.md) with the project's own test keys, whose secret keys are derived from public
seeds: anyone can mint under them, so **never pin them outside this demo**. Regenerating must
leave `git diff` clean (`nox -s fixtures`).

Every decision receipt but two names the real audited seal kernel build, `28bb3ae7…`
(seal-host 099be66 `VERIFIED_WASM_SHA256`, pinned by default), under a policy that build
loads: its decision is re-derived by sealverify's model of that build and matches the emitted
bytes byte for byte (`replay.decision` pass). A decision that is not re-derived is never
VERIFIED, whatever signs the receipt: seal-check's rule (velvetmonkey/seal-check README at
0632f31), `verify-file.cjs` "exits 0 only when signature, replay, bindings, and the
relying-party pin all agree". The two others name a made-up build, `sha256(b"sealverify-demo-wasm")`
= `{kernel}`, which `trust.json` pins in its `kernels` list (the same as `--kernel-sha256`)
and for which sealverify's kernel model has no profile (docs/replay.md): their decisions are
not re-derived, so they are REDUCED.

Main command:

```sh
sealverify verify fixtures/demo/receipts --trust fixtures/demo/trust.json
```

`trust.json` pins the demo config key (role `config`), the demo receipt key (role `receipt`)
and the made-up kernel build. The pins match, and still no receipt is VERIFIED: both keys are on
sealverify's list of published keys (docs/trust.md), keys whose secret anyone can read, so a
signature under one authenticates nothing even when it is pinned. This is the honest result
(exit 1):

- every receipt that verifies under the pinned keys is **UNPINNED**, with the check
  `authority.published-key` (not-evaluated) naming each key and its source, "sealverify
  testkit CONFIG_KEY" and "sealverify testkit RECEIPT_KEY": the five `verified-*` and
  `reduced-*` files and lines 1, 2, 4 and 5 of `receipts.jsonl`;
- the four FAIL receipts below stay FAIL, and line 3 of `receipts.jsonl` is a finding.

Published keys allowed: a test suite that uses such keys knowingly adds
`--allow-published-keys`. Each one is still reported (`authority.published-key`, info, with
its source) and the summary says the option was on:

```sh
sealverify verify fixtures/demo/receipts --trust fixtures/demo/trust.json --allow-published-keys
```

What each file then shows (the files are named for it):

- `verified-block.receipt.json`: **VERIFIED**. Host v3 BLOCK, Object B v2; config and
  receipt keys pinned; every binding recomputes; the decision is re-derived.
- `verified-allow.receipt.json`: **VERIFIED**. Host v3 ALLOW by approval, with a release
  frame, `post_state_hash` and the `operation_id` splice.
- `verified-fleet-v2.receipt.json`: **VERIFIED**. Fleet `seal_receipt: "v2"` explicit
  allow; config key pinned (this family has no Object B).
- `reduced-unparseable.receipt.json`: **REDUCED**. v3 BLOCK of a request serde cannot parse
  (`1e309`): keys pinned and signatures valid, but there is no request identity to recompute
  (and it names the made-up build, so its decision is not re-derived either).
- `reduced-unknown-build.receipt.json`: **REDUCED**. v3 BLOCK, Object B v2, keys pinned,
  signatures valid and every binding recomputes, but it names the made-up build: its decision
  cannot be re-derived (`replay.decision` not evaluated, "kernel build 08146af94d76… has no
  profile in this model"), so the signature says only who stated the decision.
- `other-signer.receipt.json`: **FAIL** here (a pin mismatch). Both signatures verify under
  the keys embedded in the receipt, but neither key is the one `trust.json` pins for its
  role.
- `fail-forged-binding.receipt.json`: **FAIL**. `request_sha256` altered and the record
  re-signed: the signature is valid, the binding to the signed frame and to the kernel's
  audit hash is not.
- `fail-edited-arguments.receipt.json`: **FAIL**. `arguments` edited after signing: the
  signature is invalid, and `args_hash` and `canonical_request` no longer match.
- `fail-bypass.receipt.json`: **FAIL (NOT MEDIATED)**. `bypass: true`: seal was not in the
  path.
- `receipts.jsonl`: per line. Lines 1, 2 and 4 VERIFIED; line 3 is a truncated record
  (malformed JSON: a finding for that line only, the run goes on); line 5 REDUCED.

UNPINNED: with no pins at all, a receipt whose signatures verify under its embedded keys is
UNPINNED, never VERIFIED (anyone can embed a key):

```sh
sealverify verify fixtures/demo/receipts/other-signer.receipt.json
```

Without `--trust`, every receipt above that would be VERIFIED is UNPINNED instead, with or
without `--allow-published-keys`.
"""


def mint_demo(root: Path) -> None:
    """Write ``demo/``: receipts for every outcome, a trust file and a README."""
    out = root / "demo"
    receipts = out / "receipts"
    receipts.mkdir(parents=True, exist_ok=True)
    for name, data in demo_receipts().items():
        (receipts / name).write_bytes(data)
    (out / "trust.json").write_bytes(_trust_file())
    readme = _DEMO_README.format(kernel=mint.DEMO_WASM_SHA256)
    (out / "README.md").write_bytes(readme.encode("utf-8"))


GENERATORS: list[Callable[[Path], None]] = [
    mint_frames,
    mint_demo,
    attestsample.mint_attest,  # after demo/: it signs a summary of two demo receipts
    samples.mint_chain,
    samples.mint_approval,
    samples.mint_partition,
    samples.mint_tools,
    samples.mint_skills,
    samples.mint_decide,
    samples.mint_lint,
    samples.mint_readme,
]


def main(argv: list[str] | None = None) -> int:
    """Mint every fixture under the given root (default ``fixtures``)."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else "fixtures")
    for generate in GENERATORS:
        generate(root)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
