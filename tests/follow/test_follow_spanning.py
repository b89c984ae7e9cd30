"""A session whose receipts sit in several followed inputs is one pass, as in a batch run.

A batch ``verify`` re-derives a session across every input of the run (two logs, a log and a
receipt directory: ``receipts/spanning.py``), so a forged later call is refuted against the
earlier calls wherever they sit, and two receipts claiming one position are ``fail``. The
follower judges each receipt as it lands; what it stores must equal one batch run over the
final files, also when it restarts between the calls (the session resumed from its state).
"""

from __future__ import annotations

from pathlib import Path

from sealverify._internal.follow.engine import FollowConfig, Follower
from sealverify._internal.follow.folders import Found
from tests.helpers.follow_support import (
    LONG,
    OPTIONS,
    append,
    batch_outcomes,
    plain_receipts,
    session_call,
)


def _follower(root: Path, logs: tuple[Path, ...], folders: tuple[Path, ...] = ()) -> Follower:
    config = FollowConfig(
        tuple(map(str, logs)), tuple(map(str, folders)), (), OPTIONS, str(root / "state.db")
    )
    return Follower(config)


class _Following:
    """One follower kept up, or a new one at each look (a restart between every landing)."""

    def __init__(
        self, root: Path, logs: tuple[Path, ...], folders: tuple[Path, ...], restart: bool
    ) -> None:
        self.root, self.logs, self.folders, self.restart = root, logs, folders, restart
        self.follower: Follower | None = None

    def look(self) -> None:
        if self.follower is None or self.restart:
            if self.follower is not None:
                self.follower.close()
            self.follower = _follower(self.root, self.logs, self.folders)
        self.follower.step()
        self.follower.commit()

    def batch(self, folders_first: bool = False) -> dict[str, str]:
        """Each receipt's outcome in one batch run over the followed inputs that exist.

        A batch run places two receipts claiming one position in input order: the inputs
        are given in the order their receipts landed.
        """
        inputs = (*self.folders, *self.logs) if folders_first else (*self.logs, *self.folders)
        return batch_outcomes(*(str(p) for p in inputs if p.exists()))

    def stored(self) -> dict[str, str]:
        """Each stored receipt's outcome by its name."""
        assert self.follower is not None
        judged = self.follower.store.judged()
        self.follower.close()
        assert {n for _, n in judged.values()} == {1}  # each judged into the store once
        return {subject: outcome for (_, subject), (outcome, _) in judged.items()}


def _setup(tmp_path: Path, restart: bool) -> tuple[_Following, Path, Path, Path]:
    root = tmp_path / ("restarted" if restart else "kept")
    folder = root / "receipts"
    folder.mkdir(parents=True)
    first, second = root / "a.jsonl", root / "b.jsonl"
    return _Following(root, (first, second), (folder,), restart), first, second, folder


def test_a_forged_call_in_a_directory_is_refuted_by_the_call_in_a_log(tmp_path: Path) -> None:
    # The attacker holds the keys and writes an over-budget second call as a receipt file:
    # alone it is a session missing its first call (not evaluated); a batch run over the log
    # and the directory re-derives the session across both and refutes it.
    for restart in (False, True):
        following, log, _, folder = _setup(tmp_path, restart)
        append(log, session_call(7, 1, 1) + b"\n")
        following.look()
        (folder / "forged.json").write_bytes(session_call(7, 2, 2))
        following.look()
        stored = following.stored()
        assert stored[str(folder / "forged.json")] == "FAIL", restart
        assert stored == following.batch(), restart


def test_a_forged_call_in_a_second_log_is_refuted_by_the_call_in_the_first(
    tmp_path: Path,
) -> None:
    # Two logs (a host's log rotated into a new name): the session's calls in both.
    for restart in (False, True):
        following, log, other, _ = _setup(tmp_path, restart)
        append(log, session_call(8, 1, 1) + b"\n")
        following.look()
        append(other, session_call(8, 2, 2) + b"\n")
        following.look()
        stored = following.stored()
        assert stored[f"{other}:1"] == "FAIL", restart
        assert stored == following.batch(), restart


def test_two_receipts_claiming_one_position_in_two_inputs_fail(tmp_path: Path) -> None:
    # An honest session of a long budget (its calls pass), then a second receipt claiming
    # the position of call 2, re-signed, in a receipt file; after a restart the session is
    # resumed from its checkpointed state (made in a log) by a receipt of the directory.
    for restart in (False, True):
        following, log, other, folder = _setup(tmp_path, restart)
        append(log, session_call(9, 1, 1, config=LONG) + b"\n")
        following.look()
        append(log, session_call(9, 2, 2, config=LONG) + b"\n")
        following.look()
        (folder / "again.json").write_bytes(session_call(9, 3, 2, config=LONG))
        following.look()
        append(other, session_call(9, 4, 3, config=LONG) + b"\n")
        following.look()
        stored = following.stored()
        assert stored[str(folder / "again.json")] == "FAIL", restart
        assert stored[f"{log}:2"] == "VERIFIED", restart
        assert stored == following.batch(), restart


def test_a_session_begun_in_a_directory_goes_on_in_a_log(tmp_path: Path) -> None:
    # The reverse: the session's pass is made from directory files, then a log's line
    # (a forged over-budget call) is judged against it.
    for restart in (False, True):
        following, log, _, folder = _setup(tmp_path, restart)
        (folder / "1.json").write_bytes(session_call(10, 1, 1, config=LONG))
        following.look()
        (folder / "2.json").write_bytes(session_call(10, 2, 2, config=LONG))
        following.look()
        append(log, session_call(10, 3, 2, config=LONG) + b"\n")
        following.look()
        stored = following.stored()
        assert stored[f"{log}:1"] == "FAIL", restart
        assert stored == following.batch(folders_first=True), restart


def test_calls_landing_in_two_inputs_at_one_look_are_judged_in_their_order(
    tmp_path: Path,
) -> None:
    # A follower catching up (after a restart) finds a session's first call as a receipt
    # file and its forged second call in a log at one look: the file's call is judged first,
    # by the positions they claim, as a batch run re-derives them; and the reverse, the first
    # call in a log and the second in a directory.
    following, log, other, folder = _setup(tmp_path, False)
    (folder / "1.json").write_bytes(session_call(11, 1, 1))
    append(log, session_call(11, 2, 2) + b"\n")
    append(other, session_call(12, 1, 1) + b"\n")
    (folder / "2.json").write_bytes(session_call(12, 2, 2))
    following.look()
    stored = following.stored()
    assert stored[f"{log}:1"] == "FAIL"
    assert stored[str(folder / "2.json")] == "FAIL"
    assert stored == following.batch()


def test_a_call_waits_only_for_the_earlier_calls_of_its_own_session(tmp_path: Path) -> None:
    # At one look the log holds another session's third call, then session 14's first call;
    # the directory session 14's forged second call. It waits for its session's first call,
    # not for the other session's higher position ahead of it in the log.
    following, log, _, folder = _setup(tmp_path, False)
    append(log, session_call(13, 1, 1, config=LONG) + b"\n" + session_call(13, 2, 2, config=LONG))
    append(log, b"\n")
    following.look()
    append(log, session_call(13, 3, 3, config=LONG) + b"\n" + session_call(14, 1, 1) + b"\n")
    (folder / "forged.json").write_bytes(session_call(14, 2, 2))
    following.look()
    stored = following.stored()
    assert stored[str(folder / "forged.json")] == "FAIL"
    assert stored[f"{log}:3"] == stored[f"{log}:4"] == "VERIFIED"
    assert stored == following.batch()


def test_files_wait_while_a_log_catches_up_from_further_back_than_one_look(
    tmp_path: Path,
) -> None:
    # A follower that reads a log 4 KiB a look finds, at its first look, the directory's
    # forged second call of a session whose first call is further down the log: the file
    # is held until the log is read to its end, then refuted as a batch run refutes it.
    log, folder = tmp_path / "a.jsonl", tmp_path / "receipts"
    folder.mkdir()
    append(log, b"".join(line + b"\n" for line in plain_receipts(6)))
    append(log, session_call(15, 1, 1) + b"\n")
    (folder / "forged.json").write_bytes(session_call(15, 2, 2))
    config = FollowConfig(
        (str(log),), (str(folder),), (), OPTIONS, str(tmp_path / "state.db"), batch_bytes=4096
    )
    follower = Follower(config)
    for _ in range(20):
        follower.step()
        follower.commit()
    judged = follower.store.judged()
    follower.close()
    stored = {subject: outcome for (_, subject), (outcome, _) in judged.items()}
    assert len(stored) == 8
    assert stored[str(folder / "forged.json")] == "FAIL"
    assert stored == batch_outcomes(str(log), str(folder))


def test_the_merge_of_inputs_keeps_each_input_s_order_and_ends_on_crossed_claims() -> None:
    from sealverify._internal.follow.engine import _in_order
    from sealverify._internal.follow.tail import Line

    places = {
        b"a3": ("s", 3, True),
        b"a1": ("s", 1, True),
        b"b2": ("s", 2, True),
        b"b-other": ("t", 9, True),
        b"plain": None,
    }

    def stream(index: int, *names: bytes) -> list[tuple[int, Line | Found]]:
        return [(index, Line("log", n, 0, name)) for n, name in enumerate(names, start=1)]

    def order(*streams: list[tuple[int, Line | Found]]) -> list[bytes]:
        return [item.data for _, item in _in_order(list(streams), places.__getitem__)]

    # Each input's own order is kept; a receipt waits for an earlier place of its session.
    assert order(stream(0, b"plain", b"b2"), stream(1, b"a1")) == [b"plain", b"a1", b"b2"]
    assert order(stream(0, b"b-other", b"b2"), stream(1, b"a1")) == [b"b-other", b"a1", b"b2"]
    # Claims that cross (each input's next waits for the other's): the first input's goes.
    assert order(stream(0, b"a3", b"a1"), stream(1, b"b2")) == [b"a3", b"a1", b"b2"]
    assert order(stream(0), stream(1, b"a1", b"a3")) == [b"a1", b"a3"]
