"""The ApprovalRecord v2 format: member sets and rules, the renderer byte rule, the signed bytes."""

from __future__ import annotations

import re
from collections.abc import Callable

from sealverify._internal.wire.spelling import HEX64
from sealverify._internal.wire.strictjson import (
    JsonNumber,
    JsonValue,
)
from sealverify.errors import InputError

__all__ = [
    "DOMAIN",
    "MAX_INTEGER",
    "PAYLOAD_MEMBERS",
    "SUBJECT_SCOPE",
    "TOKEN_MEMBERS",
    "NotRenderable",
    "render",
    "signature_preimage",
]


DOMAIN = "seal.approval-record/v2"


SUBJECT_SCOPE = "mcp-jsonrpc-request-frame-including-delimiter"


MAX_INTEGER = 2**53 - 1


TOKEN_MEMBERS = frozenset(
    {"payload", "signature_algorithm", "signature_encoding", "signer_key_id", "signature"}
)


RENDERER_MEMBERS = frozenset({"name", "version", "manifest_sha256"})


HEX_DIGITS = re.compile(r"[0-9a-fA-F]*")


class NotRenderable(InputError, ValueError):
    """A value the approval renderer cannot write (a float, a negative or too large number)."""


def _render_string(text: str, out: list[str]) -> None:
    out.append('"')
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')


def _render(value: JsonValue, out: list[str], path: str) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, JsonNumber):
        out.append(str(_unsigned(value, path)))
    elif isinstance(value, str):
        _render_string(value, out)
    elif isinstance(value, list):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _render(item, out, f"{path}/{index}")
        out.append("]")
    else:
        out.append("{")
        for index, key in enumerate(sorted(value, key=lambda k: k.encode("utf-8"))):
            if index:
                out.append(",")
            _render_string(key, out)
            out.append(":")
            _render(value[key], out, f"{path}/{key}")
        out.append("}")


def _unsigned(number: JsonNumber, path: str) -> int:
    lexeme = number.lexeme
    if not number.is_integer_lexeme or lexeme.startswith("-"):
        raise NotRenderable(f"{path or '/'}: {lexeme[:40]} is not an unsigned integer")
    value = number.as_uint()
    if value is None or value > MAX_INTEGER:
        raise NotRenderable(f"{path or '/'}: {lexeme} is above 2^53-1")
    return value


def render(value: JsonValue) -> bytes:
    """The ApprovalRecord renderer (the one function for this byte rule).

    Object keys sorted by their UTF-8 bytes; no whitespace; strings with ``"`` and ``\\``
    escaped, every C0 character (U+0000..U+001F) as ``\\u00xx`` in lowercase hex and everything
    else (DEL, non-ASCII) written raw; numbers only unsigned integers <= 2^53-1 written in
    decimal. Raises :class:`NotRenderable` for any other number. Not RFC 8785 (seal-host
    ``rust/src/providers.rs`` ``write_canonical_json``).
    """
    out: list[str] = []
    _render(value, out, "")
    return "".join(out).encode("utf-8")


def signature_preimage(payload: bytes) -> bytes:
    """``"seal.approval-record/v2" || 0x00 || payload``: the bytes the approver signs."""
    return DOMAIN.encode("ascii") + b"\x00" + payload


def _uint(value: JsonValue) -> str:
    if not isinstance(value, JsonNumber):
        return "must be an unsigned integer"
    try:
        _unsigned(value, "")
    except NotRenderable:
        return f"{value.lexeme} is not an unsigned integer <= 2^53-1"
    return ""


def hex64_rule(value: JsonValue) -> str:
    if isinstance(value, str) and HEX64.fullmatch(value):
        return ""
    return "must be 64 lowercase hex digits"


def _nonempty(value: JsonValue) -> str:
    return "" if isinstance(value, str) and value else "must be a non-empty string"


def _const(expected: str) -> Callable[[JsonValue], str]:
    def rule(value: JsonValue) -> str:
        return "" if value == expected else f"must be {expected!r}"

    return rule


def _version(value: JsonValue) -> str:
    problem = _uint(value)
    if problem:
        return problem
    return "" if isinstance(value, JsonNumber) and value.as_int() == 2 else "must be 2"


PAYLOAD_RULES: dict[str, Callable[[JsonValue], str]] = {
    "approval_record_version": _version,
    "target": hex64_rule,
    "authorized_at": _uint,
    "expiry": _uint,
    "nonce": _nonempty,
    "session": _nonempty,
    "subject_sha256": hex64_rule,
    "subject_length": _uint,
    "subject_scope": _const(SUBJECT_SCOPE),
    "subject_encoding": _const("bytes"),
    "shown_sha256": hex64_rule,
    "shown_length": _uint,
    "shown_media_type": _const("text/plain"),
    "shown_character_encoding": _const("utf-8"),
    "renderer": lambda value: "" if isinstance(value, dict) else "must be an object",
    "approver": _nonempty,
    "authorization_signer_key_id": _nonempty,
    "authorization_signature_algorithm": _const("Ed25519"),
    "authorization_domain": _const(DOMAIN),
}


RENDERER_RULES: dict[str, Callable[[JsonValue], str]] = {
    "name": _nonempty,
    "version": _nonempty,
    "manifest_sha256": hex64_rule,
}


PAYLOAD_MEMBERS = frozenset(PAYLOAD_RULES)
