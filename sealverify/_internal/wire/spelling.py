"""Spellings every layer shares: lowercase hex digests, keys and signatures, RFC 6901 pointers.

seal writes every SHA-256 digest and raw Ed25519 key as 64 lowercase hex digits, and every
report locates a member by an RFC 6901 pointer. Each rule is written here once, so a receipt
member, a pin, a chain head and a file name are held to the same spelling, and every pointer
in every report escapes ``~`` and ``/`` the same way.
"""

from __future__ import annotations

import re

__all__ = [
    "HEX64",
    "HEX128",
    "hex64_any_case",
    "pointer",
    "pointer_token",
    "sha256_uri",
    "unescape_token",
]

# A SHA-256 digest or a raw Ed25519 key as seal writes it; use with ``fullmatch``.
HEX64 = re.compile(r"[0-9a-f]{64}")
# An Ed25519 signature as seal writes it (64 bytes, lowercase hex); use with ``fullmatch``.
HEX128 = re.compile(r"[0-9a-f]{128}")
_SHA256_PREFIX = "sha256:"


def hex64_any_case(text: str) -> bool:
    """True for 64 hex digits in either case (a pin or key copied from an uppercase listing).

    ASCII only: ``str.lower`` maps some non-ASCII letters to ASCII ones.
    """
    return text.isascii() and HEX64.fullmatch(text.lower()) is not None


def sha256_uri(text: str) -> bool:
    """True for ``sha256:`` and 64 lowercase hex digits, exactly (an Agent Skills digest)."""
    return (
        text.startswith(_SHA256_PREFIX) and HEX64.fullmatch(text, len(_SHA256_PREFIX)) is not None
    )


def pointer_token(token: str | int) -> str:
    """One reference token, escaped (RFC 6901 §3: ``~`` as ``~0``, then ``/`` as ``~1``)."""
    text = str(token)
    # Built for passing checks too, so it is hot: a token without "~" or "/" is used as is
    # (both replacements would leave it unchanged).
    if "~" in text or "/" in text:
        return text.replace("~", "~0").replace("/", "~1")
    return text


def pointer(*parts: str | int) -> str:
    """An RFC 6901 JSON pointer built from unescaped reference tokens (``""`` for none)."""
    # Built for every check, so decided in C first: joined by "/", tokens of which none holds
    # "~" or "/" show exactly len(parts) - 1 slashes and no "~"; they need no escape.
    joined = "/".join(map(str, parts))
    if "~" not in joined and joined.count("/") == len(parts) - 1:
        return "/" + joined if parts else ""
    return "".join(["/" + pointer_token(part) for part in parts])


def unescape_token(token: str) -> str:
    """One reference token of a pointer, unescaped (RFC 6901 §4: ``~1`` first, then ``~0``)."""
    return token.replace("~1", "/").replace("~0", "~")
