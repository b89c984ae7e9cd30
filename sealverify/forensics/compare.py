"""Byte and identity comparisons of two sides, and the ``_meta`` key rows of their changes."""

from __future__ import annotations

from typing import Any

from sealverify.forensics.changes import (
    Change,
)
from sealverify.forensics.sides import (
    Side,
)
from sealverify.mcp.keytable import KEY_TABLE, VOLATILE_RETRY_KEYS
from sealverify.wire.framing import FrameBytes

__all__ = [
    "IDENTITY_NAMES",
    "byte_diff",
    "identity_rows",
    "meta_key_rows",
]


CONTEXT = 16


# (report name, where it is read). The exact-frame and raw-line digests come from the bytes;
# the rest are identities.Identities attributes (seal's byte rules, docs/byte-rules.md).
IDENTITY_NAMES: tuple[tuple[str, str], ...] = (
    ("exact_frame_sha256", "frame"),
    ("raw_line_sha256", "frame"),
    ("canonical_request_sha256", "canonical_request_sha256"),
    ("legacy_canonical_request_sha256", "legacy_canonical_request_sha256"),
    ("args_hash", "args_hash"),
    ("guard_target_meta_all", "guard_target"),
    ("guard_target_seal_host", "guard_target_host"),
    ("guard_target_legacy", "legacy_guard_target"),
    ("effect_v3", "effect_v3"),
    ("effect_v4", "effect_v4"),
)


INVOCATION_NAMES = tuple(name for name, where in IDENTITY_NAMES if where != "frame")


def _escaped(data: bytes) -> str:
    """Printable ASCII as itself, everything else as ``\\xNN`` (backslash doubled)."""
    out = []
    for byte in data:
        if byte == 0x5C:
            out.append("\\\\")
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\x{byte:02x}")
    return "".join(out)


def byte_diff(a: FrameBytes, b: FrameBytes) -> dict[str, Any]:
    """Identical, or the first differing offset with an escaped and a hex context window."""
    out: dict[str, Any] = {
        "identical": a.data == b.data,
        "length_a": a.length,
        "length_b": b.length,
        "terminator_a": a.terminator,
        "terminator_b": b.terminator,
        "terminator_equal": a.terminator == b.terminator,
        "raw_line_equal": a.line == b.line,
    }
    if a.data == b.data:
        return out
    limit = min(a.length, b.length)
    offset = next((i for i in range(limit) if a.data[i] != b.data[i]), limit)
    start = max(0, offset - CONTEXT)
    out["first_difference_offset"] = offset
    out["window_start"] = start
    for side, data in (("a", a.data), ("b", b.data)):
        window = data[start : offset + CONTEXT]
        out[f"window_{side}_escaped"] = _escaped(window)
        out[f"window_{side}_hex"] = window.hex(" ")
    return out


def identity_rows(a: Side, b: Side) -> list[dict[str, Any]]:
    """Each identity of both sides, equal or different; None where a side has none."""
    rows = []
    for name, where in IDENTITY_NAMES:
        values: list[str | None] = []
        for side in (a, b):
            if where == "frame":
                frame = side.frame
                value = (
                    None
                    if frame is None
                    else (
                        frame.exact_sha256
                        if name == "exact_frame_sha256"
                        else frame.raw_line_sha256
                    )
                )
            else:
                value = None if side.ids is None else getattr(side.ids, where)
            values.append(value)
        equal = None if None in values else values[0] == values[1]
        rows.append({"name": name, "a": values[0], "b": values[1], "equal": equal})
    return rows


def strip_insignificant(data: bytes) -> bytes:
    """The bytes with JSON whitespace outside strings removed."""
    out = bytearray()
    in_string = escaped = False
    for byte in data:
        if in_string:
            out.append(byte)
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte in b" \t\r\n":
            continue
        else:
            out.append(byte)
            in_string = byte == 0x22
    return bytes(out)


def meta_key_of(pointer: str) -> str | None:
    prefix = "/params/_meta/"
    if not pointer.startswith(prefix):
        return None
    token = pointer[len(prefix) :].split("/", 1)[0]
    return token.replace("~1", "/").replace("~0", "~")


def meta_key_rows(changes: list[Change]) -> list[dict[str, Any]]:
    """For each differing ``_meta`` key: its seed 000 §2.2 row and each partition's reading.

    Option A (ruled 2026-07-28) commits the complete ``_meta``: every difference changes
    authority identity. Option C commits or excludes by exact name (seed 000 §3.2, §3.3); an
    unknown key is refused (C-refuse-unknown) or committed (C-commit-unknown), never excluded.
    """
    rows: dict[str, dict[str, Any]] = {}
    for change in changes:
        key = meta_key_of(change.pointer)
        if key is None or change.change == "member-order" or key in rows:
            continue
        known = KEY_TABLE.get(key)
        row: dict[str, Any] = {
            "key": key,
            "change": change.change,
            "option_a": "changes authority identity",
        }
        if known is not None:
            row.update(
                in_key_table=True,
                carried_by=known.carried_by,
                may_change_between_identical_actions=known.may_change,
                server_can_act=known.server_can_act,
                option_c=(
                    "committed: changes authority identity"
                    if known.option_c == "committed"
                    else "excluded from authority identity (still bound by the exact-frame subject)"
                ),
            )
        else:
            row.update(
                in_key_table=False,
                carried_by="not in the key table of seed 000 §2.2 (extension or unknown key)",
                may_change_between_identical_actions="not established",
                server_can_act="assume yes: a server may read any _meta key",
                option_c="unknown key: refused under C-refuse-unknown, committed under "
                "C-commit-unknown; never excluded",
            )
        row["volatile_in_retry"] = key in VOLATILE_RETRY_KEYS
        rows[key] = row
    return [rows[k] for k in sorted(rows)]
