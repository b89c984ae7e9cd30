"""The ``approval`` report: each token line a subject, the outcome and exit code decided here.

``sealverify approval`` only reads the token files and the frame, calls these, and writes the
report: the library and the command give one answer, the published-key cap and the waivers
included (:func:`sealverify._internal.approvals.tokens.check_token`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sealverify._internal.approvals.tokens import check_token
from sealverify._internal.primitives.signatures import key_id
from sealverify._internal.results import ids
from sealverify._internal.results.model import Check, Report, Status, Subject, info
from sealverify._internal.results.outcomes import EXIT_CODES, Outcome, worst_code
from sealverify._internal.results.waivers import waivable, waived_ids
from sealverify._internal.wire.framing import stdio_frame_count
from sealverify._internal.wire.strictjson import JsonValue
from sealverify.errors import OptionError

_NOT_EVALUATED, _WAIVED = Status.NOT_EVALUATED, Status.WAIVED

# EXIT_CODES (sealverify._internal.results.outcomes) gives a token's outcome its exit code; the
# run's code is the worst token's.
__all__ = ["EXIT_CODES", "ApprovalOptions", "ApprovalTally", "approval_report", "approval_subject"]


@dataclass(frozen=True, slots=True)
class ApprovalOptions:
    """What every token of one run is judged against (``sealverify approval``'s options).

    ``at_ms`` is the time expiry is judged at: a time the caller names (``--at``), or, with
    ``clock``, the current time the caller read (the library never reads the clock).
    ``waive`` holds legacy check ids (:data:`sealverify._internal.results.waivers.WAIVABLE` only).
    Raises :class:`OptionError` for a waiver never given or a frame that is not one frame.
    """

    approver_key: bytes
    frame: bytes
    at_ms: int
    clock: bool = False
    server: str = ""
    target_spec: JsonValue | None = None
    allow_published_keys: bool = False
    waive: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        waivable(self.waive)
        if stdio_frame_count(self.frame) != 1:
            raise OptionError("the frame must hold exactly one frame (one line)")

    @property
    def at_what(self) -> str:
        """How the reasons name the time expiry is judged at."""
        return "the current time; pass --at to judge at another" if self.clock else "--at"


def approval_subject(line: bytes, location: str, options: ApprovalOptions) -> Subject:
    """One token line judged (:func:`check_token`) as the report's subject, outcome decided."""
    result = check_token(
        line,
        options.approver_key,
        frame=options.frame,
        server=options.server,
        at_ms=options.at_ms,
        location=location,
        target_spec=options.target_spec,
        at_what=options.at_what,
        allow_published_keys=options.allow_published_keys,
        waive=options.waive,
    )
    checks = result.checks
    pending = sorted({c.id for c in checks if c.status == _NOT_EVALUATED})
    label = ("not evaluated: " + ", ".join(pending)) if pending else ""
    facts: dict[str, Any] = {k: v for k, v in result.facts.items() if v is not None}
    facts["kind"] = result.kind
    if any(c.status == _WAIVED for c in checks):
        facts["waived"] = waived_ids(checks)
    return Subject(location, result.outcome, checks, facts, label)


class ApprovalTally:
    """The counts of a run's subjects as they come, for a report written with flat memory."""

    def __init__(self, options: ApprovalOptions) -> None:
        self.options = options
        self.tokens = self.bad = self.unpinned = 0
        self._worst = 0
        self._pinned_id = key_id(options.approver_key)
        self._signers: Counter[str] = Counter()  # key ids the tokens name (distinct: bounded)

    def add(self, subject: Subject) -> Subject:
        """Count ``subject`` (an :func:`approval_subject`) and return it."""
        self.tokens += 1
        self.bad += subject.outcome in (Outcome.INVALID, Outcome.REFUSED)
        self.unpinned += subject.outcome == Outcome.UNPINNED
        self._worst = worst_code((self._worst, EXIT_CODES[subject.outcome]))
        signer = subject.facts.get("signer_key_id")
        if isinstance(signer, str) and (signer in self._signers or len(self._signers) < 1000):
            self._signers[signer] += 1
        return subject

    def pin_note(self) -> Check | None:
        """``authority.pin-unmatched`` when no token names the pinned key and some name others.

        A wrong ``--approval-pubkey`` makes every token INVALID as a forged one would; the
        note names the pin and the key ids the tokens do name (most tokens first, up to five),
        as verify's note on its pins does (receipts/pin_use.py).
        """
        if not self._signers or self._pinned_id in self._signers:
            return None
        named = self._signers.most_common(5)
        carried = ", ".join(f"{value[:16]}… ({n} token(s))" for value, n in named)
        pin = self.options.approver_key.hex()
        return info(
            ids.AUTHORITY_PIN_UNMATCHED,
            f"pinned approver key {pin[:16]}… (--approval-pubkey, key id "
            f"{self._pinned_id[:16]}…) matched no token: the tokens name the signer key id(s) "
            f"{carried}; a pin that matches nothing makes every token fail as a forgery would, "
            "so check the pin with the approver",
            "",
            kind="approval",
            pin=pin,
            carried=[{"value": value, "tokens": n} for value, n in named],
        )

    def report(self, subjects: tuple[Subject, ...] = ()) -> Report:
        """The report over what was counted; ``subjects`` empty when they were spooled."""
        summary = {
            "tokens": self.tokens,
            "invalid": self.bad,
            "unpinned": self.unpinned,
            "allow_published_keys": self.options.allow_published_keys,
            "expiry_judged_at": "current time" if self.options.clock else "--at",
        }
        note = self.pin_note()
        findings = (note,) if note is not None else ()
        return Report("approval", subjects, summary, self._worst, findings, layout="detail")


def approval_report(tokens: Iterable[tuple[str, bytes]], options: ApprovalOptions) -> Report:
    """The report ``sealverify approval`` writes for ``tokens``, the run's exit code decided.

    ``tokens`` are ``(location, line)`` pairs as :func:`split_tokens` gives them. Exit 0 when
    every token is VALID or a DECLINE, 1 when any is INVALID or REFUSED, else 3 when any is
    UNPINNED (a valid token under a published approver key).
    """
    tally = ApprovalTally(options)
    subjects = tuple(tally.add(approval_subject(line, where, options)) for where, line in tokens)
    return tally.report(subjects)
