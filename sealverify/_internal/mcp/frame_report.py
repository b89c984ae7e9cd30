"""Turn frame analyses into the common report shape (facts, checks, outcome, exit code)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from sealverify._internal.mcp.frame import FrameAnalysis
from sealverify._internal.mcp.meta import MODERN
from sealverify._internal.primitives.request_members import unbound_members
from sealverify._internal.results.model import Check, Report, Status, Subject, fail, info, passed
from sealverify._internal.results.outcomes import Outcome, Vocabulary, decide, exit_code

_FAIL = Status.FAIL

__all__ = ["VOCABULARY", "frame_facts", "frame_report", "frame_subject"]

ADMISSIBLE = Outcome.ADMISSIBLE
REFUSE = Outcome.REFUSE
# What a frame is called under the one rule (results/outcomes.py ``decide``): a refusal (each
# is a failed check) REFUSE, else ADMISSIBLE.
VOCABULARY = Vocabulary(passed=ADMISSIBLE, failed=REFUSE)


def frame_facts(result: FrameAnalysis) -> dict[str, Any]:
    """The documented, stable facts of one frame (docs/report-format.md#frame)."""
    frame = result.frame
    facts: dict[str, Any] = {
        "transport": frame.transport,
        "offset": frame.offset,
        "terminator": frame.terminator,
        "exact_frame_sha256": frame.exact_sha256,
        "exact_frame_length": frame.length,
        "raw_line_sha256": frame.raw_line_sha256,
        "kind": result.kind,
        "method": result.method,
        "id": result.request_id,
        "era": result.era + (" (inferred)" if result.era_inferred else ""),
    }
    meta = result.meta
    if meta is not None:
        facts["meta"] = {
            "state": meta.state,
            "keys": list(meta.keys),
            "unknown_keys": list(meta.unknown_keys),
            "reserved_prefix_unknown_keys": list(meta.reserved_unknown_keys),
            "raw_bytes": meta.raw_bytes,
        }
    ids = result.identities
    if ids is not None:
        facts["identities"] = {
            "tool": ids.tool,
            "canonical_request": ids.canonical_request,
            "canonical_request_sha256": ids.canonical_request_sha256,
            "canonical_request_error": ids.canonical_request_error,
            "legacy_canonical_request_sha256": ids.legacy_canonical_request_sha256,
            "args_hash": ids.args_hash,
            "guard_target_meta_all": ids.guard_target,
            "guard_target_seal_host": ids.guard_target_host,
            "guard_target_legacy": ids.legacy_guard_target,
            "effect_v3": ids.effect_v3,
            "effect_v4": ids.effect_v4,
        }
    elif result.method == "tools/call":
        facts["identities"] = "not computed: the frame must be refused first"
    return facts


def _checks(result: FrameAnalysis) -> list[Check]:
    checks: list[Check] = [
        fail(r.code, r.reason, r.pointer, wire_error=r.wire_error) for r in result.refusals
    ]
    if result.admissible and result.kind != "blank":
        checks.append(passed("frame.admissible", "strict JSON, envelope and _meta checks passed"))
    ids = result.identities
    if ids is not None:
        for lexeme, text in ids.rewritten_numbers:
            checks.append(
                info(
                    "number.producer-spelling",
                    f"seal-host's serde_json writes {lexeme} as {text} in canonical_request "
                    "and args_hash",
                )
            )
        if ids.canonical_request_error:
            checks.append(
                info(
                    "identity.canonical-request-unavailable",
                    f"seal-host records request_parse_error: {ids.canonical_request_error}",
                )
            )
    if result.kind in ("request", "notification"):
        checks.extend(_unbound_checks(result))
    checks.extend(info("frame.note", note) for note in result.notes)
    return checks


# What the MCP schema says of a member outside the ones seal binds. Neither JSONRPCRequest nor
# CallToolRequestParams sets additionalProperties false (schema/2026-07-28/schema.json and
# 2025-11-25), so no such member makes the frame invalid: each is reported (info), since the
# server reads it while no seal identity binds it, `diff` calls two calls that differ in it two
# invocations and `verify` refuses it in Object A (binding.object-a-request).
_TASK_2025 = (
    "params.task asks for task-augmented execution (MCP 2025-11-25 CallToolRequestParams.task, "
    "TaskMetadata): the server returns a CreateTaskResult, not the tool's result"
)
_TASK_MODERN = (
    "params.task is not a CallToolRequestParams member in MCP 2026-07-28 (the 2025-11-25 "
    "task-augmented call moved to the io.modelcontextprotocol/tasks extension); a server that "
    "still honours it returns a CreateTaskResult, not the tool's result"
)
_UNBOUND = "; no seal identity binds it, and verify refuses it in Object A"


def _unbound_checks(result: FrameAnalysis) -> list[Check]:
    checks: list[Check] = []
    call = result.method == "tools/call" and result.kind == "request"
    suffix = _UNBOUND if call else "; JSON-RPC 2.0 defines no such member"
    for where in unbound_members(result.message):
        if where == "/params/task":
            text = _TASK_MODERN if result.era == MODERN else _TASK_2025
            checks.append(info("frame.params.task", text + _UNBOUND, where))
        elif where.startswith("/params/"):
            checks.append(
                info(
                    "frame.params.unknown-member",
                    "a tools/call params member outside CallToolRequestParams (name, "
                    "arguments, _meta, requestState, inputResponses)" + _UNBOUND,
                    where,
                )
            )
        else:
            checks.append(
                info(
                    "frame.envelope.unknown-member",
                    "a member outside the JSON-RPC 2.0 request (jsonrpc, id, method, params)"
                    + suffix,
                    where,
                )
            )
    return checks


def frame_subject(source: str, index: int, result: FrameAnalysis) -> Subject:
    """The subject of frame ``index`` (its 0-based place in the stream), named ``SOURCE#N``."""
    first = result.refusals[0] if result.refusals else None
    checks = tuple(_checks(result))
    return Subject(
        name=f"{source}#{index}",
        outcome=decide(checks, VOCABULARY).outcome,
        checks=checks,
        facts=frame_facts(result),
        label=f"wire error {first.wire_error}" if first else "",
    )


def frame_report(
    source: str,
    results: Iterable[FrameAnalysis],
    findings: tuple[Check, ...] = (),
    *,
    numbers: Iterable[int] | None = None,
) -> Report:
    """One subject per frame; exit 1 when any frame must be refused (or a finding fails), else 0.

    ``results`` may be a generator: each analysis is turned into its subject and dropped, so
    only the subjects are held. A frame is named ``SOURCE#N`` by its 0-based place in the
    stream: ``numbers`` gives those places when the results are not frames 0, 1, 2, ... (the
    frames ``frame --index`` chose).
    """
    places = itertools.count() if numbers is None else iter(numbers)
    subjects = [frame_subject(source, next(places), result) for result in results]
    refused = sum(1 for s in subjects if s.outcome == REFUSE)
    return Report(
        command="frame",
        subjects=tuple(subjects),
        summary={
            "frames": len(subjects),
            "refused": refused,
            "admissible": len(subjects) - refused,
        },
        exit_code=exit_code(
            (s.outcome for s in subjects), any(f.status == _FAIL for f in findings)
        ),
        findings=findings,
        layout="detail",
    )
