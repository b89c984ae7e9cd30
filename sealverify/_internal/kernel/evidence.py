"""Per-step evidence as the kernel parses it: approvals, votes, grants and forecast records.

Mirrors seal-host ``Host/Evidence.lean``. Every parser is fail-closed by omission: a line or
record that does not parse simply does not exist (which can only shrink a quorum, a grant or a
calibration window). Evidence lines carrying an exponent of more than 6 digits are dropped before
parsing (``wireNumbersSafe``). Approval deadlines are ``min(issuedAt, now) + ttl``, so a record
can only make an approval expire sooner than ``now + ttl``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sealverify._internal.kernel.guards import numbers_safe
from sealverify._internal.kernel.ljson import LeanError, LValue, ModelLimit, is_nat, parse
from sealverify._internal.kernel.lpath import trim_ascii
from sealverify._internal.wire.leanjson import LeanNumber, number_text

__all__ = [
    "Approval",
    "Forecast",
    "approval_events",
    "json_number_to_float",
    "parse_forecasts",
    "parse_grants",
    "parse_votes",
]

_HEX_LOWER = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class Approval:
    """``SealCore.Event.approval``: a guard target and its absolute deadline (ms)."""

    target: str
    deadline: int


@dataclass(frozen=True, slots=True)
class Forecast:
    """``ForecastRecord``: a stated confidence (a Lean ``Float``) and a binary outcome."""

    confidence: float
    outcome: bool


def _lines(text: str) -> list[LValue]:
    values: list[LValue] = []
    for raw in text.split("\n"):
        line = trim_ascii(raw)
        if not line or not numbers_safe(line):
            continue
        try:
            values.append(parse(line))
        except (LeanError, ModelLimit):
            continue
    return values


def _member(value: LValue, key: str) -> LValue | None:
    if isinstance(value, dict) and key in value:
        return value[key]
    return None


def parse_votes(text: str) -> list[tuple[int, str]]:
    """``parseVotesText``: ``{"acceptor": <nat>, "value": "<string>"}`` lines."""
    votes: list[tuple[int, str]] = []
    for value in _lines(text):
        acceptor, choice = _member(value, "acceptor"), _member(value, "value")
        if isinstance(acceptor, LeanNumber) and is_nat(acceptor) and isinstance(choice, str):
            votes.append((int(acceptor.digits), choice))
    return votes


def parse_grants(text: str) -> list[tuple[str, int]]:
    """``parseGrantsText``: ``{"cap": "<id>", "uses": <nat>}`` lines."""
    grants: list[tuple[str, int]] = []
    for value in _lines(text):
        cap, uses = _member(value, "cap"), _member(value, "uses")
        if isinstance(cap, str) and isinstance(uses, LeanNumber) and is_nat(uses):
            grants.append((cap, int(uses.digits)))
    return grants


def parse_forecasts(text: str) -> list[Forecast]:
    """``parseForecastsText``: ``{"confidence": <number>, "outcome": 0|1}`` lines."""
    forecasts: list[Forecast] = []
    for value in _lines(text):
        confidence, outcome = _member(value, "confidence"), _member(value, "outcome")
        if not isinstance(confidence, LeanNumber):
            continue
        if not (isinstance(outcome, LeanNumber) and is_nat(outcome)):
            continue
        if outcome.digits in ("0", "1"):
            forecasts.append(Forecast(json_number_to_float(confidence), outcome.digits == "1"))
    return forecasts


def json_number_to_float(number: LeanNumber) -> float:
    """``JsonNumber.toFloat``: sign times ``Float.ofScientific |m| true e``.

    Lean's ``Float.ofScientific`` (``Init/Data/OfScientific.lean``) is not a correctly rounded
    conversion: it shifts the mantissa left by ``3e + s`` bits (``s = 64 - log2 m``), divides
    by ``5^e`` with truncation, then ``ofBinaryScientific`` truncates to 64 bits, converts that
    ``UInt64`` to a double (round to nearest even) and scales by a power of two. Reproduced
    step for step.
    """
    mantissa = int(number.digits)
    exponent = number.exponent
    shift = max(64 - _log2(mantissa), 0)
    scaled = (mantissa << (3 * exponent + shift)) // (5**exponent)
    magnitude = _of_binary_scientific(scaled, -4 * exponent - shift)
    return -magnitude if number.negative else magnitude


def _log2(value: int) -> int:
    """``Nat.log2``: floor of log base 2, with ``log2 0 = 0``."""
    return max(value.bit_length() - 1, 0)


def _of_binary_scientific(mantissa: int, exponent: int) -> float:
    """``Float.ofBinaryScientific m e``: ``m * 2^e`` through a truncated ``UInt64``."""
    shift = max(_log2(mantissa) - 63, 0)
    top = (mantissa >> shift) & ((1 << 64) - 1)
    try:
        return math.ldexp(float(top), exponent + shift)
    except OverflowError:
        return math.inf


def _json_to_nat(value: LValue) -> int | None:
    """``jsonToNat?``: a number whose printed form is all digits, or a string of digits."""
    if isinstance(value, LeanNumber):
        text = number_text(value)
    elif isinstance(value, str):
        text = value
    else:
        return None
    if text and text.isascii() and text.isdigit():
        return int(text)
    return None


def approval_events(value: LValue, now: int, ttl_ms: int) -> list[Approval]:
    """``approvalEventsFromJson``: ``[{target: <64 lowercase hex>, issuedAt?}]``; others dropped."""
    if not isinstance(value, list):
        return []
    events: list[Approval] = []
    for record in value:
        target = _member(record, "target")
        if not (isinstance(target, str) and len(target) == 64 and _HEX_LOWER.issuperset(target)):
            continue
        issued = _member(record, "issuedAt")
        issued_at = _json_to_nat(issued) if issued is not None else None
        base = min(now if issued_at is None else issued_at, now)
        events.append(Approval(target, base + ttl_ms))
    return events
