"""The one switch between the few measured fast paths and the definitions they stand in for.

``SEALVERIFY_REFERENCE=1`` in the environment, read once here at import, selects the
definitions: each function that keeps a fast path branches on :func:`reference` where it
owns the concern, and every cache (:func:`cache`) computes afresh. The reports are the
same either way (docs/performance.md lists the fast paths kept and what each is worth).
:func:`use_reference` switches a running process (tests compare the two in one process).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final, ParamSpec, TypeVar

__all__ = [
    "ENVIRONMENT",
    "REFERENCE",
    "cache",
    "caches",
    "reference",
    "use_reference",
]

P = ParamSpec("P")
T = TypeVar("T")

ENVIRONMENT: Final = "SEALVERIFY_REFERENCE"
# Read once: "1" selects the definitions everywhere.
REFERENCE: Final = os.environ.get(ENVIRONMENT, "") == "1"

_mode = {"reference": REFERENCE}


def reference() -> bool:
    """Whether the definitions are in use now: the flag every fast path's branch reads."""
    return _mode["reference"]


def cache(
    maxsize: int | None = 128, *, typed: bool = False
) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """``functools.lru_cache(maxsize, typed)``, or, in a process started in reference mode, none.

    For pure functions only: a cached answer is the answer. A refusal (an exception) is never
    kept, so it is raised afresh with the same message. Under ``SEALVERIFY_REFERENCE=1`` the
    cache has size 0 (every call computes afresh); :func:`use_reference` empties every cache
    as it switches, so nothing computed in one mode is read in the other.
    """

    def wrap(func: Callable[P, T]) -> Callable[P, T]:
        cached = functools.lru_cache(maxsize=0 if REFERENCE else maxsize, typed=typed)(func)
        _CACHES.append(cached)
        return cached  # type: ignore[return-value]

    return wrap


_CACHES: list[functools._lru_cache_wrapper[Any]] = []


def caches() -> tuple[functools._lru_cache_wrapper[Any], ...]:
    """Every cache :func:`cache` has made so far (for tests: each is empty in reference mode)."""
    return tuple(_CACHES)


def _clear_caches() -> None:
    for cached in _CACHES:
        cached.cache_clear()


@contextmanager
def use_reference(reference: bool = True) -> Iterator[None]:
    """Run the block in reference mode (or, with False, in fast mode), then restore the mode.

    Every :func:`cache` is emptied as the mode switches (and back), so neither mode reads what
    the other computed; only a process started with the environment variable has no caches.
    For tests that compare the two paths in one process. Not for threads running meanwhile.
    """
    before = _mode["reference"]
    _mode["reference"] = reference
    _clear_caches()
    try:
        yield
    finally:
        _mode["reference"] = before
        _clear_caches()
