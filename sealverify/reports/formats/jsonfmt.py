"""The JSON report format: sorted keys, two-space indent, UTF-8, byte-stable."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import orjson

from sealverify.fastpath import declined
from sealverify.reports.formats.grid import View
from sealverify.reports.formats.protocol import AroundStream, Context, Piece, Stream
from sealverify.reports.formats.table import receipt_row_subject
from sealverify.reports.model import Report, Status, Subject
from sealverify.reports.outcomes import Outcome
from sealverify.reports.vocabulary import Family, Role

__all__ = [
    "FORMAT",
    "SUBJECT_SEPARATOR",
    "JsonFormat",
    "document",
    "dumps",
    "dumps_compact",
    "render",
    "render_around_subjects",
    "subject_body",
    "subject_body_reference",
    "subject_bytes",
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


# The report's words are ``str`` enums (reports/outcomes.py, reports/vocabulary.py): each is its
# word to both encoders (orjson writes an enum's value, the standard library the str it is).
_WORDS = (Outcome, Status, Family, Role)
_TEXTS = frozenset((str, *_WORDS))
_LEAVES = frozenset((str, bool, type(None), *_WORDS))  # plain whatever their value
_KEYS = frozenset((str,))
_STATUSES = frozenset((str, Status))  # a check's status: its member, or its word read back


def _plain(value: Any) -> bool:
    """Whether ``value`` holds only exact dict (str keys), list, tuple, str, int, bool, None.

    A report's words (``Outcome``, ``Status``, ``Family``, ``Role``) count as str.

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
    if kind is str or kind in _WORDS or kind is bool or value is None:
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
    if not _TEXTS.issuperset(map(type, strings)) or not _plain(subject.facts):
        return False
    for check in subject.checks:
        texts = (check.id, check.reason, check.location)
        if not all(type(text) is str for text in texts) or type(check.status) not in _STATUSES:
            return False
        if check.data and not _plain(check.data):
            return False
    return True


def render(report: Report) -> str:
    """Serialize the report as documented in docs/report-format.md."""
    return dumps(report.to_dict()) + "\n"


def subject_text(subject: Subject) -> str:
    """One subject as it appears inside :func:`render`'s subjects list (indented for it).

    Encoded by orjson in one call (``reports/fast.py``) when every text of the subject and
    its checks is an exact ``str`` (the outcome may be an ``Outcome``) and its data and facts
    are :func:`_plain`; otherwise, and as the oracle, :func:`subject_text_reference`.
    """
    fast = _subject_bytes_fast(subject)
    return subject_text_reference(subject) if fast is None else fast.decode("utf-8")


def subject_bytes(subject: Subject) -> bytes:
    """:func:`subject_text` as UTF-8: what a spooled report writes, never decoded on the way."""
    fast = _subject_bytes_fast(subject)
    return subject_text_reference(subject).encode() if fast is None else fast


def subject_text_reference(subject: Subject) -> str:
    """:func:`subject_text` by encoding ``subject.to_dict()`` whole (the reference).

    JSON strings never hold a raw newline, so re-indenting line starts is exact.
    """
    text = dumps(subject.to_dict(), plain=_subject_plain(subject))
    return text.replace("\n", "\n    ")


def subject_body(subject: Subject) -> str:
    """``dumps_compact(subject.to_dict())``, by one orjson call when it can be."""
    fast = _subject_body_fast(subject)
    return subject_body_reference(subject) if fast is None else fast


def subject_body_reference(subject: Subject) -> str:
    """:func:`subject_body` by encoding ``subject.to_dict()`` whole (the reference)."""
    return dumps_compact(subject.to_dict(), plain=_subject_plain(subject))


# The fast writers of a subject (sealverify/reports/fast.py: its plain test at C speed, then
# one orjson call) are bound here when that module is imported; until then, and under
# SEALVERIFY_REFERENCE=1, every subject is judged and encoded by the references.
_subject_bytes_fast: Callable[[Subject], bytes | None] = declined
_subject_body_fast: Callable[[Subject], str | None] = declined


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


def document(value: Any) -> str:
    """A listing that is not a report (``explain``, ``inventory``): its members as given."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


class _Stream(AroundStream):
    """The subjects list spooled; the head and tail are the rest of the document."""

    separator = SUBJECT_SEPARATOR.encode()

    def whole_when_empty(self) -> bool:
        # verify writes its (maybe empty) list opened and closed as spooled, as it always has
        return self.context.layout != "receipts"

    def around(self, bare: Report) -> tuple[str, str]:
        return render_around_subjects(bare)


class JsonFormat:
    """The json format's side of the streaming interface (``protocol.Format``)."""

    name = "json"
    page = False
    coloured = False

    def render(self, report: Report, view: View | None = None) -> str:
        return render(report)

    def fragment(self, subject: Subject, context: Context) -> tuple[Subject, Piece]:
        if context.layout == "receipts":  # the parent keeps only what the summary counts
            return receipt_row_subject(subject), subject_bytes(subject)
        return subject, subject_bytes(subject)

    def stream(self, context: Context) -> Stream:
        return _Stream(context, render)

    def document(self, value: Any, text: Callable[[], str]) -> str:
        return document(value)


FORMAT = JsonFormat()
