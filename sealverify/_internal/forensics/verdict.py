"""The verdict of a comparison and the diff report that carries it."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from sealverify._internal.forensics.changes import (
    Change,
    json_diff,
    pointer_token,
)
from sealverify._internal.forensics.compare import (
    INVOCATION_NAMES,
    byte_diff,
    identity_rows,
    meta_key_of,
    meta_key_rows,
    option_c_view,
    strip_insignificant,
)
from sealverify._internal.forensics.integrity import (
    receipt_drift,
)
from sealverify._internal.forensics.retry import retry_view
from sealverify._internal.forensics.sides import (
    Side,
)
from sealverify._internal.primitives.request_members import CALL_PARAMS, unbound_members
from sealverify._internal.results.model import (
    Check,
    Report,
    Status,
    Subject,
    fail,
    info,
    not_evaluated,
    passed,
)
from sealverify._internal.results.outcomes import Outcome, Vocabulary, decide, exit_code
from sealverify._internal.wire.strictjson import (
    JsonValue,
)

_FAIL = Status.FAIL

__all__ = [
    "VERDICTS",
    "diff_report",
    "vocabulary",
]


# Each verdict code (an Outcome: its exit code is in the one table) and its sentence.
VERDICTS: dict[str, str] = {
    Outcome.IDENTICAL_BYTES: "identical bytes",
    Outcome.SAME_INVOCATION: "same invocation, different bytes",
    Outcome.SAME_ACTION: "same action, different invocation",
    Outcome.DIFFERENT_ACTION: "different action",
    Outcome.NOT_COMPARABLE: "not comparable: identities could not be computed",
    Outcome.RECEIPT_INTEGRITY_FAILED: (
        "not compared: a receipt's stored hashes disagree with its content"
    ),
}


def vocabulary(compared: Outcome) -> Vocabulary:
    """The verdict words of ``diff`` (reports/outcomes.decide) for a pair compared as ``compared``.

    A failed check (a receipt whose stored hashes disagree with its content: the pair is not
    diffed) makes it RECEIPT_INTEGRITY_FAILED; otherwise the pair is what the comparison of
    the identities seal binds found (``compared``: the ladder of :func:`_verdict`).
    """
    return Vocabulary(passed=compared, failed=Outcome.RECEIPT_INTEGRITY_FAILED)


def _area(change: Change) -> str:
    parts = change.pointer.split("/")
    if len(parts) < 2:
        return "envelope member order" if change.change == "member-order" else "envelope"
    if change.pointer == "/id":
        return "JSON-RPC id"
    if parts[1] != "params":
        return "envelope"
    if len(parts) == 2:
        return "params member order" if change.change == "member-order" else "params"
    member = parts[2]
    if member == "_meta":
        return "metadata"
    if member in ("requestState", "inputResponses"):
        return "MRTR context"
    if member in ("arguments", "name"):
        if change.change == "member-order":
            return "argument member order"
        if change.change == "number-spelling":
            return "argument number spelling"
        return member
    return "params"


def _member_named(change: Change) -> str:
    """The `_meta` key, MRTR member or pointer a change is reported under in the verdict."""
    key = meta_key_of(change.pointer)
    if key is not None:
        return key
    parts = change.pointer.split("/")
    if len(parts) > 2 and parts[2] in ("requestState", "inputResponses"):
        return parts[2]
    return change.pointer


# What may differ between two frames of one invocation (docs/diff.md): bytes the parse does not
# see (terminator, whitespace, escape spelling: no change at all), the JSON-RPC id, the order
# of the envelope's and params' members (canonical_request rebuilds both in a fixed order), and
# inside a member an identity covers, member order that leaves the identities equal (seal sorts
# `_meta`). Anything else, a number spelled otherwise included (a server's parser may keep
# `1.00` apart from `1.0` where serde does not), is a difference the server reads.
_SEAL_IGNORES = frozenset({"JSON-RPC id", "envelope member order", "params member order"})


def _allowed(change: Change) -> bool:
    if _area(change) in _SEAL_IGNORES:
        return True
    parts = change.pointer.split("/")
    bound = len(parts) > 2 and parts[1] == "params" and parts[2] in CALL_PARAMS
    return bound and change.change == "member-order"


def _beyond_allowed(a: Side, b: Side, changes: list[Change], params_only: bool) -> list[Change]:
    """The differences that make two calls two invocations even when every identity is equal.

    Every change outside the allowed set, and, when only ``params`` were compared (a side is a
    receipt without frame bytes), each envelope member of a frame side that seal does not bind.
    """
    out = [c for c in changes if not _allowed(c)]
    if params_only:
        for side, change in ((a, "removed"), (b, "added")):
            if side.frame is not None:
                out.extend(
                    Change(where, change)
                    for where in unbound_members(side.message)
                    if not where.startswith("/params/")
                )
    return sorted(out, key=lambda c: (c.pointer, c.change))


def _named_areas(changes: list[Change]) -> list[str]:
    named = []
    for area in sorted({_area(c) for c in changes}):
        members = sorted({_member_named(c) for c in changes if _area(c) == area})
        named.append(f"{area}: {', '.join(members)}")
    return named


def _verdict(
    a: Side, b: Side, rows: list[dict[str, Any]], changes: list[Change], beyond: list[Change]
) -> tuple[Outcome, str]:
    same_server = a.server == b.server
    if a.frame is not None and b.frame is not None and a.frame.data == b.frame.data and same_server:
        return Outcome.IDENTICAL_BYTES, VERDICTS[Outcome.IDENTICAL_BYTES]
    no_bytes = a.frame is None or b.frame is None
    if a.ids is None or b.ids is None:
        if (
            no_bytes
            and a.receipt is not None
            and b.receipt is not None
            and not json_diff(a.receipt, b.receipt)
        ):
            return (
                Outcome.SAME_INVOCATION,
                "same invocation (identical receipt content; no frame bytes)",
            )
        missing = [s.label for s in (a, b) if s.ids is None]
        why = []
        for side in (a, b):
            if side.ids is None:
                if side.analysis is not None and side.analysis.refusals:
                    why.append(f"{side.label} must be refused ({side.analysis.refusals[0].code})")
                elif side.params is None:
                    why.append(f"{side.label} is not a tools/call")
                else:
                    why.append(f"{side.label}: seal cannot build its identities")
        return (
            Outcome.NOT_COMPARABLE,
            f"{VERDICTS[Outcome.NOT_COMPARABLE]} for {', '.join(missing)} (" + "; ".join(why) + ")",
        )
    equal = {r["name"]: r["equal"] for r in rows}
    both_absent = {r["name"] for r in rows if r["a"] is None and r["b"] is None}
    if all(equal[n] or n in both_absent for n in INVOCATION_NAMES) and not beyond:
        if no_bytes:
            return Outcome.SAME_INVOCATION, "same invocation (no frame bytes to compare)"
        return Outcome.SAME_INVOCATION, VERDICTS[Outcome.SAME_INVOCATION]
    if equal["effect_v3"] and equal["guard_target_legacy"]:
        shown = [c for c in changes if _area(c) not in _SEAL_IGNORES]
        shown += [c for c in beyond if c not in shown]
        named = _named_areas(shown)
        if [n.split(": ", 1)[0] for n in named] == ["metadata"]:
            named = [f"metadata only: {named[0].split(': ', 1)[1]}"]
        qualifier = "; ".join(named) or "no member-level change"
        return Outcome.SAME_ACTION, f"{VERDICTS[Outcome.SAME_ACTION]} ({qualifier})"
    if not same_server:
        return Outcome.DIFFERENT_ACTION, (
            f"{VERDICTS[Outcome.DIFFERENT_ACTION]} (the servers differ: {json.dumps(a.server)} vs "
            f"{json.dumps(b.server)})"
        )
    return Outcome.DIFFERENT_ACTION, VERDICTS[Outcome.DIFFERENT_ACTION]


def _meaning_summary(a: Side, b: Side, changes: list[Change]) -> str:
    if a.frame is not None and b.frame is not None:
        if a.frame.data == b.frame.data:
            return "identical"
        if a.frame.line == b.frame.line:
            return f"terminator only ({a.frame.terminator} vs {b.frame.terminator})"
    if changes:
        kinds = sorted({c.change for c in changes})
        if kinds == ["member-order"]:
            return "member order only"
        if set(kinds) <= {"member-order", "number-spelling"}:
            return "member order and number spelling only"
        return f"{len(changes)} member-level change(s)"
    if a.frame is not None and b.frame is not None and a.message is not None:
        if strip_insignificant(a.frame.line) == strip_insignificant(b.frame.line):
            return "whitespace only"
        return "string escape spelling only (parsed values equal)"
    return "no member-level change"


def _side_facts(side: Side) -> dict[str, Any]:
    facts: dict[str, Any] = {
        "source": side.source,
        "kind": side.kind,
        "frame_from": side.origin,
        "server": side.server,
        "server_from": side.server_from,
    }
    if side.analysis is not None:
        facts["method"] = side.analysis.method
        facts["id"] = side.analysis.request_id
        facts["era"] = side.analysis.era + (" (inferred)" if side.analysis.era_inferred else "")
        facts["admissible"] = side.analysis.admissible
        if side.analysis.refusals:
            facts["refusals"] = [r.code for r in side.analysis.refusals]
    if side.notes:
        facts["notes"] = list(side.notes)
    return facts


def diff_report(
    a: Side, b: Side, reply: dict[str, JsonValue] | None = None, *, unknown_keys: str = "refuse"
) -> Report:
    """Compare two resolved inputs; exit 0 when the invocation is the same, else 1.

    ``unknown_keys`` (``refuse`` or ``commit``) is the option-C policy the ``_meta`` rows are
    read under (META-PARTITION-SPEC §3.5); it never changes the verdict, which follows the
    identities seal binds.
    """
    checks: list[Check] = []
    facts: dict[str, Any] = {"a": _side_facts(a), "b": _side_facts(b)}
    refused = _integrity_refusal(a, b, checks, facts)
    if refused is not None:
        return refused
    for side in (a, b):
        checks.extend(info("diff.note", note, side.label) for note in side.notes)
    _byte_checks(a, b, checks, facts)
    rows = _identity_checks(a, b, checks, facts)
    params_only = (
        a.params is not None and b.params is not None and (a.frame is None or b.frame is None)
    )
    changes = _meaning_checks(a, b, params_only, checks, facts)
    _meta_checks(a, b, changes, unknown_keys, checks, facts)
    checks.append(_retry_check(a, b, reply, facts))
    beyond = _beyond_allowed(a, b, changes, params_only)
    for side in (a, b):
        if side.frame is not None:
            checks.extend(
                info(
                    "diff.unbound-member",
                    f"{side.label} carries {where}, a member no seal identity binds: two calls "
                    "that differ in it are two invocations, and verify refuses these bytes as "
                    "Object A (binding.object-a-request)",
                    f"{side.label}:{where}",
                )
                for where in unbound_members(side.message)
            )
    compared, text = _verdict(a, b, rows, changes, beyond)
    code = decide(checks, vocabulary(compared)).outcome
    facts["verdict"] = code
    surface: list[str] = []
    if a.receipt is not None and b.receipt is not None:
        surface, minor = _receipt_fields(a.receipt, b.receipt, checks, facts)
        if surface:
            text += "; receipts: authorization-surface drift in " + ", ".join(surface)
        elif minor:
            text += "; receipts: minor fields only (" + ", ".join(minor) + ")"
    # Drift in a receipt's authorization surface fails a verdict the table would pass.
    code_of_run = exit_code([code], bool(surface))
    checks.append(
        Check(
            "diff.verdict",
            Status.PASS if code_of_run == 0 else Status.INFO,
            text,
            "",
            {"verdict": code},
        )
    )
    return _finish(a, b, text, checks, facts, code_of_run)


def _integrity_refusal(
    a: Side, b: Side, checks: list[Check], facts: dict[str, Any]
) -> Report | None:
    """Each side's receipt integrity checks; the refusal report when a receipt's fail."""
    for side in (a, b):
        checks.extend(
            replace(c, location=f"{side.label}:{c.location or side.origin}") for c in side.integrity
        )
    broken = [s.label for s in (a, b) if any(c.status == _FAIL for c in s.integrity)]
    if not broken:
        return None
    code = decide(checks, vocabulary(Outcome.NOT_COMPARABLE)).outcome  # a failed check: refused
    text = f"{VERDICTS[code]} (receipt {', '.join(broken)}); not diffed"
    checks.append(fail("diff.verdict", text, verdict=code))
    facts["verdict"] = code
    if a.receipt is not None and b.receipt is not None:
        # The invocations are not compared, but the two documents are: the member that was
        # edited is what a reader of the refusal looks for (the frames may be identical).
        _receipt_fields(a.receipt, b.receipt, checks, facts)
    return _finish(a, b, text, checks, facts, exit_code([code]))


def _byte_checks(a: Side, b: Side, checks: list[Check], facts: dict[str, Any]) -> None:
    """The two frames compared byte for byte, terminators included, when both sides have one."""
    if a.frame is None or b.frame is None:
        checks.append(
            not_evaluated(
                "diff.bytes",
                "a side has no frame bytes (a receipt without "
                "signed_artifacts.object_a or release_frame)",
            )
        )
        return
    bytes_facts = byte_diff(a.frame, b.frame)
    facts["bytes"] = bytes_facts
    if bytes_facts["identical"]:
        checks.append(passed("diff.bytes", f"identical bytes ({a.frame.length} bytes)"))
    else:
        first = bytes_facts["first_difference_offset"]
        checks.append(
            info(
                "diff.bytes",
                f"bytes differ first at offset {first}; lengths {a.frame.length} and "
                f"{b.frame.length}",
                f"offset {first}",
            )
        )
    if not bytes_facts["terminator_equal"]:
        checks.append(
            info(
                "diff.terminator",
                f"terminator differs: A ends {a.frame.terminator}, B ends {b.frame.terminator}",
            )
        )


def _identity_checks(
    a: Side, b: Side, checks: list[Check], facts: dict[str, Any]
) -> list[dict[str, Any]]:
    """Each seal identity of the two sides compared; the rows the verdict is read from."""
    rows = identity_rows(a, b)
    facts["identities"] = {r["name"]: {"a": r["a"], "b": r["b"], "equal": r["equal"]} for r in rows}
    for row in rows:
        check_id = f"diff.identity.{row['name']}"
        if row["equal"] is None:
            checks.append(
                not_evaluated(
                    check_id,
                    "not computed for "
                    + " and ".join(s.label for s, v in ((a, row["a"]), (b, row["b"])) if v is None),
                )
            )
        elif row["equal"]:
            checks.append(passed(check_id, f"{row['name']} equal"))
        else:
            checks.append(info(check_id, f"{row['name']} differs"))
    return rows


def _meaning_checks(
    a: Side, b: Side, params_only: bool, checks: list[Check], facts: dict[str, Any]
) -> list[Change]:
    """The member-level changes between the two messages (only ``params`` without both frames)."""
    if params_only:
        base_a: JsonValue = {"params": a.params}
        base_b: JsonValue = {"params": b.params}
    else:
        base_a, base_b = a.message, b.message
    changes = json_diff(base_a, base_b) if base_a is not None and base_b is not None else []
    facts["meaning"] = {
        "summary": _meaning_summary(a, b, changes),
        "changes": [c.to_dict() for c in changes],
    }
    for change in changes:
        checks.append(
            info(
                f"diff.meaning.{change.change}", f"{_area(change)}: {change.change}", change.pointer
            )
        )
    return changes


def _meta_checks(
    a: Side,
    b: Side,
    changes: list[Change],
    unknown_keys: str,
    checks: list[Check],
    facts: dict[str, Any],
) -> None:
    """The ``_meta`` changes read under options A and C, and each side's keys outside the table."""
    meta_rows = meta_key_rows(changes, unknown_keys)
    facts["meta_keys"] = meta_rows
    view = option_c_view(a.params, b.params, unknown_keys)
    facts["option_c"] = view
    for label in ("a", "b"):
        side_view = view[label]
        if side_view["unknown"]:
            checks.append(
                info(
                    "diff.option-c",
                    f"{label.upper()} under {view['policy']}: {side_view['reading']} "
                    f"(keys outside the key table: {', '.join(side_view['unknown'])})",
                    label.upper(),
                )
            )
    for row in meta_rows:
        checks.append(
            info(
                "diff.meta-key",
                f"{row['key']} {row['change']}; option A: "
                f"{row['option_a']}; option C: {row['option_c']}",
                f"/params/_meta/{pointer_token(row['key'])}",
            )
        )


def _retry_check(
    a: Side, b: Side, reply: dict[str, JsonValue] | None, facts: dict[str, Any]
) -> Check:
    """Whether B is a legitimate multi-round-trip retry of A."""
    retry = retry_view(a, b, reply)
    facts["retry"] = retry
    retry_text = {
        "legitimate": "B is a legitimate multi-round-trip retry of A",
        "not-legitimate": "B is not a legitimate retry of A: " + "; ".join(retry["reasons"]),
        "not-a-retry": "B is not a multi-round-trip retry (no inputResponses or requestState)",
        "not-evaluated": "retry view not evaluated: " + "; ".join(retry["reasons"]),
    }[retry["state"]]
    if retry.get("unchecked"):
        retry_text += " (not checked: " + "; ".join(retry["unchecked"]) + ")"
    return Check(
        "diff.retry",
        Status.NOT_EVALUATED if retry["state"] == Status.NOT_EVALUATED else Status.INFO,
        retry_text,
    )


def _receipt_fields(
    a: dict[str, JsonValue],
    b: dict[str, JsonValue],
    checks: list[Check],
    facts: dict[str, Any],
) -> tuple[list[str], list[str]]:
    """Each differing receipt member as a fact and a check; the top members by class."""
    drift = receipt_drift(a, b)
    facts["receipt_fields"] = [{**c.to_dict(), "class": cls} for c, cls in drift]
    for change, cls in drift:
        shown = change.to_dict()
        values = " -> ".join(str(shown[k])[:60] for k in ("a", "b") if k in shown)
        checks.append(
            info(f"diff.receipt.{cls}", f"{change.change} in B: {values}", change.pointer)
        )
    surface = sorted({c.pointer.split("/")[1] for c, cls in drift if cls != "minor"})
    minor = sorted({c.pointer.split("/")[1] for c, cls in drift if cls == "minor"})
    return surface, minor


def _frame_text(side: Side) -> dict[str, Any]:
    """A side's frame bytes as text for the html report (undecodable bytes as \\x escapes)."""
    if side.frame is None:
        return {"text": None, "from": side.origin}
    return {"text": side.frame.data.decode("utf-8", "backslashreplace"), "from": side.origin}


def _finish(
    a: Side, b: Side, text: str, checks: list[Check], facts: dict[str, Any], exit_code: int
) -> Report:
    facts["verdict_text"] = text
    subject = Subject(
        name=f"{a.source} vs {b.source}",
        outcome=text,
        checks=tuple(checks),
        facts=facts,
        display={side.label.lower(): _frame_text(side) for side in (a, b)},
    )
    return Report(
        command="diff",
        subjects=(subject,),
        summary={"verdict": facts["verdict"], "exit_code": exit_code},
        exit_code=exit_code,
        layout="detail",
    )
