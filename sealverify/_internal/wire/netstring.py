"""Seal's netstring part encoding (mcp-seal-dev ``Seal/Hash.lean`` ``encodeParts``).

Each part is ``<length>:<part>`` with no separator, the length counted in Unicode scalar
values (Lean ``String.length``), not bytes or UTF-16 units; the hash is SHA-256 of the UTF-8
encoding, lowercase hex. Byte-counting ports collide, which is why the count matters.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

__all__ = ["encode_parts", "hash_parts"]


def encode_parts(parts: Sequence[str]) -> str:
    """Concatenate ``len(part):part`` for each part, lengths in Unicode scalars."""
    return "".join([f"{len(part)}:{part}" for part in parts])


def hash_parts(parts: Sequence[str]) -> str:
    """``stableHashParts``: SHA-256 (lowercase hex) of the UTF-8 bytes of the encoding."""
    return hashlib.sha256(encode_parts(parts).encode("utf-8")).hexdigest()
