"""A policy author's what-if: run request frames through the model under a signed config.

``what_if`` takes the signed config envelope (``{"payload", "signature"}``, as seal-host's
``--config`` file) or a bare payload, one or more request lines (each a step of one session,
state carried), the clock and the approvals the host would hand the kernel, and returns for each
line the route, the certs and the exact bytes the kernel would emit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sealverify.errors import InputFileError, OptionError
from sealverify.kernel.ljson import LeanError, LValue, ModelLimit, compress, nat_json, parse
from sealverify.kernel.principal import hex_decode
from sealverify.kernel.profiles import BuildProfile
from sealverify.kernel.receipt_inputs import lean_view
from sealverify.kernel.session import KernelSession, StepResult
from sealverify.seal import publishedkeys
from sealverify.wire.leanjson import LeanNumber

__all__ = ["HostApproval", "WhatIf", "what_if", "what_if_report"]


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
    input outside the model's limits.
    """
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
    else:
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
    if init.session is None:
        return WhatIf(profile, init.output, status)
    lines = []
    for frame in frames:
        line = lean_view(frame)
        if line is None:
            raise InputFileError("a frame is not valid UTF-8")
        lines.append(line)
    results = []
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
        results.append(init.session.decide(compress(envelope_json)))
    return WhatIf(profile, init.output, status, tuple(results), tuple(lines))


def what_if_report(what: WhatIf) -> dict[str, object]:
    """The stable JSON form of a what-if (keys sorted by the caller's renderer)."""
    steps = []
    for line, result in zip(what.lines, what.results, strict=True):
        steps.append(
            {
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
        )
    return {
        "build": what.build.wasm_sha256,
        "model": f"sealverify's model of kernel build {what.build.short} ({what.build.label})",
        "config_signature": what.signature,
        "init": what.init_output,
        "steps": steps,
    }
