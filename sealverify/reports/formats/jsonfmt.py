"""The JSON report format: sorted keys, two-space indent, UTF-8, byte-stable."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from json.encoder import encode_basestring
from operator import attrgetter
from typing import Any

import orjson

from sealverify.reports.model import Check, Report, Subject

__all__ = [
    "SUBJECT_SEPARATOR",
    "dumps",
    "dumps_compact",
    "render",
    "render_around_subjects",
    "subject_body",
    "subject_body_reference",
    "subject_text",
    "subject_text_reference",
]

# How ``render`` lays out the subjects list (two-space indent, subjects at depth two): the
# spooled form below rebuilds the same bytes from subjects rendered one at a time.
_SUBJECTS_EMPTY = '\n  "subjects": [],\n'
_SUBJECTS_OPEN = '\n  "subjects": [\n    '
_SUBJECTS_CLOSE = "\n  ],\n"
SUBJECT_SEPARATOR = ",\n    "


_INT_RANGE = range(-(2**63), 2**64)  # what orjson writes; beyond it, it refuses
_ORJSON_COMPACT = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS
_ORJSON = orjson.OPT_INDENT_2 | _ORJSON_COMPACT


_LEAVES = frozenset((str, bool, type(None)))  # plain whatever their value
_KEYS = frozenset((str,))


def _plain(value: Any) -> bool:
    """Whether ``value`` holds only exact dict (str keys), list, tuple, str, int, bool, None.

    For such values orjson's indented, key-sorted output is byte for byte what ``json.dumps(
    sort_keys=True, indent=2, ensure_ascii=False)`` writes (tests/test_jsonfmt.py). Floats are
    the exception that would pass silently (orjson spells ``1e16`` and NaN differently), so
    they, and every other type, take the standard library's encoder.
    """
    kind = type(value)
    if kind in _LEAVES:
        return True
    if kind is int:
        return value in _INT_RANGE
    if kind is dict:
        if not _KEYS.issuperset(map(type, value)):
            return False
        items = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return False
    # a container of leaves (the usual case) is judged by its set of types, at C speed
    return _LEAVES.issuperset(map(type, items)) or all(map(_plain, items))


def _plain_reference(value: Any) -> bool:
    """:func:`_plain` member by member (the reference its type-set shortcut is tested on)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return value in _INT_RANGE
    if kind is dict:
        return all(type(key) is str and _plain_reference(item) for key, item in value.items())
    if kind is list or kind is tuple:
        return all(map(_plain_reference, value))
    return False


def dumps(value: Any, *, plain: bool | None = None) -> str:
    """``json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)``, exactly.

    orjson writes it (several times faster than the standard library's pure-Python indented
    encoder) when the value is :func:`_plain` (``plain`` says so when the caller knows), and
    the standard library does otherwise and whenever orjson refuses (lone surrogates).
    """
    if plain if plain is not None else _plain(value):
        try:
            return orjson.dumps(value, option=_ORJSON).decode("utf-8")
        except orjson.JSONEncodeError:
            pass
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)


def dumps_compact(value: Any, *, plain: bool | None = None) -> str:
    """``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``.

    orjson writes it when the value is :func:`_plain`, as :func:`dumps` does (the two encoders
    differ only in the whitespace the indent adds), the standard library otherwise.
    """
    if plain if plain is not None else _plain(value):
        try:
            return orjson.dumps(value, option=_ORJSON_COMPACT).decode("utf-8")
        except orjson.JSONEncodeError:
            pass
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _subject_plain(subject: Subject) -> bool:
    # Subject.to_dict holds the subject's strings, its checks' strings, the checks' data and
    # the facts: only data and facts can hold other types, so only they are walked.
    strings = (subject.name, subject.outcome, subject.label)
    if not all(type(text) is str for text in strings) or not _plain(subject.facts):
        return False
    for check in subject.checks:
        texts = (check.id, check.status, check.reason, check.location)
        if not all(type(text) is str for text in texts):
            return False
        if check.data and not _plain(check.data):
            return False
    return True


def render(report: Report) -> str:
    """Serialize the report as documented in docs/report-format.md."""
    return dumps(report.to_dict()) + "\n"


def subject_text(subject: Subject) -> str:
    """One subject as it appears inside :func:`render`'s subjects list (indented for it).

    Written member by member (:func:`_subject_text_fast`) when every text of the subject and
    its checks is an exact ``str``; otherwise, and as the oracle, :func:`subject_text_reference`.
    """
    fast = _subject_text_fast(subject)
    return subject_text_reference(subject) if fast is None else fast


def subject_text_reference(subject: Subject) -> str:
    """:func:`subject_text` by encoding ``subject.to_dict()`` whole (the reference).

    JSON strings never hold a raw newline, so re-indenting line starts is exact.
    """
    text = dumps(subject.to_dict(), plain=_subject_plain(subject))
    return text.replace("\n", "\n    ")


# The fast writer lays out what encoding ``subject.to_dict()`` whole writes, member by member:
# the subject's members in sorted order (checks, facts, label, name, outcome) and each check's
# (data, id, location, reason, status), either indented as :func:`subject_text` places them
# (members at 6, checks at 8, their members at 10) or compact (:func:`subject_body`). A string
# is written by ``encode_basestring``, the standard library's own writer of a ``str`` when
# ``ensure_ascii=False`` (orjson writes every such string the same, tests/test_jsonfmt.py);
# data and facts by :func:`dumps` (re-indented: JSON strings hold no raw newline) or
# :func:`dumps_compact`. The text of a check without data is kept per (id, status, reason,
# location), at most ``_KEPT`` of them, none with a reason over ``_KEPT_LONGEST`` characters.
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


def _subject_fast(subject: Subject, layout: _Layout) -> str | None:
    """The subject's text in ``layout``, or None to leave it to the reference."""
    name, outcome, label = subject.name, subject.outcome, subject.label
    if not (type(name) is str and type(outcome) is str and type(label) is str):
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


_INDENTED = _layout(
    lambda depth: "\n" + " " * depth,
    " ",
    lambda value: dumps(value).replace("\n", "\n          "),
    lambda value: dumps(value).replace("\n", "\n      "),
)
_COMPACT_LAYOUT = _layout(lambda _: "", "", dumps_compact, dumps_compact)


def _subject_text_fast(subject: Subject) -> str | None:
    """:func:`subject_text_reference` written member by member, or None to leave it to it."""
    return _subject_fast(subject, _INDENTED)


def subject_body(subject: Subject) -> str:
    """``dumps_compact(subject.to_dict())``, written member by member when it can be."""
    fast = _subject_fast(subject, _COMPACT_LAYOUT)
    return subject_body_reference(subject) if fast is None else fast


def subject_body_reference(subject: Subject) -> str:
    """:func:`subject_body` by encoding ``subject.to_dict()`` whole (the reference)."""
    return dumps_compact(subject.to_dict(), plain=_subject_plain(subject))


def render_around_subjects(report: Report) -> tuple[str, str]:
    """The text of :func:`render` before and after the subjects of a report with subjects.

    ``head + SUBJECT_SEPARATOR.join(subject_text(s) for s in subjects) + tail`` is
    ``render(report)`` byte for byte; a long ``verify`` run spools the subjects meanwhile.
    Only the report's summary, findings and exit code are read, not its subjects.
    """
    text = render(dataclasses.replace(report, subjects=()))
    head, found, tail = text.partition(_SUBJECTS_EMPTY)
    assert found, "the report layout changed: update the spooled JSON form"
    return head + _SUBJECTS_OPEN, _SUBJECTS_CLOSE + tail
