"""The one switch between every layer's fast paths and the reference implementations they equal.

Each layer keeps its fast paths in one module, ``<layer>/fast.py``, beside the reference each
must equal byte for byte; the layer's ``__init__`` imports it, so the layer never runs without
its choice made. ``SEALVERIFY_REFERENCE=1`` in the environment, read once here at import,
makes every layer bind its references instead: the same reports, by the definitions the fast
paths stand in for. The choice is made when a fast module is imported, by rebinding the names
the layer calls, so no call reads the environment and a fast run makes the calls it made
before the boundary was drawn. :func:`use_reference` switches a running process
(tests compare the two in one process); docs/architecture.md describes the boundary.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Final

__all__ = [
    "ENVIRONMENT",
    "REFERENCE",
    "Pair",
    "active",
    "always",
    "declined",
    "never",
    "reference",
    "register",
    "use_reference",
]

ENVIRONMENT: Final = "SEALVERIFY_REFERENCE"
# Read once: "1" selects the reference implementations in every layer.
REFERENCE: Final = os.environ.get(ENVIRONMENT, "") == "1"


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
_mode = {"reference": REFERENCE}


def reference() -> bool:
    """Whether the references are in use now: the flag explicit fast/reference branches read."""
    return _mode["reference"]


def register(*pairs: Pair) -> None:
    """Record a layer's pairs and bind each as the current mode says (a fast module's import)."""
    _PAIRS.extend(pairs)
    for pair in pairs:
        _bind(pair, _mode["reference"])


def _bind(pair: Pair, reference: bool) -> None:
    setattr(pair.owner, pair.name, pair.reference if reference else pair.fast)


@contextmanager
def use_reference(reference: bool = True) -> Iterator[None]:
    """Bind every registered pair (and any registered meanwhile) as ``reference`` says, then back.

    The reload hook for tests that compare the two paths in one process; a run with the
    environment variable set never needs it. Not for threads running meanwhile.
    """
    before = _mode["reference"]
    _mode["reference"] = reference
    for pair in _PAIRS:
        _bind(pair, reference)
    try:
        yield
    finally:
        _mode["reference"] = before
        for pair in _PAIRS:
            _bind(pair, before)


def active() -> dict[str, str]:
    """Each registered pair's label and which of the two is bound now: "fast" or "reference"."""
    found: dict[str, str] = {}
    for pair in _PAIRS:
        bound = getattr(pair.owner, pair.name)
        found[pair.label] = (
            "reference" if bound is pair.reference else "fast" if bound is pair.fast else "other"
        )
    return found
