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
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Final, ParamSpec, TypeVar

__all__ = [
    "ENVIRONMENT",
    "REFERENCE",
    "Pair",
    "active",
    "always",
    "cache",
    "caches",
    "declined",
    "never",
    "reference",
    "register",
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


def cache(maxsize: int | None = 128) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """``functools.lru_cache(maxsize)``, or, in a process started in reference mode, no cache.

    For pure functions only: a cached answer is the answer. A refusal (an exception) is never
    kept, so it is raised afresh with the same message. Under ``SEALVERIFY_REFERENCE=1`` the
    cache has size 0 (every call computes afresh); :func:`use_reference` empties every cache
    as it switches, so nothing computed in one mode is read in the other.
    """

    def wrap(func: Callable[P, T]) -> Callable[P, T]:
        cached = functools.lru_cache(maxsize=0 if REFERENCE else maxsize)(func)
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
    for pair in _PAIRS:
        _bind(pair, reference)
    try:
        yield
    finally:
        _mode["reference"] = before
        _clear_caches()
        for pair in _PAIRS:
            _bind(pair, before)


# --- Rebound pairs: the receipts layer's until it reads each receipt once ---------------------
# A pair rebinds a module attribute when its layer's fast module is imported. Only
# sealverify/receipts/fast.py still registers pairs; this section goes with it.


@dataclass(frozen=True, slots=True)
class Pair:
    """One fast path and its reference: the name ``owner.name`` the layer's code calls or reads.

    ``fast`` and ``reference`` are what that name is bound to in each mode: functions, or the
    value a pre-filter or cache is tuned by (a size limit of 0 keeps nothing).
    """

    owner: object  # a module, a class or an object with the attribute
    name: str
    fast: object
    reference: object

    @property
    def label(self) -> str:
        """``module.name``, ``module.Class.name`` or (an object's) ``module.Type.name``."""
        owner = self.owner
        if isinstance(owner, ModuleType):
            return f"{owner.__name__}.{self.name}"
        kind = owner if isinstance(owner, type) else type(owner)
        return f"{kind.__module__}.{kind.__qualname__}.{self.name}"


def declined(*_args: object) -> None:
    """A fast path in reference mode: it declines every input (None), so the reference runs."""
    return None


def never(*_args: object) -> bool:
    """A pre-filter in reference mode: it never proves the shortcut safe."""
    return False


def always(*_args: object) -> bool:
    """A cue in reference mode: the full check may always be needed, so it always runs."""
    return True


_PAIRS: list[Pair] = []


def register(*pairs: Pair) -> None:
    """Record a layer's pairs and bind each as the current mode says (a fast module's import)."""
    _PAIRS.extend(pairs)
    for pair in pairs:
        _bind(pair, _mode["reference"])


def _bind(pair: Pair, reference: bool) -> None:
    setattr(pair.owner, pair.name, pair.reference if reference else pair.fast)


def active() -> dict[str, str]:
    """Each registered pair's label and which of the two is bound now: "fast" or "reference"."""
    found: dict[str, str] = {}
    for pair in _PAIRS:
        bound = getattr(pair.owner, pair.name)
        found[pair.label] = (
            "reference" if bound is pair.reference else "fast" if bound is pair.fast else "other"
        )
    return found
