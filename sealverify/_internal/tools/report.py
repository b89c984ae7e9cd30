"""The ``tools digest`` and ``tools compare`` reports, their exit codes from the outcome table.

``sealverify tools`` only reads the files, calls these, and writes the report: the library
and the command give one answer. ``tools digest`` keeps flat memory: :class:`DigestRun` gives
a tool's subject at a time and the report over them after.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sealverify._internal.results.model import Check, Report, Status, Subject, fail, info, passed
from sealverify._internal.results.outcomes import Outcome, Vocabulary, decide, exit_code
from sealverify._internal.tools.capture import build_capture, declared_members
from sealverify._internal.tools.compare import Reading, compare, reader_environment
from sealverify._internal.tools.digests import (
    PROFILES,
    Listing,
    Profile,
    Unrepresentable,
    digest_tool,
    listing_findings,
    toolset_digest,
    unevaluated,
)
from sealverify._internal.tools.transcripts import TranscriptError, read_any
from sealverify._internal.wire.framing import Source
from sealverify._internal.wire.strictjson import JsonError, parse_bytes
from sealverify.errors import InputError, OptionError

_FAIL = Status.FAIL

__all__ = ["DigestRun", "ToolsSource", "compare_report", "digest_report", "profile_named"]


@dataclass(frozen=True, slots=True)
class ToolsSource:
    """One reading of a server's tools: a ``tools/list`` result or a captured stdio stream.

    ``requests`` is the client-to-server stream of the same session; ``capture`` a JSON
    object of capture members the bytes cannot show (else a ``capture`` member beside
    ``tools``). ``name`` and ``capture_name`` name them in errors and findings. ``data`` and
    ``requests`` are bytes, or a call that opens the stream afresh for each reading, which is
    then read a block at a time, one frame held, never the stream.
    """

    data: Source
    name: str = "tools"
    requests: Source | None = None
    capture: bytes | None = None
    capture_name: str = "--capture"


@dataclass(frozen=True, slots=True)
class _Read:
    listing: Listing
    block: dict[str, Any]
    findings: list[Check]


def profile_named(name: str) -> Profile:
    """The digest profile ``name`` (``heldfast`` or ``rugsnare``); :class:`OptionError` else."""
    try:
        return PROFILES[name]
    except KeyError:
        raise OptionError(
            f"unknown profile {name!r}: one of {', '.join(sorted(PROFILES))}"
        ) from None


def _declared(source: ToolsSource) -> tuple[Any, list[Check]]:
    """The declared capture of ``source.capture`` and the findings on it.

    A number it cannot hold is a finding, as for a ``capture`` member beside ``tools``
    (``tools.input.bad-capture``); a file that is not JSON cannot be run (:class:`InputError`).
    """
    if source.capture is None:
        return None, []
    try:
        parsed = parse_bytes(source.capture)
    except JsonError as exc:
        raise InputError(f"--capture {source.capture_name}: not strict JSON: {exc}") from None
    try:
        return declared_members(parsed), []
    except Unrepresentable as exc:
        where = source.capture_name
        return None, [fail("tools.input.bad-capture", f"declared capture unreadable: {exc}", where)]


def _read(source: ToolsSource) -> _Read:
    try:
        listing = read_any(source.data, source.requests)
    except TranscriptError as exc:
        raise InputError(f"{source.name}: {exc}") from None
    declared, declared_findings = _declared(source)
    if declared is None and not declared_findings:
        declared = listing.declared_capture
    block, capture_findings = build_capture(listing, declared)
    findings = listing_findings(listing) + declared_findings + capture_findings
    return _Read(listing, block, findings)


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# The verdict words of ``tools digest`` (reports/outcomes.decide), over a subject's digest
# checks: a digest computed is DIGESTED; one not computed (not evaluated) or a tool set that
# could not be digested (failed) is UNDIGESTED. A definition that quotes the reader's
# environment is flagged beside its digest (the run fails), not judged into the word.
VOCABULARY = Vocabulary(
    passed=Outcome.DIGESTED, failed=Outcome.UNDIGESTED, not_evaluated=Outcome.UNDIGESTED
)


class DigestRun:
    """One ``tools digest`` run: :meth:`subjects` a tool at a time, then :meth:`report`.

    Raises :class:`InputError` when the source (or its declared capture) cannot be read.
    """

    def __init__(
        self, source: ToolsSource, profile: Profile, placeholders: tuple[str, ...] = ()
    ) -> None:
        self.profile, self.placeholders = profile, placeholders
        read = _read(source)
        self.listing, self.block, self.findings = read.listing, read.block, read.findings
        self.digests: list[Any] = []
        self.set_digest: str | None = None
        self._outcomes: set[Outcome] = set()  # every subject's, kept for a spooled report
        self._flagged = False  # a subject with a failing check

    def _tool_subject(self, location: str, tool: Any, home: Any) -> Subject:
        profile = self.profile
        d = digest_tool(tool, profile, location)
        self.digests.append(d)
        checks: list[Check] = [
            unevaluated(d)
            if d.digest is None
            else passed("tools.digest.computed", f"{profile.id} digest computed", location)
        ]
        outcome = decide(checks, VOCABULARY).outcome  # the digest's word, before any flag
        for where in reader_environment(tool, home, self.placeholders):
            checks.append(
                fail(
                    "tools.capture.reader-environment",
                    "the definition quotes the reader's home directory or a placeholder value "
                    "(capture rule 4); this digest identifies the reader",
                    location + where,
                )
            )
        facts: dict[str, Any] = {"profile": profile.id, "digest": d.digest, "capture": self.block}
        facts.update(d.extra)
        self._flagged |= any(c.status == _FAIL for c in checks)
        self._outcomes.add(outcome)
        return Subject(
            d.name, outcome, tuple(checks), facts, label=f"{profile.id} {d.digest or '-'}"
        )

    def _set_subject(self) -> Subject:
        digests = self.digests
        self.set_digest = toolset_digest(digests, self.profile) if self.listing.pages else None
        set_id = f"{self.profile.id}+set-v1"
        set_checks = (
            passed("tools.set.computed", f"{set_id} over {len(digests)} tool(s)")
            if self.set_digest
            else fail(
                "tools.set.not-computed",
                "no tool-set digest: a tool has no digest, names repeat, or no listing was found",
            ),
        )
        outcome = decide(set_checks, VOCABULARY).outcome
        self._outcomes.add(outcome)
        facts = {"profile": set_id, "digest": self.set_digest, "tools": len(digests)}
        return Subject(
            "(tool set)",
            outcome,
            set_checks,
            {**facts, "capture": self.block},
            label=f"{set_id} {self.set_digest or '-'}",
        )

    def subjects(self) -> Iterator[Subject]:
        """Each tool's subject as it is digested, then the tool set's."""
        home = self.block.get("launch", {}).get("home")
        for location, tool in self.listing.tools:
            yield self._tool_subject(location, tool, home)
        yield self._set_subject()

    def report(self, subjects: tuple[Subject, ...] = ()) -> Report:
        """The report once :meth:`subjects` is exhausted; ``subjects`` empty when spooled.

        Exit 0 when every tool was digested over a complete list with nothing flagged, else 1.
        """
        profile, block = self.profile, self.block
        findings = [*self.findings, info("tools.capture", "capture " + _compact(block))]
        described = "; ".join(f"{k}: {v}" for k, v in profile.describe().items() if k != "id")
        findings.append(info("tools.profile", f"{profile.id}: {described}"))
        failed = any(c.status == _FAIL for c in findings) or self._flagged
        summary = {
            "profile": profile.id,
            "tools": len(self.digests),
            "digested": sum(1 for d in self.digests if d.digest),
            "toolset_digest": self.set_digest,
            "complete": block["pages"]["complete"],
            "pages": block["pages"]["read"],
        }
        ordered = tuple(sorted(findings, key=lambda c: (c.id, c.location)))
        # A tool or the set not digested (UNDIGESTED) fails the run, as a flagged tool does.
        code = exit_code(self._outcomes, failed)
        return Report("tools digest", subjects, summary, code, ordered)


def digest_report(
    source: ToolsSource, profile: str = "heldfast", placeholders: tuple[str, ...] = ()
) -> Report:
    """The report ``sealverify tools digest`` writes: every tool digested under ``profile``.

    ``placeholders`` are values the reader gave the server; a definition quoting one (or the
    reader's home directory) is flagged, the value never printed.
    """
    run = DigestRun(source, profile_named(profile), placeholders)
    return run.report(tuple(run.subjects()))


def compare_report(
    a: ToolsSource, b: ToolsSource, profile: str = "heldfast", placeholders: tuple[str, ...] = ()
) -> Report:
    """The report ``sealverify tools compare`` writes for two readings of a server's tools.

    Exit 0 when both lists are complete, their captures match and no tool drifted or was
    flagged; 1 for drift, a capture difference, an incomplete list or a flag.
    """
    chosen = profile_named(profile)
    read_a, read_b = _read(a), _read(b)
    preamble = (
        *(
            Check(c.id, c.status, f"reading {side}: {c.reason}", f"{side}:{c.location}", c.data)
            for side, read in (("A", read_a), ("B", read_b))
            for c in read.findings
        ),
        info("tools.capture", f"A {_compact(read_a.block)}", "A"),
        info("tools.capture", f"B {_compact(read_b.block)}", "B"),
    )
    return compare(
        Reading("A", read_a.listing.tools, read_a.block),
        Reading("B", read_b.listing.tools, read_b.block),
        chosen,
        placeholders,
        preamble,
    )
