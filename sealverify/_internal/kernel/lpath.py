"""The String and JSON-path helpers the policy language evaluates with, as Lean defines them.

Sources: mcp-seal-dev ``Seal/JsonUtil.lean`` (``atPath``, ``jsonScalarToString``,
``splitPath``) and ``Seal/Policy.lean`` (``asciiLower``, ``containsAnyCi``) at the commit
seal-host ``lakefile.toml`` pins; Lean core ``String.trimAscii`` (``Char.isWhitespace``).
"""

from __future__ import annotations

from sealverify._internal.kernel.ljson import ABSENT, Absent, LValue
from sealverify._internal.wire.leanjson import LeanNumber, number_text

__all__ = [
    "ascii_lower",
    "at_path",
    "contains_any_ci",
    "scalar_text",
    "split_path",
    "trim_ascii",
]

# Lean's ``Char.isWhitespace``: space, tab, CR and LF only (no VT, FF or Unicode spaces).
_ASCII_WS = " \t\r\n"
_UPPER_TO_LOWER = str.maketrans({chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)})


def trim_ascii(text: str) -> str:
    """``String.trimAscii``: strip space, tab, CR and LF from both ends."""
    return text.strip(_ASCII_WS)


def ascii_lower(text: str) -> str:
    """``asciiLower``: A-Z to a-z, every other character unchanged (no Unicode folding)."""
    return text.translate(_UPPER_TO_LOWER)


def contains_any_ci(haystack: str, needles: list[str]) -> bool:
    """``containsAnyCi``: some ASCII-lowered needle is a substring of the lowered haystack."""
    lowered = ascii_lower(haystack)
    return any(ascii_lower(needle) in lowered for needle in needles)


def split_path(path: str) -> list[str]:
    """``splitPath``: split on ``.`` and drop empty components (``a..b`` is ``[a, b]``)."""
    return [part for part in path.split(".") if part]


def at_path(value: LValue, path: list[str]) -> LValue | Absent:
    """``atPath``: follow object members; :data:`ABSENT` when a step is missing or not an object.

    The result for an empty path is the value itself.
    """
    current: LValue = value
    for key in path:
        if not isinstance(current, dict) or key not in current:
            return ABSENT
        current = current[key]
    return current


def scalar_text(value: LValue | Absent) -> str | None:
    """``jsonScalarToString`` over an ``atPath`` result; ``None`` for containers or missing."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, LeanNumber):
        return number_text(value)
    return None
