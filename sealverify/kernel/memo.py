"""A per-process cache for pure functions of request text that never holds a large text."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sealverify import fastpath

__all__ = ["TEXT_LIMIT", "text_cache"]

P = ParamSpec("P")
T = TypeVar("T")

# Texts longer than this are computed afresh: a cache of hostile megabyte lines would hold
# every one of them alive for the rest of the run.
TEXT_LIMIT = 1 << 16


def text_cache(maxsize: int) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """``functools.lru_cache(maxsize)`` for calls whose string arguments are short.

    Off in reference mode (:func:`sealverify.fastpath.reference`): every call computes afresh.
    """

    def wrap(func: Callable[P, T]) -> Callable[P, T]:
        cached = functools.lru_cache(maxsize=maxsize)(func)

        @functools.wraps(func)
        def call(*args: P.args, **kwargs: P.kwargs) -> T:
            size = 0
            for arg in (*args, *kwargs.values()) if kwargs else args:
                if isinstance(arg, str):
                    size += len(arg)
            if size > TEXT_LIMIT or fastpath.reference():
                return func(*args, **kwargs)
            return cached(*args, **kwargs)  # type: ignore[arg-type]

        call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]  # for test oracles
        return call

    return wrap
