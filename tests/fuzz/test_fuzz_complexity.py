"""The complexity check's cases and verdicts (fuzz/complexity.py), without timing anything.

``python -m fuzz complexity`` times each case; here each case's smallest input is run once
(its command must give the exit code the case expects, so the input reaches the scan it is
meant for), and the verdict is worked out from figures written by hand.
"""

from __future__ import annotations

import pytest

from fuzz import complexity
from fuzz.complexity import CASES, MAX_GROWTH, Case, Figure


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_each_case_reaches_what_it_covers(case: Case) -> None:
    small = case.make(1)
    assert len(small) < len(case.make(2)) < len(case.make(4))
    code = case.run(small)
    if case.expect is not None:
        assert code in case.expect


def _figure(
    seconds: tuple[float, ...], peak: int = 0, peaks: tuple[int, ...] | None = None
) -> Figure:
    case = Case("shape", "a hand-written figure", lambda n: b"x" * n, lambda data: None)
    return Figure(case, (1000, 2000, 4000, 8000), seconds, peaks or (peak, peak, peak, peak))


def test_linear_time_passes_and_quadratic_time_fails() -> None:
    linear = _figure((0.1, 0.2, 0.4, 0.8))
    assert linear.growth == pytest.approx(2.0) and not linear.failures
    quadratic = _figure((0.1, 0.4, 1.6, 6.4))
    assert quadratic.growth == pytest.approx(4.0)
    assert quadratic.failures == [f"time grows 4.00x per doubling (bound {MAX_GROWTH}x)"]
    # one slow cell among linear ones does not decide the fit on its own
    assert not _figure((0.1, 0.2, 0.9, 0.8)).failures


def test_a_peak_past_the_bound_fails() -> None:
    bound = _figure((0.1, 0.2, 0.4, 0.8)).peak_bound
    assert not _figure((0.1, 0.2, 0.4, 0.8), peak=bound).failures
    assert _figure((0.1, 0.2, 0.4, 0.8), peak=bound + 1).failures[0].startswith("peak ")


def test_memory_that_grows_faster_than_the_input_fails() -> None:
    times = (0.1, 0.2, 0.4, 0.8)
    linear = _figure(times, peaks=(1 << 20, 2 << 20, 4 << 20, 8 << 20))
    assert linear.memory_growth == pytest.approx(2.0) and not linear.failures
    quadratic = _figure(times, peaks=(1 << 16, 4 << 16, 16 << 16, 64 << 16))
    assert quadratic.memory_growth == pytest.approx(4.0)
    assert quadratic.failures == [f"memory grows 4.00x per doubling (bound {MAX_GROWTH}x)"]
    # a fixed cost with a small linear part grows less than 2x, and passes
    assert not _figure(times, peaks=(40 << 20, 41 << 20, 43 << 20, 47 << 20)).failures


def test_a_refused_input_is_a_failed_case(capsys: pytest.CaptureFixture[str]) -> None:
    refused = Case("refused", "exit 2 where 1 is expected", lambda n: b"x" * n, lambda _: 2,
                   frozenset({1}))  # fmt: skip
    with pytest.raises(AssertionError, match="exit 2"):
        complexity.measure(refused)
    original = complexity.CASES
    try:
        complexity.CASES = (refused,)
        assert complexity.run_complexity() == 1
    finally:
        complexity.CASES = original
    assert "refused" in capsys.readouterr().out


def test_time_waiting_for_a_core_is_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    # On a shared machine the wall clock also counts the time a run waits while other work
    # has the cores; a linear case once fitted 3.17x per doubling so. The CPU time the case
    # uses is what is measured: here the wall clock runs on by a second per byte of input at
    # every run (the largest input waits longest), and the figure is the work's own.
    work = {"cpu": 0.0, "wall": 0.0}

    def run(data: bytes) -> None:
        work["cpu"] += len(data) * 1e-6  # linear work
        work["wall"] += len(data) * 1e-6 + (len(data) / 1000) ** 2  # and a quadratic wait

    monkeypatch.setattr(complexity.time, "process_time", lambda: work["cpu"])
    monkeypatch.setattr(complexity.time, "perf_counter", lambda: work["wall"])
    monkeypatch.setattr(complexity.time, "monotonic", lambda: work["wall"])
    case = Case("linear", "linear work on a loaded machine", lambda n: b"x" * (1000 * n), run)
    figure = complexity.measure(case)
    assert figure.growth == pytest.approx(2.0) and not figure.failures


def test_a_fit_past_the_line_is_measured_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # Load only adds time: the sizes' least times over more runs decide, and a slope that
    # stays after them is the case's own.
    clock = [0.0]
    runs: list[int] = []

    def noisy(data: bytes) -> None:  # the largest size is slow in its first five runs only
        runs.append(len(data))
        slow = len(data) == 8000 and runs.count(8000) <= 6
        clock[0] += len(data) * 1e-6 * (3 if slow else 1)

    monkeypatch.setattr(complexity.time, "process_time", lambda: clock[0])
    linear = complexity.measure(Case("noisy", "", lambda n: b"x" * (1000 * n), noisy))
    assert linear.growth == pytest.approx(2.0) and not linear.failures
    assert runs.count(8000) == 1 + 2 * 5 + 1  # set-up, two rounds, the memory run

    def quadratic(data: bytes) -> None:
        clock[0] += (len(data) / 1000) ** 2

    steep = complexity.measure(Case("quadratic", "", lambda n: b"x" * (1000 * n), quadratic))
    assert steep.growth == pytest.approx(4.0) and steep.failures
