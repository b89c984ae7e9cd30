"""The JSON report format: sorted keys, two-space indent, UTF-8, byte-stable."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import orjson

from sealverify._internal import fastpath
from sealverify._internal.reports.formats.grid import View
from sealverify._internal.reports.formats.protocol import AroundStream, Context, Piece, Stream
from sealverify._internal.reports.formats.table import receipt_row_subject
from sealverify._internal.results.model import Report, Status, Subject
from sealverify._internal.results.outcomes import Outcome
from sealverify._internal.results.vocabulary import Family, Role

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


# The report's words are ``str`` enums (results/outcomes.py, results/vocabulary.py): each is its
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
    sort_keys=True, indent=2, ensure_ascii=False)`` writes (tests/reports/test_jsonfmt.py). Floats
    are the exception that would pass silently (orjson spells ``1e16`` and NaN differently), so
    they, and every other type, take the standard library's encoder.
    """
    kind = type(value)
    if kind is str or kind in _WORDS or kind is bool or value is None:
        return True
    if kind is int:
        return value in _INT_RANGE
    if kind is dict:
        for key, item in value.items():  # a leaf is told here, without a call
            if type(key) is not str:
                return False
            if type(item) not in _LEAVES and not _plain(item):
                return False
        return True
    if kind is list or kind is tuple:
        return all(type(item) in _LEAVES or _plain(item) for item in value)
    return False


def dumps(value: Any, *, plain: bool | None = None) -> str:
    """``json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)``, exactly.

    orjson writes it when the value is :func:`_plain` (``plain`` says so when the caller
    knows), and the standard library does otherwise, whenever orjson refuses (lone
    surrogates) and in reference mode (:func:`sealverify._internal.fastpath.reference`).
    """
    if not fastpath.reference() and (plain if plain is not None else _plain(value)):
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
    if not fastpath.reference() and (plain if plain is not None else _plain(value)):
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

    Encoded by orjson in one call (:func:`_subject_whole`) when every text of the subject and
    its checks is an exact ``str`` (the outcome may be an ``Outcome``) and its data and facts
    are :func:`_plain`; otherwise, and in reference mode, :func:`subject_text_reference`.
    """
    data = None if fastpath.reference() else _subject_indented(subject)
    return subject_text_reference(subject) if data is None else data.decode("utf-8")


def subject_bytes(subject: Subject) -> bytes:
    """:func:`subject_text` as UTF-8: what a spooled report writes, never decoded on the way."""
    data = None if fastpath.reference() else _subject_indented(subject)
    return subject_text_reference(subject).encode() if data is None else data


def _subject_indented(subject: Subject) -> bytes | None:
    return _subject_whole(subject, _ORJSON, in_report=True)


def subject_text_reference(subject: Subject) -> str:
    """:func:`subject_text` by encoding ``subject.to_dict()`` whole (the reference).

    JSON strings never hold a raw newline, so re-indenting line starts is exact.
    """
    text = dumps(subject.to_dict(), plain=_subject_plain(subject))
    return text.replace("\n", "\n    ")


def subject_body(subject: Subject) -> str:
    """``dumps_compact(subject.to_dict())``, by one orjson call when it can be."""
    if not fastpath.reference():
        data = _subject_whole(subject, _ORJSON_COMPACT)
        if data is not None:
            return data.decode("utf-8")
    return subject_body_reference(subject)


def subject_body_reference(subject: Subject) -> str:
    """:func:`subject_body` by encoding ``subject.to_dict()`` whole (the reference)."""
    return dumps_compact(subject.to_dict(), plain=_subject_plain(subject))


# A subject's JSON text is one orjson call over ``subject.to_dict()`` once the subject passes
# ``_subject_plain``'s test. Both are made here in one pass over the sorted checks: each
# check's texts are tested and its ``Check.to_dict`` built (the same members, the status as
# its plain word), or, for a check without data, its row's text taken (``_row_text``).
_WORD_OF: dict[str, str] = {status: str(status) for status in Status}


def _row(check_id: str, status: str, reason: str, location: str) -> dict[str, Any]:
    """``Check.to_dict`` without its data, the status as its plain word."""
    row: dict[str, Any] = {"id": check_id, "status": _WORD_OF.get(status, status), "reason": reason}
    if location:
        row["location"] = location
    return row


# A check without data is a row of four texts, and most of a receipt's checks pass with a
# fixed text: each such row is encoded once, laid out at the depth it takes (a row of a
# subject's ``checks``, two levels below the subject, which sits two levels into a report),
# and orjson writes the kept text where the row goes. A pure function of its texts, bounded
# in entries like the passing checks it mirrors (results/model.py ``_pass``); none kept in
# reference mode, which never comes here.
_ROW_INDENT = b"\n    "  # the two levels a row sits below a subject's top, two spaces each
_REPORT_INDENT = b"\n        "  # and a subject's two levels in a report
# A subject as it sits in a report is encoded two levels down, as the only item of a list
# in a list, and cut out of it: the indented text holds these bytes around the subject.
_NESTED_HEAD = b"[\n  [\n    "
_NESTED_TAIL = b"\n  ]\n]"


@fastpath.cache(maxsize=4096)
def _row_text(
    check_id: str, status: str, reason: str, location: str, option: int, in_report: bool
) -> orjson.Fragment:
    """The row of a check without data as :func:`_subject_whole` writes it under ``option``."""
    data = orjson.dumps(_row(check_id, status, reason, location), option=option)
    if option & orjson.OPT_INDENT_2:
        data = data.replace(b"\n", _REPORT_INDENT if in_report else _ROW_INDENT)
    return orjson.Fragment(data)


def _subject_whole(subject: Subject, option: int, in_report: bool = False) -> bytes | None:
    """``subject.to_dict()`` encoded by orjson with ``option``, or None to leave it to json.

    ``in_report`` (with ``OPT_INDENT_2``): every line after the first indented four spaces
    more, as the subject sits in a report's ``subjects`` list.
    """
    own = (subject.name, subject.outcome, subject.label)
    if not _TEXTS.issuperset(map(type, own)) or not _plain(subject.facts):
        return None
    rows: list[dict[str, Any] | orjson.Fragment] = []
    for check in subject.sorted_checks():
        check_id, status, reason, location = check.id, check.status, check.reason, check.location
        if (
            type(check_id) is not str
            or type(reason) is not str
            or type(location) is not str
            or type(status) not in _STATUSES
        ):
            return None
        data = check.data
        if not data:  # most checks: their row is the same text in every subject
            try:
                rows.append(_row_text(check_id, status, reason, location, option, in_report))
            except orjson.JSONEncodeError:  # a lone surrogate: the standard library writes it
                return None
            continue
        if not _plain(data):
            return None
        row = _row(check_id, status, reason, location)
        row["data"] = data
        rows.append(row)
    whole: dict[str, Any] = {
        "name": subject.name,
        "outcome": subject.outcome,
        "checks": rows,
        "facts": subject.facts,
    }
    if subject.label:
        whole["label"] = subject.label
    try:
        if not in_report:
            return orjson.dumps(whole, option=option)
        nested = orjson.dumps([[whole]], option=option)
    except orjson.JSONEncodeError:  # a lone surrogate: the standard library writes it
        return None
    return nested[len(_NESTED_HEAD) : -len(_NESTED_TAIL)]


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
