"""The run's session index: an operation in two sessions found in flat memory, on disk beyond."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sealverify._internal.receipts.session_index import RECORD, OperationLedger, SessionIndex


def test_an_operation_in_two_sessions_is_found_across_runs_written_to_disk() -> None:
    index = SessionIndex(bound=4)  # a sorted run written out every four records
    for call in range(50):
        for _ in range(2):  # a copy of one call, re-signed: the same session
            index.see(f"s{call % 5}", call % 2, f"op-{call}")
    assert len(index.operations) == 100 and not index.contested
    assert index.operations._runs  # the records went to disk, in sorted runs
    index.see("s4", 1, "op-3")  # op-3 runs in s3: this half sits in another run
    why = index.contradiction("s3", "op-3")
    assert why is not None and "op-3 is in session s3 and in session s4" in why
    assert index.contradiction("s4", "op-3") is not None
    assert index.contradiction("s3", "op-8") is None
    index.close()  # the records go, the answer stays
    assert index.contradiction("s4", "op-3") is not None
    assert not index.operations.buffer and not index.operations._runs


def test_the_answer_follows_every_record_added_after_a_look() -> None:
    ledger = OperationLedger(bound=2)
    ledger.add(b"a" * 16, 1)
    ledger.add(b"b" * 16, 1)
    ledger.add(b"a" * 16, 1)
    assert ledger.contested() == {}
    ledger.add(b"a" * 16, 2)
    assert ledger.contested() == {b"a" * 16: frozenset({1, 2})}
    ledger.close()


def test_a_full_disk_keeps_the_records_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("tempfile.TemporaryFile", refused)
    ledger = OperationLedger(bound=2)
    for n in range(10):
        ledger.add(bytes([n]) * 16, n % 2)
    ledger.add(bytes([3]) * 16, 0)
    assert len(ledger.buffer) == 11 * RECORD
    assert ledger.contested() == {bytes([3]) * 16: frozenset({0, 1})}


_CHILD = """
import resource, sys
from sealverify._internal.receipts.session_index import SessionIndex
index = SessionIndex()
for receipt in range(int(sys.argv[1])):
    index.see(f"session-{receipt % 1000:04d}", receipt % 3, f"operation-{receipt}")
index.see("session-0001", 0, "operation-5")
assert len(index.contested) == 1
index.close()
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_kib(entries: int) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(entries)], capture_output=True, text=True, check=True
    )
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB on Linux")
def test_the_index_of_a_million_receipts_in_a_thousand_sessions_stays_flat() -> None:
    # Per operation a 16-byte digest and a session number: about 100 bytes each held in a
    # dictionary (80 MB more at 1M than at 250k); held in a bounded buffer, spilled to disk
    # in sorted runs, the peak is the same at both sizes (a few MiB of slack for the merge).
    small, large = _peak_kib(250_000), _peak_kib(1_000_000)
    assert large - small < 6 * 1024, (small, large)
