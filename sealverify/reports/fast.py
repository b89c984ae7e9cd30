"""The reports layer's fast paths, each beside the reference it must equal byte for byte.

Importing this module (the package ``__init__`` does) binds them into the report model and
formats, or, under ``SEALVERIFY_REFERENCE=1``, the references (:mod:`sealverify.fastpath`):
the standard library's JSON encoder for every document, each subject encoded whole, one
full sort of a subject's checks, and every check built afresh through its ``__init__``.
"""

from __future__ import annotations

import json
from operator import attrgetter
from typing import Any

import orjson

from sealverify import fastpath
from sealverify.fastpath import Pair
from sealverify.reports import model
from sealverify.reports.effects import Effect
from sealverify.reports.formats import jsonfmt, jsonl, junit, sarif
from sealverify.reports.model import Check, Compared, Status, Subject

__all__ = ["PAIRS", "subject_bytes_fast"]


# A subject's JSON text is one orjson call over ``subject.to_dict()`` once the subject passes
# ``jsonfmt._subject_plain``'s test: that is ``jsonfmt.dumps(..., plain=True)`` (indented) or
# ``jsonfmt.dumps_compact(..., plain=True)``, the reference's own encoding. The test is made at
# C speed where it can be: the checks' four texts by the set of their types (one pass each),
# the data and facts by ``jsonfmt._plain``.
_STR = frozenset((str,))
_STATUS_TEXT = frozenset((str, Status))
_TEXT_OF = tuple(
    (attrgetter(name), _STATUS_TEXT if name == "status" else _STR)
    for name in ("id", "status", "reason", "location")
)


def _subject_whole(subject: Subject, option: int) -> bytes | None:
    """``subject.to_dict()`` encoded by orjson with ``option``, or None to leave it to it."""
    checks = subject.checks
    for text_of, types in _TEXT_OF:
        if not types.issuperset(map(type, map(text_of, checks))):
            return None
    own = (subject.name, subject.outcome, subject.label)
    if not jsonfmt._TEXTS.issuperset(map(type, own)) or not jsonfmt._plain(subject.facts):
        return None
    for check in checks:
        if check.data and not jsonfmt._plain(check.data):
            return None
    try:
        return orjson.dumps(subject.to_dict(), option=option)
    except orjson.JSONEncodeError:  # a lone surrogate: the standard library writes it
        return None


def subject_bytes_fast(subject: Subject) -> bytes | None:
    """``jsonfmt.subject_text_reference(subject)`` as UTF-8, or None to leave it to it."""
    data = _subject_whole(subject, jsonfmt._ORJSON)
    return None if data is None else data.replace(b"\n", b"\n    ")  # no 0x0A but newlines


def _subject_fast(subject: Subject) -> str | None:
    """``jsonfmt.subject_body_reference(subject)``, or None to leave it to it."""
    data = _subject_whole(subject, jsonfmt._ORJSON_COMPACT)
    return None if data is None else data.decode("utf-8")


def _indented_reference(value: Any, *, plain: bool | None = None) -> str:
    """``jsonfmt.dumps`` by its definition (``plain`` is a hint the definition needs not)."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)


def _compact_reference(value: Any, *, plain: bool | None = None) -> str:
    """``jsonfmt.dumps_compact`` by its definition."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sorted_among_reference(checks: tuple[Check, ...], statuses: frozenset[str]) -> list[Check]:
    """``model.sorted_among`` by its definition: sort them all, then keep those shown."""
    return [c for c in Subject("", "", checks).sorted_checks() if c.status in statuses]


def _check_by_init(
    check_id: str,
    status: Status,
    reason: str,
    location: str,
    data: dict[str, Any],
    compared: Compared | None = None,
    effect: Effect = Effect.INFORMS,
) -> Check:
    """``model._check`` through the dataclass's own ``__init__``: the same fields and effect.

    ``__post_init__`` turns an INFORMS failure into FAILS; ``model._check`` sets the effect it
    is given, so the effect is set again here as given: both build the very same check.
    """
    check = Check(check_id, status, reason, location, data, compared, effect)
    if check.effect is not effect:
        object.__setattr__(check, "effect", effect)
    return check


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
    Pair(jsonfmt, "_subject_bytes_fast", subject_bytes_fast, fastpath.declined),
    Pair(jsonfmt, "_subject_body_fast", _subject_fast, fastpath.declined),
    Pair(jsonl, "dumps_compact", jsonfmt.dumps_compact, _compact_reference),
    Pair(sarif, "_dumps", sarif._dumps, _indented_reference),
    Pair(sarif, "sorted_among", model.sorted_among, _sorted_among_reference),
    Pair(junit, "sorted_among", model.sorted_among, _sorted_among_reference),
)
fastpath.register(*PAIRS)
