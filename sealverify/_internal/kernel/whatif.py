"""A policy author's what-if: run request frames through the model under a signed config.

``what_if`` takes the signed config envelope (``{"payload", "signature"}``, as seal-host's
``--config`` file) or a bare payload, one or more request lines (each a step of one session,
state carried), the clock and the approvals the host would hand the kernel, and returns for each
line the route, the certs and the exact bytes the kernel would emit.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from sealverify._internal.kernel.ljson import (
    LeanError,
    LValue,
    ModelLimit,
    compress,
    nat_json,
    parse,
)
from sealverify._internal.kernel.principal import hex_decode
from sealverify._internal.kernel.profiles import BuildProfile
from sealverify._internal.kernel.receipt_inputs import lean_view
from sealverify._internal.kernel.session import InitResult, KernelSession, StepResult
from sealverify._internal.primitives import publishedkeys
from sealverify._internal.wire.leanjson import LeanNumber
from sealverify.errors import InputFileError, OptionError

__all__ = [
    "SUMMARY_ROUTES",
    "HostApproval",
    "WhatIf",
    "WhatIfStream",
    "step_report",
    "what_if",
    "what_if_report",
    "what_if_stream",
]

SUMMARY_ROUTES = 20  # routes a streamed what-if keeps for its summary line; past it, counts


@dataclass(frozen=True, slots=True)
class HostApproval:
    """An approval record the host would pass: a guard target and, optionally, ``issuedAt``."""

    target: str
    issued_at: int | None = None


@dataclass(frozen=True, slots=True)
class WhatIf:
    """The outcome: the init summary (or error), the signature status and one result per line."""

    build: BuildProfile
    init_output: str
    signature: str  # "verified" | "not checked: ..." ; a bad signature fails init
    results: tuple[StepResult, ...] = field(default=())
    lines: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return bool(self.results) or '"ok":true' in self.init_output

    @property
    def blocked(self) -> bool:
        return any(r.route in ("block", "refuse", "reject", "error") for r in self.results)

    @property
    def exit_code(self) -> int:
        """``sealverify decide``'s exit: 1 when any line is blocked or refused, else 0."""
        return 1 if self.blocked else 0


def _envelope(config_text: str) -> tuple[str | None, str | None, str | None]:
    """(payload, signature, embedded pubkey) of an envelope; payload None for a bare payload."""
    try:
        value = parse(config_text)
    except (LeanError, ModelLimit):
        return None, None, None
    if isinstance(value, dict) and isinstance(value.get("payload"), str):
        signature = value.get("signature")
        pubkey = value.get("pubkey")
        return (
            str(value["payload"]),
            signature if isinstance(signature, str) else None,
            pubkey if isinstance(pubkey, str) else None,
        )
    return None, None, None


def _started(
    config_text: str, profile: BuildProfile, config_pubkey: str | None
) -> tuple[InitResult, str]:
    """The session's init (from the envelope or a bare payload) and the signature status."""
    payload, signature, embedded = _envelope(config_text)
    pubkey = config_pubkey or embedded
    if payload is not None and signature is not None and pubkey is not None:
        envelope = compress({"payload": payload, "signature": signature})
        init = KernelSession.init(envelope, pubkey, profile)
        status = "verified" if init.session is not None else "refused"
        published = publishedkeys.lookup(pubkey)
        if published is not None and init.session is not None:
            # A what-if decides nothing about authority, but says what the signature is worth.
            status += f" (published key: {published.source}; it authenticates nothing)"
        return init, status
    text = payload if payload is not None else config_text
    init = KernelSession.init_trusted(text, profile, pubkey or "")
    if payload is None:
        status = "not checked: the config is a bare payload, not a signed envelope"
    elif signature is None:
        status = "not checked: the envelope has no signature"
    else:
        status = "not checked: no public key (give --config-pubkey)"
    if pubkey is not None and hex_decode(pubkey) is None:
        raise OptionError("the config public key is not hex")
    return init, status


def _line(frame: bytes) -> str:
    line = lean_view(frame)
    if line is None:
        raise InputFileError("a frame is not valid UTF-8")
    return line


def _decided(
    session: KernelSession, lines: Iterable[str], now: int, approvals: tuple[HostApproval, ...]
) -> Iterator[tuple[str, StepResult]]:
    """Each line with its step through the session, the approvals handed to the first step."""
    records: list[LValue] = []
    for approval in approvals:
        record: dict[str, LValue] = {"target": approval.target}
        if approval.issued_at is not None:
            record["issuedAt"] = LeanNumber(False, str(approval.issued_at), 0)
        records.append(record)
    for index, line in enumerate(lines):
        envelope_json: dict[str, LValue] = {
            "line": line,
            "now": nat_json(now),
            "approvals": records if index == 0 else [],
            "votes": "",
            "grants": "",
            "forecasts": "",
        }
        yield line, session.decide(compress(envelope_json))


def what_if(
    config_text: str,
    frames: list[bytes],
    profile: BuildProfile,
    *,
    now: int = 1000,
    approvals: tuple[HostApproval, ...] = (),
    config_pubkey: str | None = None,
) -> WhatIf:
    """Initialise a session of ``profile`` from the config and step every frame through it.

    Approvals are handed to the first step (the kernel ingests them once, as the host does
    when it reads new approval records). A frame is judged as the host's ``lean_view`` of it.
    Raises :class:`ValueError` for a frame that is not UTF-8 and :class:`ModelLimit` for an
    input outside the model's limits. Every result is held: :func:`what_if_stream` decides
    an input of any length one frame at a time.
    """
    init, status = _started(config_text, profile, config_pubkey)
    if init.session is None:
        return WhatIf(profile, init.output, status)
    lines = [_line(frame) for frame in frames]
    results = tuple(result for _, result in _decided(init.session, lines, now, approvals))
    return WhatIf(profile, init.output, status, results, tuple(lines))


def step_report(line: str, result: StepResult) -> dict[str, object]:
    """One step of :func:`what_if_report`: the line, its route, the certs and the bytes."""
    return {
        "line": line,
        "route": "block" if result.route == "refuse" else result.route,
        "refused": result.route == "refuse",
        "refused_by": result.refused_by,
        "tool": result.tool,
        "certs": [
            {
                "kernel": v.kernel,
                "verdict": v.kind,
                "reason": v.reason,
                "certHash": str(v.cert_hash),
            }
            for v in result.verdicts
        ],
        "response": result.response,
        "principal": result.principal,
        "emitted_bytes": result.output,
    }


def _head(build: BuildProfile, signature: str, init_output: str) -> dict[str, object]:
    return {
        "build": build.wasm_sha256,
        "model": f"sealverify's model of kernel build {build.short} ({build.label})",
        "config_signature": signature,
        "init": init_output,
    }


def what_if_report(what: WhatIf) -> dict[str, object]:
    """The stable JSON form of a what-if (keys sorted by the caller's renderer)."""
    steps = [
        step_report(line, result) for line, result in zip(what.lines, what.results, strict=True)
    ]
    return {**_head(what.build, what.signature, what.init_output), "steps": steps}


@dataclass(slots=True)
class WhatIfStream:
    """A what-if decided one frame at a time, as :meth:`steps` is read; nothing is held.

    ``init_output`` and ``signature`` are known at once (``started`` says whether the kernel
    started); :meth:`steps` yields each frame's step, once, as :func:`step_report` gives it.
    The tallies are final once the steps are read: the count per route, the first
    :data:`SUMMARY_ROUTES` routes, and ``more`` when the input held more than ``max_frames``
    frames (the rest were not read, and the exit code is 1).
    """

    build: BuildProfile
    init_output: str
    signature: str
    max_frames: int | None  # None: every frame
    _session: KernelSession | None
    _frames: Iterator[bytes]
    _now: int
    _approvals: tuple[HostApproval, ...]
    decided: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    routes: list[str] = field(default_factory=list)
    more: bool = False

    @property
    def started(self) -> bool:
        return self._session is not None

    def head(self) -> dict[str, object]:
        """The report's members other than ``steps`` (see :func:`what_if_report`)."""
        return _head(self.build, self.signature, self.init_output)

    def steps(self) -> Iterator[dict[str, object]]:
        """Each frame's step (at most ``max_frames``), decided as it is read."""
        if self._session is None:
            return
        taken = itertools.islice(self._frames, self.max_frames)
        lines = (_line(frame) for frame in taken)
        for line, result in _decided(self._session, lines, self._now, self._approvals):
            self.decided += 1
            self.counts[result.route] = self.counts.get(result.route, 0) + 1
            if len(self.routes) < SUMMARY_ROUTES:
                self.routes.append(result.route)
            yield step_report(line, result)
        self.more = next(self._frames, None) is not None

    @property
    def blocked(self) -> bool:
        return any(route in self.counts for route in ("block", "refuse", "reject", "error"))

    @property
    def exit_code(self) -> int:
        """``sealverify decide``'s exit: 1 when a line is blocked or refused or the cap passed."""
        return 1 if self.blocked or self.more else 0

    @property
    def limit_reason(self) -> str:
        """Why the run stopped reading, when ``more``: the same words as ``frame``'s cap."""
        return (
            f"the input holds more than {self.max_frames} frames (--max-frames): only the first "
            f"{self.max_frames} were decided, the rest were not read"
        )


def what_if_stream(
    config_text: str,
    frames: Iterable[bytes],
    profile: BuildProfile,
    *,
    now: int = 1000,
    approvals: tuple[HostApproval, ...] = (),
    config_pubkey: str | None = None,
    max_frames: int | None = None,
) -> WhatIfStream:
    """:func:`what_if` over frames read one at a time, at most ``max_frames`` (None: all).

    The session starts at once; the frames are read, decided and dropped as
    :meth:`WhatIfStream.steps` is read, so memory is bounded by the longest frame, not by
    the input. Raises as :func:`what_if` does, when the frame is reached.
    """
    init, status = _started(config_text, profile, config_pubkey)
    return WhatIfStream(
        profile, init.output, status, max_frames, init.session, iter(frames), now, approvals
    )
