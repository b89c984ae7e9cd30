"""A per-process cache for pure functions of request text that never holds a large text."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sealverify._internal import fastpath

__all__ = ["TEXT_LIMIT", "text_cache"]

P = ParamSpec("P")
T = TypeVar("T")

# Texts longer than this are computed afresh: a cache of hostile megabyte lines would hold
# every one of them alive for the rest of the run.
TEXT_LIMIT = 1 << 16


def text_cache(maxsize: int) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """``functools.lru_cache(maxsize)`` for calls whose string arguments are short.

    A :func:`sealverify._internal.fastpath.cache`: off in reference mode, every call computes
    afresh.
    """

    def wrap(func: Callable[P, T]) -> Callable[P, T]:
        cached = fastpath.cache(maxsize)(func)

        @functools.wraps(func)
        def call(*args: P.args, **kwargs: P.kwargs) -> T:
            size = 0
            for arg in (*args, *kwargs.values()) if kwargs else args:
                if isinstance(arg, str):
                    size += len(arg)
            if size > TEXT_LIMIT:
                return func(*args, **kwargs)
            return cached(*args, **kwargs)

        call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]  # for test oracles
        call.cache_info = cached.cache_info  # type: ignore[attr-defined]
        return call

    return wrap
