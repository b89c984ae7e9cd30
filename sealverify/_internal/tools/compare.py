"""Capture-conditions proposal §3 rules 1-4: tool readings are drift only when captures allow."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sealverify._internal.results import ids
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
from sealverify._internal.results.outcomes import Outcome, Vocabulary, decide
from sealverify._internal.results.outcomes import exit_code as exit_code_of
from sealverify._internal.tools.digests import Profile, Unrepresentable, digest_tool, js_value
from sealverify._internal.wire.spelling import pointer

_FAIL = Status.FAIL

__all__ = [
    "VOCABULARIES",
    "Reading",
    "capture_differences",
    "compare",
    "json_diff",
    "reader_environment",
]

# The verdict words of ``tools compare`` (reports/outcomes.decide), by where a tool is found: in
# both readings it is CHANGED when a check of its digests failed, else UNCHANGED; in one only,
# its one failed check says so and it is ADDED (only in B) or REMOVED (only in A).
VOCABULARIES = {
    "both": Vocabulary(passed=Outcome.UNCHANGED, failed=Outcome.CHANGED),
    "only-b": Vocabulary(passed=Outcome.ADDED, failed=Outcome.ADDED),
    "only-a": Vocabulary(passed=Outcome.REMOVED, failed=Outcome.REMOVED),
}


@dataclass(frozen=True, slots=True)
class Reading:
    """One side of a comparison: its tools (location, parsed value) and its capture block."""

    label: str
    tools: list[tuple[str, Any]]
    capture: dict[str, Any]


def _get(block: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = block
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


_MISSING = object()

# Rule 3's members. Launch members count only when either side launched the server.
_PROTOCOL_KEYS = (("protocol", "negotiated"), ("protocol", "versionHeader"))
_LAUNCH_KEYS = tuple(
    ("launch", k) for k in ("resolvedVersion", "args", "envNames", "envValues", "network")
)


def capture_differences(a: dict[str, Any], b: dict[str, Any]) -> tuple[list[Check], bool]:
    """Rules 1 and 3 over two capture blocks: findings, and whether the readings are comparable.

    A member known on one side only is a difference (nothing shows it equal). A member known on
    neither side is not evaluated: it is named, and does not by itself block the comparison.
    """
    checks: list[Check] = []
    comparable = True
    complete_a = _get(a, ("pages", "complete"))
    complete_b = _get(b, ("pages", "complete"))
    if complete_a is not True or complete_b is not True:
        comparable = False
        sides = [s for s, c in (("A", complete_a), ("B", complete_b)) if c is not True]
        checks.append(
            fail(
                "tools.compare.incomplete",
                f"reading {' and '.join(sides)} is not a complete list "
                "(pages.complete is not true); "
                "capture rule 1: an incomplete list is never compared with a complete one",
                "/capture/pages/complete",
            )
        )
    else:
        checks.append(
            passed(
                "tools.compare.complete",
                "both readings followed every nextCursor",
                "/capture/pages/complete",
            )
        )
    keys = list(_PROTOCOL_KEYS)
    if "launch" in a or "launch" in b:
        keys.extend(_LAUNCH_KEYS)
    for path in keys:
        where = pointer("capture", *path)
        va, vb = _get(a, path), _get(b, path)
        if va is _MISSING and vb is _MISSING:
            checks.append(
                not_evaluated(
                    "tools.compare.capture-unknown",
                    f"{'.'.join(path)} is known on neither side; "
                    "the readings may still differ in it",
                    where,
                )
            )
        elif va is _MISSING or vb is _MISSING:
            comparable = False
            side = "A" if va is _MISSING else "B"
            checks.append(
                fail(
                    "tools.compare.capture-difference",
                    f"{'.'.join(path)} is not known for reading {side}; a difference cannot be "
                    "ruled out, so definition differences are capture differences, not drift",
                    where,
                )
            )
        elif va != vb:
            comparable = False
            shown_a = va if path[-1] != "args" else "(args)"
            shown_b = vb if path[-1] != "args" else "(args)"
            checks.append(
                fail(
                    "tools.compare.capture-difference",
                    f"{'.'.join(path)} differs ({json.dumps(shown_a)} vs {json.dumps(shown_b)}); "
                    "capture rule 3: "
                    "definition differences are reported as capture differences, not drift",
                    where,
                )
            )
    return checks, comparable


def reader_environment(tool: Any, home: str | None, placeholders: tuple[str, ...]) -> list[str]:
    """JSON pointers of strings in ``tool`` that quote the reader's home or a placeholder value.

    Rule 4: such a definition identifies the reader as much as the server. The matched value is
    never returned, only where it sits.
    """
    needles = [n for n in ((home,) if home else ()) + placeholders if n]
    found: list[str] = []

    def walk(value: Any, path: tuple[str | int, ...]) -> None:
        if isinstance(value, str):
            if any(n in value for n in needles):
                found.append(pointer(*path))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, (*path, i))
        elif isinstance(value, dict):
            for k, v in value.items():
                if any(n in k for n in needles):
                    found.append(pointer(*path, k))
                walk(v, (*path, k))

    if needles:
        walk(tool, ())
    return found


def json_diff(a: Any, b: Any, path: tuple[str | int, ...] = ()) -> list[tuple[str, str]]:
    """Differences between two JSON values as (kind, JSON pointer); numbers compared as JS does."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[tuple[str, str]] = []
        for key in sorted(set(a) | set(b)):
            if key not in a:
                out.append(("added", pointer(*path, key)))
            elif key not in b:
                out.append(("removed", pointer(*path, key)))
            else:
                out.extend(json_diff(a[key], b[key], (*path, key)))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in json_diff(x, y, (*path, i))
        ]
    same = type(a) is type(b) and a == b
    if not same and isinstance(a, (int, float)) and isinstance(b, (int, float)):
        same = not isinstance(a, bool) and not isinstance(b, bool) and a == b
    return [] if same else [("changed", pointer(*path))]


def _named(tools: list[tuple[str, Any]]) -> dict[str, tuple[str, Any]]:
    out: dict[str, tuple[str, Any]] = {}
    for location, tool in tools:
        name = tool.get("name") if isinstance(tool, dict) else None
        if isinstance(name, str) and name not in out:
            out[name] = (location, tool)
    return out


def compare(
    a: Reading,
    b: Reading,
    profile: Profile,
    placeholders: tuple[str, ...] = (),
    preamble: tuple[Check, ...] = (),
) -> Report:
    """Apply §3 rules 1-4 and, where the captures allow, report per-tool drift under ``profile``.

    Exit code 0 only when the readings are comparable, nothing is flagged, nothing drifted and
    no input finding failed; 1 otherwise. Incomplete lists are not diffed at all (rule 1).
    """
    findings, comparable = capture_differences(a.capture, b.capture)
    findings = list(preamble) + findings
    subjects: list[Subject] = []
    flagged = _reader_environment(a, placeholders, findings) + _reader_environment(
        b, placeholders, findings
    )
    # Plain words as keys (the summary holds them): an enum key makes orjson refuse the report.
    outcome_counts = {
        o.value: 0 for o in (Outcome.ADDED, Outcome.REMOVED, Outcome.CHANGED, Outcome.UNCHANGED)
    }
    if comparable or all(c.id != ids.TOOLS_COMPARE_INCOMPLETE for c in findings):
        kind = "drift" if comparable else "capture-difference"
        check_prefix = "tools.drift" if comparable else "tools.compare.capture-difference"
        tools_a, tools_b = _named(a.tools), _named(b.tools)
        for name in sorted(set(tools_a) | set(tools_b)):
            subjects.append(
                _tool_subject(
                    name,
                    tools_a.get(name),
                    tools_b.get(name),
                    profile,
                    kind,
                    check_prefix,
                    outcome_counts,
                )
            )
    else:
        findings.append(
            info(
                "tools.compare.not-compared",
                "no per-tool comparison: at least one reading is incomplete (rule 1)",
            )
        )
    drifted = sum(outcome_counts[o] for o in (Outcome.ADDED, Outcome.REMOVED, Outcome.CHANGED))
    state = (
        "not-comparable"
        if not comparable
        else "drift"
        if drifted
        else "reader-environment"
        if flagged
        else "no-drift"
    )
    # A failing input finding (a broken page, a repeated name) never ends in a quiet 0.
    input_failed = any(c.status == _FAIL for c in findings)
    # The state follows from these: drift is an added, removed or changed tool; not-comparable
    # and reader-environment are failing findings (capture rules 1, 3 and 4).
    exit_code = exit_code_of((s.outcome for s in subjects), input_failed)
    summary = {
        "state": state,
        "profile": profile.id,
        "comparable": comparable,
        "reader_environment_flags": flagged,
        **outcome_counts,
    }
    return Report(
        "tools compare",
        tuple(subjects),
        summary,
        exit_code,
        tuple(sorted(findings, key=lambda c: (c.id, c.location))),
    )


def _reader_environment(
    reading: Reading, placeholders: tuple[str, ...], findings: list[Check]
) -> int:
    """Flag each tool of ``reading`` that quotes the reader's home or a placeholder (rule 4)."""
    home = _get(reading.capture, ("launch", "home"))
    home = home if isinstance(home, str) else None
    flagged = 0
    for location, tool in reading.tools:
        hits = reader_environment(tool, home, placeholders)
        if hits:
            flagged += 1
            findings.append(
                fail(
                    "tools.compare.reader-environment",
                    f"reading {reading.label}: a tool definition quotes the reader's home "
                    "directory or a placeholder value (capture rule 4); its digest "
                    "identifies the reader, no other reader will reproduce it",
                    f"{reading.label}:{location}{hits[0]}",
                )
            )
    return flagged


def _tool_subject(
    name: str,
    left: tuple[str, Any] | None,
    right: tuple[str, Any] | None,
    profile: Profile,
    kind: str,
    prefix: str,
    counts: dict[str, int],
) -> Subject:
    if left is None or right is None:
        present = right if left is None else left
        assert present is not None
        side = VOCABULARIES["only-b" if left is None else "only-a"]
        d = digest_tool(present[1], profile, present[0])
        check = fail(
            f"{prefix}.{side.failed}" if kind == "drift" else prefix,
            f"tool {side.failed} ({'only in B' if left is None else 'only in A'})",
            present[0],
        )
        outcome = decide((check,), side).outcome
        counts[outcome] += 1
        return Subject(
            name,
            outcome,
            (check,),
            {"profile": profile.id, "digest": d.digest},
            label=kind if kind != "drift" else "",
        )
    da = digest_tool(left[1], profile, left[0])
    db = digest_tool(right[1], profile, right[0])
    try:
        diffs = json_diff(js_value(left[1]), js_value(right[1]))
    except Unrepresentable as exc:  # a number JavaScript cannot hold: digests say why
        diffs = [("unreadable", f"/ ({exc})")]
    facts = {
        "profile": profile.id,
        "digest_a": da.digest,
        "digest_b": db.digest,
        "fields": [f"{k} {p}" for k, p in diffs],
    }
    checks: list[Check] = []
    if da.digest is None or db.digest is None:
        checks.append(
            not_evaluated("tools.digest.not-representable", da.reason or db.reason, left[0])
        )
    if da.digest != db.digest:
        for change, where in diffs or [("changed", "")]:
            checks.append(
                fail(
                    f"{prefix}.changed" if kind == "drift" else prefix,
                    f"field {change} under {profile.id}"
                    f" ({da.digest and da.digest[:12]} -> "
                    f"{db.digest and db.digest[:12]})",
                    where,
                )
            )
    else:
        checks.append(passed("tools.compare.same-digest", f"same {profile.id} digest", left[0]))
        checks.extend(
            info(
                "tools.compare.outside-profile",
                f"field {change}, but not in what {profile.id} hashes "
                "(or spelled differently with the same canonical form)",
                where,
            )
            for change, where in diffs
        )
    outcome = decide(checks, VOCABULARIES["both"]).outcome
    counts[outcome] += 1
    label = kind if kind != "drift" and da.digest != db.digest else ""
    return Subject(name, outcome, tuple(checks), facts, label=label)
