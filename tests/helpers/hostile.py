"""Shared with other test modules by tests/receipts/test_hostile.py."""

from __future__ import annotations

import re

HOSTILE = [
    "9" * 5000,  # beyond Python's int() digit limit
    "1e9999999999",  # beyond f64 and Lean's exponent guard
    "-0",
    '"\\ud800"',  # a lone surrogate escape
    "[" * 100 + "]" * 100,  # deeper than the 64-level limit
    "18446744073709551617",
    '"\\u0000"',
    "{}",
]
SCALAR = re.compile(r'(:\s*)("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)')


def scalar_mutants(text: str, every: int = 1) -> list[str]:
    out = []
    for n, match in enumerate(SCALAR.finditer(text)):
        if n % every:
            continue
        for value in HOSTILE:
            out.append(text[: match.start(2)] + value + text[match.end(2) :])
    return out
