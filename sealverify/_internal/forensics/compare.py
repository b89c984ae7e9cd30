"""Byte and identity comparisons of two sides, and the ``_meta`` key rows of their changes."""

from __future__ import annotations

from typing import Any

from sealverify._internal.forensics.changes import (
    Change,
)
from sealverify._internal.forensics.sides import (
    Side,
)
from sealverify._internal.mcp.keytable import KEY_TABLE, VOLATILE_RETRY_KEYS
from sealverify._internal.wire.framing import FrameBytes
from sealverify._internal.wire.spelling import unescape_token
from sealverify.errors import OptionError

__all__ = [
    "IDENTITY_NAMES",
    "UNKNOWN_KEY_POLICIES",
    "byte_diff",
    "identity_rows",
    "meta_key_rows",
    "option_c_view",
    "unknown_meta_keys",
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
    return unescape_token(token)


UNKNOWN_KEY_POLICIES: dict[str, str] = {"refuse": "C-refuse-unknown", "commit": "C-commit-unknown"}

# How option C reads a key outside the key table, under each declared policy
# (META-PARTITION-SPEC §3.5 and §4 "Unknown key present": exactly one policy, never excluded).
_UNKNOWN_READING = {
    "refuse": "unknown key: the request is refused before authority (C-refuse-unknown)",
    "commit": "unknown key: committed, changes authority identity (C-commit-unknown)",
}


def _policy(unknown_keys: str) -> str:
    if unknown_keys not in UNKNOWN_KEY_POLICIES:
        raise OptionError(f"unknown-key policy must be refuse or commit, not {unknown_keys!r}")
    return unknown_keys


def meta_key_rows(changes: list[Change], unknown_keys: str = "refuse") -> list[dict[str, Any]]:
    """For each differing ``_meta`` key: its key-table row and each partition's reading.

    Option A (ruled 2026-07-28) commits the complete ``_meta``: every difference changes
    authority identity. Option C commits or excludes by exact name (META-PARTITION-SPEC §3.2,
    §3.3); a key outside the table is read under the one declared ``unknown_keys`` policy:
    ``refuse`` (C-refuse-unknown) or ``commit`` (C-commit-unknown), never excluded (§3.5).
    """
    policy = _policy(unknown_keys)
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
                carried_by="not in the key table of META-PARTITION-SPEC §2.2 "
                "(extension or unknown key)",
                may_change_between_identical_actions="not established",
                server_can_act="assume yes: a server may read any _meta key",
                option_c=_UNKNOWN_READING[policy],
            )
        row["volatile_in_retry"] = key in VOLATILE_RETRY_KEYS
        rows[key] = row
    return [rows[k] for k in sorted(rows)]


def unknown_meta_keys(params: dict[str, Any] | None) -> list[str] | None:
    """The ``_meta`` keys of a call outside the key table, sorted; None without a ``_meta``."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        return None
    return sorted(k for k in meta if k not in KEY_TABLE)


def option_c_view(
    params_a: dict[str, Any] | None, params_b: dict[str, Any] | None, unknown_keys: str
) -> dict[str, Any]:
    """How option C, under the declared unknown-key policy, reads each side as a whole.

    Under C-refuse-unknown a call carrying any key outside the key table is refused before
    authority, even when both sides carry the same key; under C-commit-unknown it is admitted
    and the unknown keys are committed (META-PARTITION-SPEC §3.5).
    """
    policy = _policy(unknown_keys)
    view: dict[str, Any] = {"unknown_keys": policy, "policy": UNKNOWN_KEY_POLICIES[policy]}
    for label, params in (("a", params_a), ("b", params_b)):
        unknown = unknown_meta_keys(params)
        if params is None:
            reading = "not a tools/call"
        elif not unknown:
            reading = "admitted: no unknown _meta key"
        elif policy == "refuse":
            reading = "refused before authority"
        else:
            reading = "admitted: unknown keys committed to authority identity"
        view[label] = {"unknown": unknown or [], "reading": reading}
    return view
