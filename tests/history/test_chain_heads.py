"""The heads index answers as a map of every head to its positions, in memory or spilled."""

from __future__ import annotations

import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.history import chain_heads
from sealverify._internal.history.chain_heads import Heads

_HEADS = ["a" * 64, "b" * 64, "0" * 63 + "1", "A" * 64, "not hex", ""]


def _reference(heads: list[str], head: str, before: int | None) -> tuple[int, str]:
    found = [j for j, h in enumerate(heads) if h == head and (before is None or j < before)]
    return (found[-1], f"log{found[-1] % 2}:{found[-1] + 7}") if found else (-1, "")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_HEADS), max_size=40), st.sampled_from([1, 2, 3, 1 << 14]))
def test_every_lookup_answers_as_the_map_of_every_head(heads: list[str], bound: int) -> None:
    placed = [(h, f"log{j % 2}", j + 7) for j, h in enumerate(heads)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chain_heads, "BLOCK", 2)  # lookups that cross merged blocks
        index = Heads(placed, bound=bound)
        for head in _HEADS:
            assert index.last(head) == _reference(heads, head, None)
            for i in range(len(heads) + 1):
                assert index.last_before(head, i) == _reference(heads, head, i)


def test_an_index_that_cannot_spill_keeps_its_records(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object, **kwargs: object) -> object:
        raise OSError("no space")

    monkeypatch.setattr(tempfile, "TemporaryFile", refused)
    heads = [_HEADS[j % 3] for j in range(30)]
    index = Heads([(h, "log", j) for j, h in enumerate(heads)], bound=4)
    assert index.last("a" * 64) == (27, "log:27")
    assert index.last_before("b" * 64, 10) == (7, "log:7")
