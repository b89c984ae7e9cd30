"""Sessions re-derived in order from parsed values: logs, separate files, claimed positions held.

The session's second call is an over-budget ALLOW (the budget allows one call) re-signed under
the pinned keys. Alone it is a later call whose state no receipt carries; with its session it
is refuted. No spelling of the receipt's bytes, no missing or repeated first call, and no way of
giving the receipts (one log, separate files, workers, a cluster) may turn that into a pass.
"""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sealverify_testkit import mint
from sealverify_testkit.records import Cert

from sealverify._internal.cli.main import cli
from sealverify._internal.receipts.sessions import glance, may_name_session
from sealverify._internal.receipts.verify import verify_jsonl, verify_receipt
from tests.helpers.kernel_minting import HOST, Receipt
from tests.helpers.verify_sessions import (
    BUDGET,
    OPTIONS,
    PIN_ARGS,
    allowed_call,
    log_line_of,
    relabel_attack,
)
from tests.helpers.verify_stateless import parsed_receipt, restate


def _replays(lines: list[bytes]) -> list[tuple[str, str]]:
    subjects, findings = verify_jsonl(b"\n".join(lines) + b"\n", "log.jsonl", OPTIONS)
    assert not findings
    return [
        next((c.status, c.reason) for c in s.checks if c.id == "replay.decision") for s in subjects
    ]


def test_the_honest_first_call_passes_and_the_over_budget_second_is_refuted() -> None:
    first, second = _replays([log_line_of(allowed_call(1, 1)), log_line_of(allowed_call(2, 2))])
    assert first[0] == "pass"
    assert second[0] == "fail" and "route" in second[1]
    alone = verify_receipt(log_line_of(allowed_call(2, 2)), "r", OPTIONS)
    assert next(c.status for c in alone.checks if c.id == "replay.decision") == "not-evaluated"


RESPELLINGS = {
    "session name escaped": (b'"session"', b'"sess\\u0069on"'),
    "parenthesis escaped": (b"trace ok (2", b"trace ok \\u00282"),
}


@pytest.mark.parametrize("respell", RESPELLINGS.values(), ids=list(RESPELLINGS))
@pytest.mark.parametrize("which", [0, 1], ids=["first", "second"])
def test_respelled_bytes_do_not_move_a_receipt_out_of_its_session(
    respell: tuple[bytes, bytes], which: int
) -> None:
    docs = [allowed_call(1, 1), allowed_call(2, 2)]
    if respell[0].startswith(b"trace") and which == 0:
        respell = (b"trace ok (1", b"trace ok \\u00281")
    lines = [
        log_line_of(doc, respell if index == which else None) for index, doc in enumerate(docs)
    ]
    replays = _replays(lines)
    assert replays[0][0] == "pass"
    assert replays[1][0] == "fail" and "the model 'block'" in replays[1][1]


def test_two_receipts_claiming_the_first_call_fail() -> None:
    first, second = _replays([log_line_of(allowed_call(1, 1)), log_line_of(allowed_call(2, 1))])
    assert first[0] == "pass"
    assert second[0] == "fail" and "claims position 1" in second[1]


def test_a_missing_or_moved_first_call_leaves_the_rest_not_evaluated() -> None:
    dropped = _replays([log_line_of(allowed_call(2, 2)), log_line_of(allowed_call(3, 3))])
    assert [r[0] for r in dropped] == ["not-evaluated", "not-evaluated"]
    assert "first call is not among its receipts here" in dropped[0][1]
    assert "an earlier receipt of the session (line 1)" in dropped[1][1]
    moved = _replays([log_line_of(allowed_call(2, 2)), log_line_of(allowed_call(1, 1))])
    assert moved[0][0] == "not-evaluated"
    assert moved[1][0] == "fail"  # position 1 after an executed position 2: a contradiction


def test_a_gap_leaves_the_rest_not_evaluated_named() -> None:
    replays = _replays(
        [
            log_line_of(allowed_call(1, 1)),
            log_line_of(allowed_call(3, 3)),
            log_line_of(allowed_call(4, 4)),
        ]
    )
    assert [r[0] for r in replays] == ["pass", "not-evaluated", "not-evaluated"]
    assert "position 2 is not among its receipts here" in replays[1][1]


def test_the_pre_filter_skips_only_what_cannot_name_a_session() -> None:
    doc = allowed_call(1, 1)
    for respell in ((b'"session"', b'"\\u0073ession"'), (b'"session"', b'"sessio\\u006e"')):
        raw = log_line_of(doc, respell)
        assert may_name_session(raw)
        facts = glance(raw)
        assert facts is not None and facts.session == HOST.session
    assert not may_name_session(b'{"sessions":1,"x":"trace ok (2 events)"}')
    assert glance(b'{"effect_view":{"sessionx":"s"}}') is None


# --- separate files --------------------------------------------------------------------------


def _cli(*args: str) -> Result:
    return CliRunner().invoke(cli, ["verify", *args], catch_exceptions=False)


def _statuses(report: str) -> dict[str, str]:
    subjects = json.loads(report)["subjects"]
    return {
        Path(s["name"]).name: next(c["status"] for c in s["checks"] if c["id"] == "replay.decision")
        for s in subjects
    }


def _files(directory: Path, calls: dict[str, Receipt]) -> Path:
    directory.mkdir()
    for name, doc in calls.items():
        (directory / name).write_bytes(mint.render_pretty(doc))
    return directory


def test_a_session_in_separate_files_is_re_derived_by_claimed_position(tmp_path: Path) -> None:
    # Names sort against the call order: the positions the receipts claim give it.
    honest = _files(
        tmp_path / "honest", {"b.json": allowed_call(1, 1), "a.json": allowed_call(3, 2)}
    )
    reports = {jobs: _cli(str(honest), *PIN_ARGS, "--jobs", jobs).stdout for jobs in ("1", "2")}
    assert reports["1"] == reports["2"]
    assert _statuses(reports["1"]) == {"a.json": "fail", "b.json": "pass"}  # over budget
    lone = _files(tmp_path / "lone", {"a.json": allowed_call(3, 2)})
    assert _statuses(_cli(str(lone), *PIN_ARGS).stdout) == {"a.json": "not-evaluated"}


def test_files_claiming_the_same_first_call_fail(tmp_path: Path) -> None:
    twice = _files(tmp_path / "twice", {"a.json": allowed_call(1, 1), "b.json": allowed_call(2, 1)})
    assert _statuses(_cli(str(twice), *PIN_ARGS).stdout) == {"a.json": "pass", "b.json": "fail"}


def test_one_call_given_twice_is_one_call(tmp_path: Path) -> None:
    # The host rewrites an ALLOW receipt as its release status moves: copies of one operation
    # in two places are the same call, not two claims of one position.
    call = allowed_call(1, 1)
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "r.json").write_bytes(mint.render_pretty(call))
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "r.json").write_bytes(mint.render_pretty(call))
    report = _cli(str(tmp_path / "one"), str(tmp_path / "two"), *PIN_ARGS).stdout
    statuses = [
        next(c["status"] for c in s["checks"] if c["id"] == "replay.decision")
        for s in json.loads(report)["subjects"]
    ]
    assert statuses == ["pass", "pass"]


def test_cluster_reports_a_file_session_the_same(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    honest = _files(tmp_path / "s", {"b.json": allowed_call(1, 1), "a.json": allowed_call(3, 2)})
    local = _cli(str(honest), *PIN_ARGS).stdout
    clustered = _cli(str(honest), *PIN_ARGS, "--cluster", "local:1", "--partition-size", "1")
    assert clustered.stdout == local


def test_a_copy_with_another_line_is_not_the_same_call(tmp_path: Path) -> None:
    # Same operation and emitted bytes, another judged line (a frame the policy denies), re-signed:
    # a second claim of position 1, never the first copy's pass.
    call = allowed_call(1, 1)
    other = parsed_receipt(mint.render_pretty(call))
    frame = mint.tools_call_frame("shell_exec", '{"command":"x"}')
    other["signed_artifacts"]["object_a"] = base64.b64encode(frame).decode()  # type: ignore[index]
    other = mint.resign_v3(other, mint.RECEIPT_KEY, str(other["signature"]["domain"]))  # type: ignore[index]
    files = _files(tmp_path / "s", {"a.json": call, "b.json": other})
    assert _statuses(_cli(str(files), *PIN_ARGS).stdout) == {"a.json": "pass", "b.json": "fail"}


def test_after_a_refuted_receipt_the_state_is_unknown() -> None:
    # A denied call forged into an executed first call fails; what that call did to the
    # session is unknown, so the call after it is not evaluated (never a pass), and the
    # forgery's claim does not make it fail either.
    frame = mint.tools_call_frame("shell_exec", '{"command":"x"}', request_id=9)
    ctx = dataclasses.replace(HOST, operation_seed=b"forged")
    forged = parsed_receipt(mint.mint_host_v3(frame, BUDGET, ctx=ctx))
    trace = Cert("temporal", "allow", "trace ok (1 events)")
    forged = restate(forged, [Cert("safety", "allow", "flat deny: shell_exec"), trace])
    forged = mint.resign_v3(forged, mint.RECEIPT_KEY, str(forged["signature"]["domain"]))  # type: ignore[index]
    replays = _replays([log_line_of(forged), log_line_of(allowed_call(1, 1))])
    assert [r[0] for r in replays] == ["fail", "not-evaluated"]
    assert "(line 1) was refuted" in replays[1][1]


# --- copies count once only within one session ---------------------------------------------


def test_a_copy_relabelled_to_another_session_is_not_handed_its_result() -> None:
    first, second, other, copy = relabel_attack()
    assert (
        verify_receipt(log_line_of(copy), "c", OPTIONS).outcome == "VERIFIED"
    )  # alone: honest-looking
    assert [r[0] for r in _replays([log_line_of(other), log_line_of(copy)])] == ["pass", "fail"]
    for order in ([first, second, other, copy], [first, second, copy, other]):
        replays = _replays([log_line_of(d) for d in order])
        # One operation in two sessions: both halves fail, and what follows each is unknown.
        assert [r[0] for r in replays[:2]] == ["fail", "not-evaluated"]
        copied = replays[order.index(copy)]
        assert copied[0] == "fail" and "is in session" in copied[1]
        assert "operation: " in replays[0][1] and "(one operation is one call" in replays[0][1]


def test_one_operation_in_two_sessions_fails_even_when_each_is_alone() -> None:
    # Neither session needs the session pass (one receipt each, claiming the first call): the
    # operation named in both is still a contradiction.
    first, _, _, copy = relabel_attack()
    assert [r[0] for r in _replays([log_line_of(first), log_line_of(copy)])] == ["fail", "fail"]
    assert [r[0] for r in _replays([log_line_of(first), log_line_of(first)])] == ["pass", "pass"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_relabelled_copy_among_files_is_re_derived_in_its_own_session(
    tmp_path: Path, jobs: str
) -> None:
    first, second, other, copy = relabel_attack()
    calls = {"a1.json": first, "a2.json": second, "b1.json": other, "copy.json": copy}
    files = _files(tmp_path / "s", calls)
    statuses = _statuses(_cli(str(files), *PIN_ARGS, "--jobs", jobs).stdout)
    assert statuses["a1.json"] == "fail" and statuses["a2.json"] == "not-evaluated"
    assert statuses["copy.json"] == "fail"
    alone = _files(tmp_path / "alone", {"a1.json": first, "copy.json": copy})
    assert set(_statuses(_cli(str(alone), *PIN_ARGS, "--jobs", jobs).stdout).values()) == {"fail"}
    log = tmp_path / "run.jsonl"
    log.write_bytes(b"".join(log_line_of(d) + b"\n" for d in calls.values()))
    report = json.loads(_cli(str(log), *PIN_ARGS, "--jobs", jobs).stdout)["subjects"]
    replays = [
        next(c["status"] for c in s["checks"] if c["id"] == "replay.decision") for s in report
    ]
    assert replays[:2] == ["fail", "not-evaluated"] and replays[3] == "fail"
