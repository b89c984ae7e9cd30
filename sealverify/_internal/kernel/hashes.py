"""The kernel's two hashes: the 64-bit FNV-style ``certHash`` and the SHA-256 target commitment.

``certHash`` is not SHA: mcp-seal-dev ``Seal/Hash.lean`` ``auditHashString`` folds the Unicode
scalars of ``encodeParts [kernel, verdict, reason]`` with ``acc * 1099511628211 + c`` modulo
2^64 from the FNV-1 offset basis (multiply, then *add*: not FNV-1a's xor). ``stableHashParts``
is SHA-256 over the UTF-8 bytes of the same part encoding (``sealverify.netstring``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sealverify._internal import fastpath
from sealverify._internal.wire.netstring import encode_parts, hash_parts

__all__ = ["audit_hash_parts", "audit_hash_string", "encode_parts", "stable_hash_parts"]

_OFFSET = 14695981039346656037
_PRIME = 1099511628211
_MASK = (1 << 64) - 1


def _fold(acc: int, text: str) -> int:
    """``acc`` folded on over the Unicode scalars of ``text`` (an ASCII text read as its bytes)."""
    prime, mask = _PRIME, _MASK
    codes: Iterable[int] = text.encode("ascii") if text.isascii() else map(ord, text)
    for code in codes:
        acc = (acc * prime + code) & mask
    return acc


def audit_hash_string(text: str) -> int:
    """``auditHashString``: the 64-bit fold over Unicode scalars (``UInt64`` value)."""
    return _fold(_OFFSET, text)


@fastpath.cache(maxsize=256)
def _head_state(head: tuple[str, ...], length: int) -> int:
    # The fold is sequential, so the state after the parts before the last one and the last
    # one's length prefix is a value of those alone: the kernel and verdict of a cert, and
    # the reason's length, repeat across certs whose reasons (guard targets) do not.
    return audit_hash_string(encode_parts(head) + f"{length}:")


@fastpath.cache(maxsize=1024)
def _audit_hash_tuple(parts: tuple[str, ...]) -> int:
    if not parts:
        return _OFFSET
    last = parts[-1]
    return _fold(_head_state(parts[:-1], len(last)), last)


def audit_hash_parts(parts: Sequence[str]) -> int:
    """``auditHashParts``: :func:`audit_hash_string` of the scalar-counted part encoding."""
    return _audit_hash_tuple(tuple(parts))


def stable_hash_parts(parts: Sequence[str]) -> str:
    """``stableHashParts``: SHA-256 (lowercase hex) of the UTF-8 part encoding."""
    return hash_parts(parts)
