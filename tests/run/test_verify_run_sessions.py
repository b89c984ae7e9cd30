"""One run is one body of evidence: a session's receipts are re-derived across every input.

Hosts rotate their logs and auditors pass a log with loose files. The receipts of one session
in two logs, or in a log and separate files, were re-derived per input, so two receipts claiming
position 1 of one session were both VERIFIED when they sat in two inputs, and an over-budget
second call was only REDUCED beside its first call in another log. Every attack here is
re-signed under the pinned test keys on the current kernel build, given as two logs, a log and
files, one directory holding both, and a glob, under ``--jobs 1`` and ``--jobs 2``.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sealverify_testkit import mint
from sealverify_testkit.records import Cert

from sealverify._internal.cli.main import cli
from tests.helpers.kernel_minting import CONFIG, HOST, Receipt
from tests.helpers.verify_sessions import ALLOW, PIN_ARGS, allowed_call, log_line_of
from tests.helpers.verify_stateless import parsed_receipt, restate


def _honest(index: int, position: int) -> Receipt:
    """Call ``index`` of the session at ``position``, under a policy with no budget."""
    frame = mint.tools_call_frame("search_notes", f'{{"q":"{index}"}}', request_id=index)
    ctx = dataclasses.replace(HOST, temporal_events=position, operation_seed=bytes([index]))
    doc = parsed_receipt(mint.mint_host_v3(frame, CONFIG, ctx=ctx))
    doc = restate(doc, [ALLOW, Cert("temporal", "allow", f"trace ok ({position} events)")])
    return mint.resign_v3(doc, mint.RECEIPT_KEY, str(doc["signature"]["domain"]))  # type: ignore[index]


def _replays(stdout: str) -> dict[str, tuple[str, str]]:
    return {
        s["name"]: next(
            (c["status"], c["reason"]) for c in s["checks"] if c["id"] == "replay.decision"
        )
        for s in json.loads(stdout)["subjects"]
    }


def _verify(*args: str, jobs: str) -> dict[str, tuple[str, str]]:
    result = CliRunner().invoke(cli, ["verify", *args, *PIN_ARGS, "--jobs", jobs])
    assert result.exit_code in (0, 1, 4), result.output
    return _replays(result.stdout)


def _layouts(tmp_path: Path, first: list[Receipt], second: list[Receipt]) -> dict[str, list[str]]:
    """The same receipts as two logs, a log and files, one directory, and a glob."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_bytes(b"".join(log_line_of(d) + b"\n" for d in first))
    (logs / "b.jsonl").write_bytes(b"".join(log_line_of(d) + b"\n" for d in second))
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "a.jsonl").write_bytes(b"".join(log_line_of(d) + b"\n" for d in first))
    for n, doc in enumerate(second):
        (mixed / f"r{n}.json").write_bytes(mint.render_pretty(doc))
    return {
        "two logs": [str(logs / "a.jsonl"), str(logs / "b.jsonl")],
        "log and files": [
            str(mixed / "a.jsonl"),
            *(str(mixed / f"r{n}.json") for n in range(len(second))),
        ],
        "directory": [str(mixed)],
        "glob": [str(logs / "*.jsonl")],
    }


LAYOUTS = ["two logs", "log and files", "directory", "glob"]


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_two_receipts_claiming_one_position_in_two_inputs_fail(
    tmp_path: Path, layout: str, jobs: str
) -> None:
    args = _layouts(tmp_path, [allowed_call(1, 1)], [allowed_call(2, 1)])[layout]
    statuses = sorted(status for status, _ in _verify(*args, jobs=jobs).values())
    assert statuses == ["fail", "pass"]


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_an_over_budget_call_in_another_input_is_refuted(
    tmp_path: Path, layout: str, jobs: str
) -> None:
    args = _layouts(tmp_path, [allowed_call(1, 1)], [allowed_call(2, 2)])[layout]
    replays = list(_verify(*args, jobs=jobs).values())
    assert [r[0] for r in replays] == ["pass", "fail"]
    assert "the model 'block'" in replays[1][1]


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_gap_across_inputs_leaves_the_later_calls_not_evaluated_named(
    tmp_path: Path, layout: str, jobs: str
) -> None:
    args = _layouts(tmp_path, [_honest(1, 1)], [_honest(3, 3), _honest(4, 4)])[layout]
    replays = list(_verify(*args, jobs=jobs).values())
    assert [r[0] for r in replays] == ["pass", "not-evaluated", "not-evaluated"]
    assert "position 2 is not among its receipts here" in replays[1][1]


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_an_honest_session_across_inputs_passes_in_the_order_of_its_positions(
    tmp_path: Path, layout: str, jobs: str
) -> None:
    # The later log first on the command line: the positions give the order, not the inputs.
    args = _layouts(tmp_path, [_honest(1, 1), _honest(2, 2)], [_honest(3, 3)])[layout]
    replays = list(_verify(*args, jobs=jobs).values())
    assert [r[0] for r in replays] == ["pass", "pass", "pass"]
    assert (
        "(call 3 of its session in the order of the positions its receipts claim)" in replays[2][1]
    )
    reverse = _verify(*reversed(args), jobs=jobs) if len(args) > 1 else None
    if reverse is not None:
        assert sorted(r[0] for r in reverse.values()) == ["pass", "pass", "pass"]


def test_a_missing_first_call_across_inputs_is_named(tmp_path: Path) -> None:
    args = _layouts(tmp_path, [_honest(2, 2)], [_honest(3, 3)])["two logs"]
    replays = list(_verify(*args, jobs="1").values())
    assert [r[0] for r in replays] == ["not-evaluated", "not-evaluated"]
    assert "the session's first call is not among its receipts here" in replays[0][1]


def test_the_session_index_holds_one_entry_per_session_not_per_receipt() -> None:
    from sealverify._internal.receipts.session_index import SessionIndex

    index = SessionIndex()
    for receipt in range(100_000):
        index.see(f"session-{receipt % 1000}", receipt % 3)
    assert len(index.numbers) == len(index.names) == len(index.sources) == 1000
    assert len(index.spanning()) == 1000 and not len(index.operations)
    lone = SessionIndex()
    for receipt in range(10_000):
        lone.see(f"session-{receipt % 10}", 7)
    assert len(lone.numbers) == 10 and not lone.spanning()


def test_the_index_refutes_an_operation_in_two_sessions_only() -> None:
    from sealverify._internal.receipts.session_index import SessionIndex

    index = SessionIndex()
    for copy in range(3):  # copies of one call, re-signed as its release status moves
        index.see("a", copy, "op-1")
    index.see("b", 0, "op-2")
    assert not index.contested and index.contradiction("a", "op-1") is None
    index.see("b", 1, "op-1")
    why = index.contradiction("a", "op-1")
    assert why is not None and "op-1 is in session a and in session b" in why
    assert index.contradiction("b", "op-2") is None


def test_a_cluster_re_derives_a_session_across_inputs_the_same(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    args = _layouts(tmp_path, [allowed_call(1, 1)], [allowed_call(2, 1), allowed_call(3, 2)])[
        "log and files"
    ]
    local = CliRunner().invoke(cli, ["verify", *args, *PIN_ARGS, "--jobs", "1"])
    clustered = CliRunner().invoke(
        cli, ["verify", *args, *PIN_ARGS, "--cluster", "local:1", "--partition-size", "1"]
    )
    assert clustered.stdout == local.stdout
    assert sorted(s for s, _ in _replays(local.stdout).values()) == [
        "fail",
        "not-evaluated",
        "pass",
    ]


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_copy_relabelled_to_another_session_in_another_input_fails_both_halves(
    tmp_path: Path, layout: str, jobs: str
) -> None:
    from tests.helpers.verify_sessions import relabel_attack

    first, _, _, copy = relabel_attack()
    args = _layouts(tmp_path, [first], [copy])[layout]
    replays = list(_verify(*args, jobs=jobs).values())
    assert [r[0] for r in replays] == ["fail", "fail"]
    assert all("(one operation is one call, in one session)" in r[1] for r in replays)
