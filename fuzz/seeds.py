"""Seed corpora, built at run time from fixtures/ and ../shared (nothing of ../shared is kept)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from sealverify_testkit.mint import DEMO_KERNEL_CONFIG, approval_token

__all__ = [
    "FIXTURES",
    "ROOT",
    "SHARED",
    "chain_logs",
    "files",
    "frames",
    "receipts",
    "skill_files",
]

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHARED = ROOT.parent / "shared"
_MAX_SEED = 64 * 1024


def files(base: Path, pattern: str, limit: int = 200) -> list[bytes]:
    """Up to ``limit`` files under ``base`` matching ``pattern``, sorted, under 64 kB each."""
    if not base.is_dir():
        return []
    found = [p for p in sorted(base.rglob(pattern)) if p.is_file() and p.stat().st_size < _MAX_SEED]
    return [p.read_bytes() for p in found[:limit]]


def frames() -> list[bytes]:
    """Request frames: the project's fixtures and the reference SDK's captured streams."""
    sdk = SHARED / "frames" / "mcp-python-sdk-2.3.0"
    return files(FIXTURES / "frames", "*.bin") + files(sdk, "*.c2s.bin", 60)


def receipts() -> list[bytes]:
    """Receipts: the project's minted demo receipts and seal's published fixtures."""
    return (
        files(FIXTURES / "demo" / "receipts", "*.json*")
        + files(SHARED / "fixtures" / "seal", "*.receipt.json", 40)
        + files(SHARED / "fixtures" / "seal" / "seal-live-demo", "*.jsonl", 5)
    )


_GENESIS = hashlib.sha256(b"seal-verifiable-record/genesis/v1").hexdigest()


def chain_logs() -> list[bytes]:
    """Audit logs written by the documented chain formula over the demo receipts' audit lines."""
    payloads: list[bytes] = []
    for data in files(FIXTURES / "demo" / "receipts", "*.receipt.json"):
        emitted = json.loads(data).get("emitted_bytes")
        if isinstance(emitted, str) and emitted.startswith("{"):
            audit = json.loads(emitted).get("audit")
            if isinstance(audit, str):
                payloads.append(audit.encode("utf-8"))
    lines: list[bytes] = []
    head = _GENESIS
    for entry, payload in enumerate(payloads[:4], start=1):
        prev, head = head, hashlib.sha256(head.encode() + b"\x1f" + payload).hexdigest()
        record = {
            "seal_record": "v1",
            "entry": entry,
            "commitment": "sha256(prevHead || 0x1f || payload)",
            "session": "s1",
            "prev_head": prev,
            "prior_session": None,
            "head": head,
        }
        lines += [payload, json.dumps(record, separators=(",", ":")).encode(), b"other line"]
    log = b"\n".join(lines) + b"\n"
    return [log, b"\n".join(lines[:3]) + b"\n"]


def approval_tokens() -> list[bytes]:
    """ApprovalRecord v2 tokens minted by the testkit for the fixture frames."""
    return [
        approval_token(frame, DEMO_KERNEL_CONFIG) + b"\n"
        for frame in files(FIXTURES / "frames", "call*.bin")
    ]


def skill_files() -> list[bytes]:
    """Small SKILL.md files written for the harness, covering YAML's typing corners."""
    return [
        b"---\nname: demo\ndescription: A demo skill.\n---\n# Demo\n",
        b"---\nname: demo\ndescription: 'quoted: yes'\nversion: 1.0\nflag: true\n"
        b"tags: [a, b]\nmeta: {x: 1, y: ~}\n---\nbody\n",
        b"---\nname: demo\ndescription: d\nbase: &b {k: v}\nuse: *b\n<<: *b\n"
        b"n: !!int 7\nf: !!float 1e3\n---\n",
    ]
