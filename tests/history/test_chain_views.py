"""Record views read back in order and as appended, held, spilled, or kept after a failure."""

from __future__ import annotations

import marshal
from typing import Any

import pytest

from sealverify._internal.history import chain_views
from sealverify._internal.history.chain_views import FIELDS, RecordViews


def _view(k: int) -> dict[str, Any]:
    values = (k, f"s{k % 3}", f"a.log:{2 * k}", None if k % 4 else f"a.log:{2 * k - 1}",
              "0" * 64, f"{k:064x}", None if k else "p", k % 2 == 0, k % 5 != 0,
              ["--expect-head"] if k == 7 else [])  # fmt: skip
    return dict(zip(FIELDS, values, strict=True))


@pytest.mark.parametrize("held", [0, 1, 5, 100])
def test_views_read_back_as_appended_every_time(held: int) -> None:
    views = RecordViews(held=held)
    for k in range(20):
        views.append(_view(k))
    assert len(views) == 20
    assert list(views) == [_view(k) for k in range(20)]
    assert list(views) == [_view(k) for k in range(20)]  # read again from the start


def test_views_are_kept_in_memory_once_the_file_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    views = RecordViews(held=2)
    for k in range(5):
        views.append(_view(k))
    real = marshal.dump

    def full(value: object, file: Any) -> None:
        raise OSError("no space left")

    monkeypatch.setattr(chain_views.marshal, "dump", full)
    for k in range(5, 9):
        views.append(_view(k))
    monkeypatch.setattr(chain_views.marshal, "dump", real)
    views.append(_view(9))
    assert list(views) == [_view(k) for k in range(10)]
