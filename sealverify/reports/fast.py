"""The reports layer's fast paths, each beside the reference it must equal byte for byte.

Importing this module (the package ``__init__`` does) binds them into the report model and
formats, or, under ``SEALVERIFY_REFERENCE=1``, the references (:mod:`sealverify.fastpath`):
the standard library's JSON encoder for every document, each subject encoded whole, one
full sort of a subject's checks, and every check built afresh through its ``__init__``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from json.encoder import encode_basestring
from operator import attrgetter
from typing import Any

import orjson

from sealverify import fastpath
from sealverify.fastpath import Pair
from sealverify.reports import model
from sealverify.reports.effects import Effect
from sealverify.reports.formats import jsonfmt, jsonl, junit, sarif
from sealverify.reports.formats.jsonfmt import dumps_compact
from sealverify.reports.model import Check, Compared, Status, Subject
from sealverify.reports.outcomes import Outcome

__all__ = ["PAIRS", "subject_bytes_fast"]


# The compact writer lays out what encoding ``subject.to_dict()`` whole writes, member by
# member: the subject's members in sorted order (checks, facts, label, name, outcome) and each
# check's (data, id, location, reason, status), compact as ``jsonfmt.subject_body`` writes
# them. A string is written by ``encode_basestring``, the standard library's own writer of a
# ``str`` when ``ensure_ascii=False`` (orjson writes every such string the same,
# tests/test_jsonfmt.py); data and facts by ``jsonfmt.dumps_compact``. The text of a check
# without data is kept per (id, status, reason, location), at most ``_KEPT`` of them, none
# with a reason over ``_KEPT_LONGEST`` characters.
@dataclasses.dataclass(frozen=True, slots=True)
class _Layout:
    data: str  # opens a check with data
    data_value: Callable[[Any], str]
    id_after_data: str
    id: str  # opens a check without data
    location: str
    reason: str
    status: str
    check_close: str
    check_separator: str
    checks_open: str
    checks_close: str
    checks_empty: str
    facts: str
    facts_value: Callable[[Any], str]
    label: str
    name: str
    outcome: str
    close: str
    kept: dict[tuple[str, str, str, str], str] = dataclasses.field(default_factory=dict)

    def cache_clear(self) -> None:
        """Forget the kept check texts (tests empty every cache this way)."""
        self.kept.clear()


_KEPT = 2048
_KEY = attrgetter("id", "status", "reason", "location")
_KEPT_LONGEST = 1024
_WORDS = frozenset((str, Outcome))  # the exact types of an outcome the fast writer writes


def _layout(
    line: Callable[[int], str],
    colon: str,
    data_value: Callable[[Any], str],
    facts_value: Callable[[Any], str],
) -> _Layout:
    """A layout's texts: ``line(n)`` stands before what is at indent n, ``colon`` after a name."""

    def member(depth: int, name: str) -> str:
        return f'{line(depth)}"{name}":{colon}'

    return _Layout(
        data="{" + member(10, "data"),
        data_value=data_value,
        id_after_data="," + member(10, "id"),
        id="{" + member(10, "id"),
        location="," + member(10, "location"),
        reason="," + member(10, "reason"),
        status="," + member(10, "status"),
        check_close=line(8) + "}",
        check_separator="," + line(8),
        checks_open="{" + member(6, "checks") + "[" + line(8),
        checks_close=line(6) + "],",
        checks_empty="{" + member(6, "checks") + "[],",
        facts=member(6, "facts"),
        facts_value=facts_value,
        label="," + member(6, "label"),
        name="," + member(6, "name"),
        outcome="," + member(6, "outcome"),
        close=line(4) + "}",
    )


_COMPACT_LAYOUT = _layout(lambda _: "", "", dumps_compact, dumps_compact)


def _check_text(check: Check, layout: _Layout) -> str | None:
    """One check's text in ``layout``, or None when one of its texts is not an exact ``str``."""
    check_id, status, reason, location = check.id, check.status, check.reason, check.location
    if not (
        type(check_id) is str
        and type(status) is str
        and type(reason) is str
        and type(location) is str
    ):
        return None
    data = check.data
    text = layout.data + layout.data_value(data) + layout.id_after_data if data else layout.id
    text += encode_basestring(check_id)
    if location:
        text += layout.location + encode_basestring(location)
    text += layout.reason + encode_basestring(reason)
    text += layout.status + encode_basestring(status) + layout.check_close
    if not data and len(reason) <= _KEPT_LONGEST:
        if len(layout.kept) >= _KEPT:
            layout.kept.clear()
        layout.kept[check_id, status, reason, location] = text
    return text


def _subject_fast(subject: Subject, layout: _Layout = _COMPACT_LAYOUT) -> str | None:
    """The subject's text in ``layout``, or None to leave it to the reference.

    Compact by default: ``jsonfmt.subject_body_reference`` written member by member.
    """
    name, outcome, label = subject.name, subject.outcome, subject.label
    # An Outcome is a ``str`` enum: ``encode_basestring`` writes its word, as the whole
    # encoding does (every command's subjects carry one, reports/outcomes.py).
    if not (type(name) is str and type(outcome) in _WORDS and type(label) is str):
        return None
    # Only exact ``str`` texts are kept, and equal ``str`` keys write equal texts, so a hit is
    # the text the check's own members give, if the check has no data (those are not kept).
    kept = layout.kept.get
    texts: list[str] = []
    for check in subject.sorted_checks():
        text = None if check.data else kept(_KEY(check))
        if text is None:
            text = _check_text(check, layout)
            if text is None:
                return None
        texts.append(text)
    listed = layout.check_separator.join(texts)
    text = layout.checks_open + listed + layout.checks_close if texts else layout.checks_empty
    text += layout.facts + layout.facts_value(subject.facts)
    if label:
        text += layout.label + encode_basestring(label)
    return (
        text
        + layout.name
        + encode_basestring(name)
        + layout.outcome
        + encode_basestring(outcome)
        + layout.close
    )


# A subject's JSON text is one orjson call over ``subject.to_dict()`` once the subject passes
# ``jsonfmt._subject_plain``'s test: that is ``jsonfmt.dumps(..., plain=True)``, the reference's
# own encoding. The test is made at C speed where it can be: the checks' four texts by the set
# of their types (one pass each), the data and facts by ``jsonfmt._plain``.
_TEXT_OF = tuple(attrgetter(name) for name in ("id", "status", "reason", "location"))
_STR = frozenset((str,))
_WHOLE = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS


def subject_bytes_fast(subject: Subject) -> bytes | None:
    """``jsonfmt.subject_text_reference(subject)`` as UTF-8, or None to leave it to it."""
    checks = subject.checks
    for text_of in _TEXT_OF:
        if not _STR.issuperset(map(type, map(text_of, checks))):
            return None
    own = (subject.name, subject.outcome, subject.label)
    if not jsonfmt._TEXTS.issuperset(map(type, own)) or not jsonfmt._plain(subject.facts):
        return None
    for check in checks:
        if check.data and not jsonfmt._plain(check.data):
            return None
    try:
        data = orjson.dumps(subject.to_dict(), option=_WHOLE)
    except orjson.JSONEncodeError:  # a lone surrogate: the standard library writes it
        return None
    return data.replace(b"\n", b"\n    ")  # UTF-8 holds no 0x0A but the newline itself


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
