"""The grouping pass's readings handed to the tasks: the same facts, the same reports, bounded.

A run in one process parses each receipt once: the strict reading the session grouping makes
is the one the task verifies; under ``--jobs N`` and ``--cluster`` the frames the session pass
decoded travel with their tasks to the workers, within a bound. It must give the grouping
exactly the facts :func:`glance` gives, be used only for the very bytes it was made of (an
attacker who can change a file between the two passes gets the new bytes verified), and
never hold more than its budget.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sealverify_testkit import mint

from sealverify._internal.cli.main import cli
from sealverify._internal.receipts.families import read_document
from sealverify._internal.receipts.sessions import glance
from sealverify._internal.receipts.verify import verify_log_line, verify_receipt
from sealverify._internal.run import engine
from sealverify._internal.run.handoff import DOCUMENT_WEIGHT, Handoff
from tests.helpers.verify_sessions import OPTIONS, PIN_ARGS, allowed_call, log_line_of

FIRST = log_line_of(allowed_call(1, 1))
SECOND = log_line_of(allowed_call(2, 2))

# Bytes the strict parser and orjson read differently, or that only look like a session.
SAMPLES = {
    "receipt": FIRST,
    "second call": SECOND,
    "session name escaped": SECOND.replace(b'"session"', b'"sess\\u0069on"'),
    "duplicate member": SECOND[:-1] + b',"now":1}',  # orjson keeps the last, strict refuses
    "byte order mark": b"\xef\xbb\xbf" + FIRST,
    "carriage return": FIRST + b"\r",
    "root an array": b"[" + FIRST + b"]",
    "not json": b'{"effect_view":{"session":"s"',
    "empty": b"",
    "no session": b'{"effect_view":{"sessions":"s"}}',
}


@pytest.mark.parametrize("data", SAMPLES.values(), ids=list(SAMPLES))
def test_a_kept_reading_gives_the_grouping_what_glance_gives(data: bytes) -> None:
    files = Handoff(1 << 20, 1 << 20)
    files.kept["f.json"] = data
    assert files.look("f.json", data) == glance(data)
    assert "f.json" in files.readings


def test_a_reading_is_used_only_for_the_bytes_it_was_made_of() -> None:
    tampered = SECOND.replace(b'"q\\":\\"2\\"', b'"q\\":\\"9\\"')
    assert tampered != SECOND
    honest_reading = read_document(SECOND)
    handed = verify_receipt(tampered, "r", OPTIONS, read=honest_reading)
    assert handed == verify_receipt(tampered, "r", OPTIONS)
    assert handed.outcome == "FAIL"
    line = verify_log_line(tampered, 1, "log", OPTIONS, read=honest_reading)
    assert line == verify_log_line(tampered, 1, "log", OPTIONS)
    # and the reading of equal bytes is the reading used (no second parse needed)
    assert verify_receipt(bytes(SECOND), "r", OPTIONS, read=honest_reading) == verify_receipt(
        SECOND, "r", OPTIONS
    )


def test_beyond_the_budget_nothing_more_is_kept(tmp_path: Path) -> None:
    size = len(FIRST)
    room = (1 + DOCUMENT_WEIGHT) * size + size  # one file with its reading, one without
    files = Handoff(1 << 20, room)
    names = [(tmp_path / f"{n}.json").as_posix() for n in "abc"]
    for name in names:
        Path(name).write_bytes(FIRST)
        data = files(name)
        assert data == FIRST
        assert files.look(name, data) == glance(FIRST)
    assert list(files.kept) == names[:2] and list(files.readings) == names[:1]
    assert files.room == 0
    data, readings, views = files.hand_over(names)
    assert [n for n, _ in data] == names[:2] and [n for n, _ in readings] == names[:1]
    assert views == ()  # a view is made only for the session pass
    assert files.room == room  # what was handed over is no longer charged


def _verify(*args: str) -> str:
    result = CliRunner().invoke(cli, ["verify", *args, *PIN_ARGS], catch_exceptions=False)
    return result.stdout


def test_one_process_reports_as_workers_do_over_files_and_logs(tmp_path: Path) -> None:
    """Workers get only the session pass's frames: one process reports byte for byte the same."""
    files = tmp_path / "files"
    files.mkdir()
    (files / "b.json").write_bytes(mint.render_pretty(allowed_call(1, 1)))
    (files / "a.json").write_bytes(mint.render_pretty(allowed_call(3, 2)))
    (files / "c.json").write_bytes(SAMPLES["duplicate member"])
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"\n".join([*SAMPLES.values(), FIRST, SECOND]) + b"\n")
    for target in (files, log):
        one = _verify(str(target), "--jobs", "1")
        assert one == _verify(str(target), "--jobs", "2")
        assert json.loads(one)["subjects"]


def test_tasks_hand_each_reading_to_the_task_of_its_file(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(FIRST)
    (tmp_path / "b.json").write_bytes(SECOND)
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"\n".join([FIRST, SECOND]) + b"\n")
    found = list(engine.expand([str(tmp_path / "a.json"), str(log), str(tmp_path / "b.json")]))
    cut = list(engine.tasks(iter(found), OPTIONS, keep=1 << 20, in_process=True))
    assert [type(task).__name__ for task in cut] == ["_Files", "_LogSlice", "_Files"]
    for task, name, data in ((cut[0], "a.json", FIRST), (cut[2], "b.json", SECOND)):
        assert isinstance(task, engine._Files)
        assert [(Path(n).name, r.raw) for n, r in task.readings] == [(name, data)]
    elsewhere = list(engine.tasks(iter(found), OPTIONS, keep=1 << 20))  # workers read theirs
    assert all(not task.readings for task in elsewhere if isinstance(task, engine._Files))
    none = list(engine.tasks(iter(found), OPTIONS, keep=0, in_process=True))
    assert all(not task.readings for task in none if isinstance(task, engine._Files))


# --- a session's re-derivation holds only for the bytes it was made of ------------------------


def _replay_statuses(stdout: str) -> list[str]:
    return [
        next(c["status"] for c in s["checks"] if c["id"] == "replay.decision")
        for s in json.loads(stdout)["subjects"]
    ]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_changed_after_the_session_pass_is_not_judged_by_its_replay(
    tmp_path: Path, jobs: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The session pass sees two copies of the session's first call (both pass); then one
    # file is replaced by the over-budget second call. Handed the copy's pass it would be
    # VERIFIED; its place in the session is unknown, so it is not re-derived (REDUCED).
    directory = tmp_path / "s"
    directory.mkdir()
    (directory / "a.json").write_bytes(FIRST)
    (directory / "b.json").write_bytes(FIRST)
    real = engine.session_rederivations_of_facts

    def then_changed(*args: object, **kwargs: object) -> object:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        (directory / "b.json").write_bytes(SECOND)
        return found

    monkeypatch.setattr(engine, "session_rederivations_of_facts", then_changed)
    monkeypatch.setattr("sealverify._internal.run.sources._KEEP", 0)  # past the hand-over budget
    result = CliRunner().invoke(cli, ["verify", str(directory), *PIN_ARGS, "--jobs", jobs])
    assert _replay_statuses(result.stdout) == ["pass", "not-evaluated"]
    assert result.exit_code == 4, result.output


def test_a_log_line_changed_after_the_session_pass_is_not_judged_by_its_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Workers read the log again after the session pass: a line changed in between is not
    # handed the result of the bytes the pass read.
    log = tmp_path / "run.jsonl"
    log.write_bytes(FIRST + b"\n" + FIRST + b"\n")
    real = engine._session_pass

    def then_changed(*args: object) -> object:
        found = dict(real(*args))  # type: ignore[arg-type]
        log.write_bytes(FIRST + b"\n" + SECOND + b"\n")
        return iter(found.items())

    monkeypatch.setattr(engine, "_session_pass", then_changed)
    result = CliRunner().invoke(cli, ["verify", str(log), *PIN_ARGS, "--jobs", "2"])
    assert _replay_statuses(result.stdout) == ["pass", "not-evaluated"]
    assert result.exit_code == 4, result.output


def test_a_reading_handed_with_a_log_line_is_used_only_for_its_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under --jobs 2 the frames the session pass decoded of each line travel to the worker
    # with its result. A line forged after the pass (changed, not re-signed) is verified from
    # its own bytes, never from what the pass read of other bytes (which would pass).
    log = tmp_path / "run.jsonl"
    log.write_bytes(FIRST + b"\n" + SECOND + b"\n")
    real = engine._session_pass

    def then_forged(*args: object) -> object:
        found = dict(real(*args))  # type: ignore[arg-type]
        assert [bound.frames is not None for bound in found.values()] == [True, True]
        log.write_bytes(FIRST + b"\n" + SECOND.replace(b'"now":', b'"now":1', 1) + b"\n")
        return iter(found.items())

    monkeypatch.setattr(engine, "_session_pass", then_forged)
    result = CliRunner().invoke(cli, ["verify", str(log), *PIN_ARGS, "--jobs", "2"])
    subjects = json.loads(result.stdout)["subjects"]
    assert [s["outcome"] for s in subjects] == ["VERIFIED", "FAIL"], result.output
    failed = [c["id"] for c in subjects[1]["checks"] if c["status"] == "fail"]
    assert "signature.object-b" in failed


def test_a_slice_carries_readings_within_its_room_and_reports_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a task carries of the session pass's frames is bounded: past the slice's room a
    # line's result travels alone and its worker decodes it again, with the same report.
    log = tmp_path / "run.jsonl"
    log.write_bytes(FIRST + b"\n" + SECOND + b"\n")
    one = _verify(str(log), "--jobs", "1")
    (task,) = engine.tasks([(log, False)], OPTIONS)
    assert isinstance(task, engine._LogSlice)
    first = dict(task.session_rederivations)[1].weight
    monkeypatch.setattr(engine, "_SHIP", first)  # room for the first line's frames alone
    (task,) = engine.tasks([(log, False)], OPTIONS)
    assert isinstance(task, engine._LogSlice)
    carried = [(n, bound.frames is not None) for n, bound in task.session_rederivations]
    assert carried == [(1, True), (2, False)]
    assert _verify(str(log), "--jobs", "2") == one


def test_a_log_line_changed_after_the_glance_is_re_derived_from_its_own_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In one process a line is re-derived from the very reading its checks use: a line that
    # changed after the pass found the sessions is re-derived as what it now is (here the
    # session's second call, over its budget: the model blocks it), never handed the result
    # of the copy the pass saw (which would pass).
    log = tmp_path / "run.jsonl"
    log.write_bytes(FIRST + b"\n" + FIRST + b"\n")
    real = engine._live

    def then_changed(*args: object) -> object:
        found = real(*args)  # type: ignore[arg-type]
        log.write_bytes(FIRST + b"\n" + SECOND + b"\n")
        return found

    monkeypatch.setattr(engine, "_live", then_changed)
    result = CliRunner().invoke(cli, ["verify", str(log), *PIN_ARGS, "--jobs", "1"])
    reasons = [
        next(c["reason"] for c in s["checks"] if c["id"] == "replay.decision")
        for s in json.loads(result.stdout)["subjects"]
    ]
    assert _replay_statuses(result.stdout) == ["pass", "fail"], reasons
    assert "the model 'block'" in reasons[1]
    assert result.exit_code == 1, result.output
