"""Shared with other test modules by tests/history/test_history.py."""

from __future__ import annotations

import hashlib
import json

GEN = hashlib.sha256(b"seal-verifiable-record/genesis/v1").hexdigest()


def host_log(n: int, session: str = "s1") -> tuple[bytes, list[str]]:
    lines, heads, head = [], [], GEN
    for i in range(n):
        payload = f"decision {i}".encode()
        new = hashlib.sha256(head.encode() + b"\x1f" + payload).hexdigest()
        rec = {
            "seal_record": "v1",
            "entry": i,
            "commitment": "sha256(prevHead || 0x1f || payload)",
            "session": session,
            "prev_head": head,
            "prior_session": None,
            "head": new,
        }
        lines += [payload, json.dumps(rec).encode()]
        heads.append(new)
        head = new
    return b"".join(line + b"\n" for line in lines), heads
