"""Session passes: one session's receipts re-derived in call order, their positions held.

Kernel state is never in a receipt (seal-host@099be66 ``Host/Registry.lean``: every kernel's
state is an ``IO.Ref`` of the session), so a session's later calls re-derive only after the
calls before them. Each receipt claims its place through its temporal cert: ``trace ok (N
events)`` says N - 1 calls of the session executed before it (``Kernels/Temporal.lean``: the
trace grows only on a combined allow, ``Host/Registry.lean`` ``dispatch``). A pass feeds the
receipts to one model session in order and holds those claims to each other and to the state
the model carries:

* a position no earlier claim or state allows (a second executed call at the same position,
  a position below one an executed call already took) is ``fail``; the state after a receipt
  that is refuted is unknown, so the receipts after it are ``not-evaluated``;
* the session's first call missing, or a gap (a position past the next one), leaves that
  receipt and every later one ``not-evaluated``, named: the state between is unknown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

import orjson

from sealverify._internal.kernel.ljson import ModelLimit
from sealverify._internal.kernel.receipt_inputs import Frames, NotEvaluated, prepare
from sealverify._internal.kernel.replay import (
    Rederivation,
    _position_gap,
    _run,
    _start,
    known_line,
)
from sealverify._internal.kernel.session import KernelSession
from sealverify._internal.wire.strictjson import JsonValue

__all__ = ["Claim", "SessionPass", "claim_of", "rederive_log", "session_of"]


class Claim(NamedTuple):
    """What a receipt says of its place: the position its trace claims, whether it executed."""

    position: int | None  # N of "trace ok (N events)"; None for a temporal deny
    executed: bool  # route "forward": the call ran and the trace grew


def session_of(receipt: dict[str, JsonValue]) -> str | None:
    """The session a receipt names (``effect_view.session``), read from the parsed document."""
    view = receipt.get("effect_view")
    session = view.get("session") if isinstance(view, dict) else None
    return session if isinstance(session, str) and session else None


def claim_of(emitted: object) -> Claim | None:
    """The place ``emitted_bytes`` claims, or None when it has no temporal cert to claim one.

    Read from the parsed value of ``emitted_bytes`` (escapes already decoded), so no spelling
    of the receipt's bytes hides a claim; the claim is only compared, never trusted.
    """
    if not isinstance(emitted, str):
        return None
    try:
        out = orjson.loads(emitted)
        audit = orjson.loads(out["audit"]) if isinstance(out, dict) else None
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return None
    certs = audit.get("certs") if isinstance(audit, dict) else None
    for cert in certs if isinstance(certs, list) else []:
        if isinstance(cert, dict) and cert.get("kernel") == "temporal":
            reason = cert.get("reason")
            if not isinstance(reason, str):
                return None
            executed = out.get("route") == "forward"
            if reason.startswith("trace ok (") and reason.endswith(" events)"):
                digits = reason[len("trace ok (") : -len(" events)")]
                if digits.isascii() and digits.isdigit() and len(digits) <= 18:
                    return Claim(int(digits), executed)
                return None
            return Claim(None, executed) if reason.startswith("temporal policy") else None
    return None


class SessionPass:
    """One session's pass: its receipts fed in call order, the model's kernel state carried.

    ``feed`` takes each receipt with where it was read (``line 7``, a file name) so a finding
    names the other receipt. The pass starts at the session's first call; later receipts
    must share its build and config. Once a step cannot be re-derived, the state after it is
    unknown and later receipts are not evaluated (their claims are still held consistent).
    """

    def __init__(self, session: str, order: str = "log order") -> None:
        self.name = session
        self.order = order
        self.session: KernelSession | None = None
        self.key: tuple[str, str] | None = None
        self.stopped: str | None = None
        self.count = 0
        # Positions claimed by executed calls so far, each with where its receipt was read.
        self.executed: dict[int, str] = {}

    def feed(
        self,
        receipt: dict[str, JsonValue],
        raw_line: bytes | None,
        where: str,
        contradiction: str | None = None,
        frames: Frames | None = None,
    ) -> Rederivation:
        """Re-derive the next receipt of the session.

        ``contradiction`` names what other receipts of the run refute in this one (its
        operation in another session): it is ``fail`` without being run, like a refuted step.
        ``frames`` are the receipt's carried frames as its reader decoded them (``prepare``).
        """
        self.count += 1
        claim = claim_of(receipt.get("emitted_bytes"))
        if contradiction is not None:
            result = Rederivation("fail", contradiction, difference=contradiction)
        else:
            result = self._clash(claim) or self._step(receipt, raw_line, where, claim, frames)
        if result.status == "fail":
            # The receipt lies about its call, so what the call did to the state is unknown;
            # its claim is not held against the receipts after it either.
            if self.stopped is None:
                self.stopped = (
                    f"an earlier receipt of the session ({where}) was refuted, so the kernel "
                    "state after it is unknown"
                )
        elif claim is not None and claim.executed and claim.position is not None:
            self.executed[claim.position] = where
        return result

    def _step(
        self,
        receipt: dict[str, JsonValue],
        raw_line: bytes | None,
        where: str,
        claim: Claim | None,
        frames: Frames | None,
    ) -> Rederivation:
        inputs = prepare(receipt, raw_line, frames)
        if isinstance(inputs, NotEvaluated) and not isinstance(receipt.get("emitted_bytes"), str):
            # No kernel output (a bypass): the kernel never saw the call, its state is unchanged.
            return Rederivation("not-evaluated", f"decision not re-derived: {inputs.reason}")
        if isinstance(inputs, NotEvaluated):  # its own reason first: it holds with any state
            return self._stop(inputs.reason, where)
        if self.stopped is not None:
            return Rederivation("not-evaluated", f"decision not re-derived: {self.stopped}")
        key = (inputs.profile.wasm_sha256, inputs.payload)
        if self.session is None:
            gap = _position_gap(inputs)
            if gap is not None:
                return self._stop(
                    f"the session's first call is not among its receipts here: {gap}", where
                )
            try:
                started = _start(inputs)
            except ModelLimit as exc:
                return self._stop(f"outside this model's limits ({exc})", where)
            if isinstance(started, Rederivation):
                self.stopped = f"the session's config was refused ({where})"
                return started
            self.session, self.key = started, key
        elif key != self.key:
            return self._stop("the session's receipts name different builds or configs", where)
        after = self.session.state.temporal.length
        if claim is not None and claim.position is not None and claim.position > after + 1:
            return self._stop(
                f"a gap in session {self.name}: {after} of its calls executed before this "
                f"receipt in {self.order}, which claims position {claim.position}; "
                f"position {after + 1} is not among its receipts here",
                where,
            )
        # The reader's parse of the judged line, when it is of these very bytes.
        self.session.known = known_line(inputs, frames)
        try:
            result = _run(self.session, inputs)
        except ModelLimit as exc:
            return self._stop(f"outside this model's limits ({exc})", where)
        if result.status == "not-evaluated":
            self.stopped = f"an earlier receipt of the session ({where}) was not re-derived"
        elif result.status == "pass":
            suffix = f" (call {self.count} of its session in {self.order})"
            result = replace(result, reason=result.reason + suffix)
        return result

    def _clash(self, claim: Claim | None) -> Rederivation | None:
        """A position the session's executed calls already rule out, as ``fail``."""
        if claim is None or claim.position is None:
            return None
        taken = max(self.executed, default=0)
        if claim.position <= taken:
            other = self.executed.get(claim.position) or self.executed[taken]
            said = "also" if claim.position in self.executed else "after"
            difference = (
                f"position: the receipt claims position {claim.position} of session "
                f"{self.name}, {said} the executed call at position "
                f"{claim.position if said == 'also' else taken} ({other})"
            )
            return Rederivation(
                "fail",
                f"the receipts of session {self.name} contradict each other: {difference}",
                difference=difference,
            )
        return None

    def _stop(self, cause: str, where: str) -> Rederivation:
        if self.stopped is None:
            self.stopped = f"an earlier receipt of the session ({where}) was not re-derived: " + (
                cause
            )
        return Rederivation("not-evaluated", f"decision not re-derived: {cause}")


def rederive_log(
    receipts: Sequence[tuple[dict[str, JsonValue], bytes | None]],
) -> list[Rederivation]:
    """Re-derive the receipts of one session in log order (see :class:`SessionPass`)."""
    session_pass = SessionPass("(one session)")
    return [session_pass.feed(doc, raw, f"receipt {n}") for n, (doc, raw) in enumerate(receipts, 1)]
