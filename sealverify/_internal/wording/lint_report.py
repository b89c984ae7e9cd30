"""The ``lint`` report: each file a subject, CLEAN or VIOLATIONS, the exit code decided here.

``sealverify lint`` only finds and reads the files and the rule file, calls these, and writes
the report: the library and the command give one answer. A long run keeps flat memory the
same way: :func:`lint_subject` a file at a time, counted by :class:`LintTally`.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from pathlib import PurePosixPath

from sealverify._internal.results.model import Report, Status, Subject
from sealverify._internal.results.outcomes import Outcome, Vocabulary, decide, exit_code
from sealverify._internal.results.repeats import Findings
from sealverify._internal.wire.strictjson import JsonError, parse_bytes
from sealverify._internal.wording import rules as wording
from sealverify.errors import InputError

_FAIL = Status.FAIL

__all__ = [
    "LINTED_SUFFIXES",
    "VOCABULARY",
    "LintTally",
    "RuleSet",
    "lint_report",
    "lint_subject",
    "parse_rules",
]

RuleSet = wording.RuleSet
parse_rules = wording.parse_rules

# What a linted file is called under the one rule (results/outcomes.py ``decide``): a rule hit
# (a failed check) VIOLATIONS, else CLEAN.
VOCABULARY = Vocabulary(passed=Outcome.CLEAN, failed=Outcome.VIOLATIONS)
# What a directory is searched for; a file named explicitly is linted whatever its suffix.
LINTED_SUFFIXES = (".md", ".markdown", ".txt", ".json")
_BLOCK = 1 << 16  # bytes of a text given on at a time


def _checks(
    name: str, data: bytes | Iterable[bytes], rules: wording.RuleSet, where: str
) -> tuple[str, Findings]:
    suffix = PurePosixPath(name).suffix
    if suffix == ".json":
        try:
            document = parse_bytes(data if isinstance(data, bytes) else b"".join(data))
        except JsonError as exc:
            raise InputError(f"cannot lint {where}: not strict JSON ({exc})") from None
        if not isinstance(document, dict):
            raise InputError(f"cannot lint {where}: a receipt must be a JSON object")
        checks = wording.lint_receipt(document, None, rules)
        return "receipt", Findings(c for c in checks if c.status == _FAIL)
    lines = _decoded(_byte_lines(data) if isinstance(data, bytes) else data)
    try:
        return "text", wording.lint_lines(lines, rules, markdown=suffix in (".md", ".markdown"))
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot lint {where}: not UTF-8 ({exc.reason})") from None


def _byte_lines(data: bytes) -> Iterator[bytes]:
    """``data`` in blocks of whole lines (the last maybe without its line feed)."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + _BLOCK) + 1 or len(data)
        yield data[start:end]
        start = end


def _decoded(chunks: Iterable[bytes]) -> Iterator[str]:
    """``chunks`` decoded as UTF-8, given on in pieces of whole lines (a chunk cut anywhere)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    rest: list[str] = []  # the line being read, in the pieces its chunks brought
    for chunk in chunks:
        text = decoder.decode(chunk)
        cut = text.rfind("\n") + 1
        if cut:
            yield "".join([*rest, text[:cut]]) if rest else text[:cut]
            rest = []
        if cut < len(text):
            rest.append(text[cut:])
    rest.append(decoder.decode(b"", True))  # a cut sequence at the end raises here
    yield "".join(rest)


def lint_subject(
    name: str,
    data: bytes | Iterable[bytes],
    rules: wording.RuleSet = wording.DEFAULT_RULES,
    *,
    where: str = "",
) -> Subject:
    """One file linted as the report's subject: a receipt (``*.json``) or a text.

    ``name`` is the file as the report names it; its suffix says what it is (``.md`` and
    ``.markdown`` are Markdown, whose code is not linted). ``data`` is the file's bytes, or
    its lines as read (each ending with its line feed): a text is then held one paragraph
    at a time (docs/wording.md), a receipt whole. A rule hit a million times keeps its first
    hits located, the rest counted. Raises :class:`InputError` naming ``where`` (else
    ``name``) for a ``.json`` file that is not a strict JSON object, or a text not UTF-8.
    """
    kind, bad = _checks(name, data, rules, where or name)
    count = sum(bad.counts.values())
    kept = tuple(bad.checks())
    return Subject(
        name=name,
        outcome=decide(kept, VOCABULARY).outcome,
        checks=kept,
        facts={"kind": kind, "violations": count},
    )


class LintTally:
    """The counts of a run's subjects as they come, for a report written with flat memory."""

    def __init__(self) -> None:
        self.files = self.violations = 0

    def add(self, subject: Subject) -> Subject:
        """Count ``subject`` (a :func:`lint_subject`) and return it."""
        self.files += 1
        self.violations += subject.facts["violations"]
        return subject

    def report(self, subjects: tuple[Subject, ...] = ()) -> Report:
        """The report over what was counted; ``subjects`` empty when they were spooled."""
        summary = {"files": self.files, "violations": self.violations}
        # The subjects may have been spooled: the counts say whether any was VIOLATIONS.
        code = exit_code([VOCABULARY.failed if self.violations else VOCABULARY.passed])
        return Report("lint", subjects, summary, code, layout="rows")


def lint_report(
    files: Iterable[tuple[str, bytes]], rules: wording.RuleSet = wording.DEFAULT_RULES
) -> Report:
    """The report ``sealverify lint`` writes for ``files``, ``(name, bytes)`` pairs in order.

    Exit 0 when every file is CLEAN, 1 when any rule is violated. ``rules`` is the default rule
    set or one read by :func:`sealverify._internal.wording.rules.parse_rules` (``--rules``).
    """
    tally = LintTally()
    return tally.report(tuple(tally.add(lint_subject(n, data, rules)) for n, data in files))
