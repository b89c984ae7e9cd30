"""Where ``verify`` spends its time: a cProfile run's self time, grouped by concern."""

from __future__ import annotations

import cProfile
import pstats
import time
from collections.abc import Callable, Sequence

__all__ = ["CATEGORIES", "Profile", "attribute", "category_of", "profile_calls"]

# Grouped by the module a function lives in; the first matching row wins. Built-in functions
# (C code called from Python) are named by what they are where that is a concern of its own
# (hashing, base64, orjson, the signature libraries), else charged to the Python function
# that called them (a regex search belongs to whoever searched).
_SIGNATURES = "Ed25519 (libsodium, OpenSSL)"
_PARSING = "strict JSON parsing (strictjson, json)"
_BYTE_RULES = "byte rules and hashing (serdejson, leanjson, identities, frames, SHA-256, base64)"
_BINDINGS = "bindings: recompute and compare (receipts/bindings/)"
_CHECKS = "document, field and authority checks, report (receipts, verify, report, trust)"
_WORDING = "wording lint (wording/rules.py)"
_KERNEL = "decision re-derivation (kernel/, receipts/rederivation.py)"
_OTHER = "other"
CATEGORIES = (
    _SIGNATURES,
    _PARSING,
    _BYTE_RULES,
    _BINDINGS,
    _CHECKS,
    _WORDING,
    _KERNEL,
    _OTHER,
)

_BY_PATH: tuple[tuple[tuple[str, ...], str], ...] = (
    (("sealverify/_internal/primitives/signatures.py", "/nacl/", "/cryptography/"), _SIGNATURES),
    (
        (
            "sealverify/_internal/wire/strictjson.py",
            "sealverify/_internal/receipts/embedded.py",
            "/json/decoder.py",
            "/json/scanner.py",
        ),
        _PARSING,
    ),
    (
        (
            "sealverify/_internal/wire/serdejson.py",
            "sealverify/_internal/wire/leanjson.py",
            "sealverify/_internal/primitives/identities.py",
            "sealverify/_internal/primitives/releaseframe.py",
            "sealverify/_internal/primitives/objectb.py",
            "sealverify/_internal/wire/netstring.py",
            "sealverify/_internal/wire/framing.py",
            "sealverify/_internal/mcp/frame.py",
            "/base64.py",
            "/hashlib.py",
        ),
        _BYTE_RULES,
    ),
    (("sealverify/_internal/receipts/bindings/",), _BINDINGS),
    (
        (
            "sealverify/_internal/receipts/families.py",
            "sealverify/_internal/receipts/members.py",
            "sealverify/_internal/receipts/claims.py",
            "sealverify/_internal/wire/guards.py",
            "sealverify/_internal/receipts/verify.py",
            "sealverify/_internal/results/model.py",
            "sealverify/_internal/results/outcomes.py",
            "sealverify/_internal/primitives/trust.py",
            "sealverify/_internal/primitives/publishedkeys.py",
        ),
        _CHECKS,
    ),
    (("sealverify/_internal/wording/rules.py",), _WORDING),
    (("sealverify/_internal/kernel/", "sealverify/_internal/receipts/rederivation.py"), _KERNEL),
)
_BUILTIN_NAMES: tuple[
    tuple[tuple[str, ...], str], ...
] = (  # hashlib's builtins are named "openssl_sha256": hashing, not signatures
    (("_hashlib", "hexdigest", "binascii", "b64decode", "b64encode", "orjson"), _BYTE_RULES),
    (("_sodium", "ed25519", "Ed25519"), _SIGNATURES),
)

Key = tuple[str, int, str]


def category_of(filename: str, function: str) -> str | None:
    """The concern a profiled function belongs to; None for a built-in charged to its caller."""
    if filename == "~":
        for fragments, category in _BUILTIN_NAMES:
            if any(fragment in function for fragment in fragments):
                return category
        return None
    path = filename.replace("\\", "/")
    for fragments, category in _BY_PATH:
        if any(fragment in path for fragment in fragments):
            return category
    return _OTHER


def attribute(stats: pstats.Stats) -> dict[str, float]:
    """Self time (seconds) per category; every profiled second is counted exactly once.

    A built-in without a category of its own is split among its callers in proportion to
    the time each call edge spent in it (pstats keeps that per edge).
    """
    table: dict[Key, tuple[int, int, float, float, dict[Key, tuple[int, int, float, float]]]]
    table = stats.stats  # type: ignore[attr-defined]
    totals = dict.fromkeys(CATEGORIES, 0.0)
    for (filename, _, function), (_, _, self_time, _, callers) in table.items():
        category = category_of(filename, function)
        if category is not None:
            totals[category] += self_time
            continue
        edges = {caller: edge[2] for caller, edge in callers.items()}
        spread = sum(edges.values())
        if not edges or spread <= 0:
            totals[_OTHER] += self_time
            continue
        for (caller_file, _, caller_function), share in edges.items():
            owner = category_of(caller_file, caller_function) or _OTHER
            totals[owner] += self_time * share / spread
    return totals


class Profile:
    """The result of :func:`profile_calls`: seconds per category and the unprofiled time."""

    def __init__(self, seconds: dict[str, float], calls: int, plain_seconds: float) -> None:
        self.seconds = seconds
        self.calls = calls
        self.plain_seconds = plain_seconds

    def shares(self) -> list[tuple[str, float, float]]:
        """``(category, share of profiled self time, profiled microseconds per call)``.

        The profiler slows Python code more than C code (Ed25519, hashing, the JSON scanner),
        so shares lean towards Python work; :attr:`plain_seconds` is the unprofiled time.
        """
        total = sum(self.seconds.values()) or 1.0
        calls = max(self.calls, 1)
        return [(c, self.seconds[c] / total, self.seconds[c] / calls * 1e6) for c in CATEGORIES]


def profile_calls(work: Callable[[bytes], object], inputs: Sequence[bytes]) -> Profile:
    """Run ``work`` over ``inputs`` once warm and unprofiled (timed), once under cProfile."""
    for item in inputs[:10]:
        work(item)
    started = time.perf_counter()
    for item in inputs:
        work(item)
    plain = time.perf_counter() - started
    profiler = cProfile.Profile()
    profiler.enable()
    for item in inputs:
        work(item)
    profiler.disable()
    return Profile(attribute(pstats.Stats(profiler)), len(inputs), plain)
