"""The reports layer's fast paths, each beside the reference it must equal byte for byte.

Importing this module (the package ``__init__`` does) binds them into the report model and
formats, or, under ``SEALVERIFY_REFERENCE=1``, the references (:mod:`sealverify.fastpath`):
the standard library's JSON encoder for every document, each subject encoded whole, one
full sort of a subject's checks, and every check built afresh through its ``__init__``.
"""

from __future__ import annotations

import json
from typing import Any

from sealverify import fastpath
from sealverify.fastpath import Pair
from sealverify.reports import model
from sealverify.reports.formats import jsonfmt, jsonl, junit, sarif
from sealverify.reports.model import Check, Subject

__all__ = ["PAIRS"]


def _indented_reference(value: Any, *, plain: bool | None = None) -> str:
    """``jsonfmt.dumps`` by its definition (``plain`` is a hint the definition needs not)."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)


def _compact_reference(value: Any, *, plain: bool | None = None) -> str:
    """``jsonfmt.dumps_compact`` by its definition."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sorted_among_reference(checks: tuple[Check, ...], statuses: frozenset[str]) -> list[Check]:
    """``model.sorted_among`` by its definition: sort them all, then keep those shown."""
    return [c for c in Subject("", "", checks).sorted_checks() if c.status in statuses]


def _check_by_init(*fields: Any) -> Check:
    """``model._check`` through the dataclass's own ``__init__``."""
    return Check(*fields)


class _Unkept(dict[tuple[str, str, str], Check]):
    """``model._PASSES`` in reference mode: a cache that keeps nothing."""

    def __setitem__(self, key: tuple[str, str, str], value: Check) -> None:
        pass


PAIRS = (
    Pair(Subject, "sorted_checks", Subject.sorted_checks, Subject.sorted_checks_reference),
    Pair(model, "_check", model._check, _check_by_init),
    Pair(model, "_PASSES", model._PASSES, _Unkept()),
    Pair(jsonfmt, "dumps", jsonfmt.dumps, _indented_reference),
    Pair(jsonfmt, "dumps_compact", jsonfmt.dumps_compact, _compact_reference),
    Pair(jsonfmt, "_plain", jsonfmt._plain, jsonfmt._plain_reference),
    Pair(jsonfmt, "_subject_fast", jsonfmt._subject_fast, fastpath.declined),
    Pair(jsonl, "dumps_compact", jsonfmt.dumps_compact, _compact_reference),
    Pair(sarif, "_dumps", sarif._dumps, _indented_reference),
    Pair(sarif, "sorted_among", model.sorted_among, _sorted_among_reference),
    Pair(junit, "sorted_among", model.sorted_among, _sorted_among_reference),
)
fastpath.register(*PAIRS)
