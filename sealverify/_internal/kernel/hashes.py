"""The kernel's two hashes: the 64-bit FNV-style ``certHash`` and the SHA-256 target commitment.

``certHash`` is not SHA: mcp-seal-dev ``Seal/Hash.lean`` ``auditHashString`` folds the Unicode
scalars of ``encodeParts [kernel, verdict, reason]`` with ``acc * 1099511628211 + c`` modulo
2^64 from the FNV-1 offset basis (multiply, then *add*: not FNV-1a's xor). ``stableHashParts``
is SHA-256 over the UTF-8 bytes of the same part encoding (``sealverify.netstring``).
"""

from __future__ import annotations

from collections.abc import Sequence

from sealverify._internal import fastpath
from sealverify._internal.wire.netstring import encode_parts, hash_parts

__all__ = ["audit_hash_parts", "audit_hash_string", "encode_parts", "stable_hash_parts"]

_OFFSET = 14695981039346656037
_PRIME = 1099511628211
_MASK = (1 << 64) - 1


def audit_hash_string(text: str) -> int:
    """``auditHashString``: the 64-bit fold over Unicode scalars (``UInt64`` value)."""
    acc = _OFFSET
    for char in text:
        acc = (acc * _PRIME + ord(char)) & _MASK
    return acc


@fastpath.cache(maxsize=1024)
def _audit_hash_tuple(parts: tuple[str, ...]) -> int:
    return audit_hash_string(encode_parts(parts))


def audit_hash_parts(parts: Sequence[str]) -> int:
    """``auditHashParts``: :func:`audit_hash_string` of the scalar-counted part encoding."""
    return _audit_hash_tuple(tuple(parts))


def stable_hash_parts(parts: Sequence[str]) -> str:
    """``stableHashParts``: SHA-256 (lowercase hex) of the UTF-8 part encoding."""
    return hash_parts(parts)
