"""One reading per receipt: Object A is base64-decoded once and its request line parsed once.

verify reads a received receipt into one view (``sealverify/_internal/receipts/view.py``) and hands
it to the bindings, the approval token, the wording lint, the attestation check and the
re-derivation. These tests count, with the decoder and the strict parser wrapped wherever the
package holds them, how often each receipt's Object A text is decoded and its request line
parsed: for one receipt verified end to end, and for a log of one session's receipts through
the session pass, in the fast and the reference mode alike; and on the command line's
path (``verify`` in one process), where the session pass is fed by each receipt's one
reading, for a log and for a directory of files; and under ``--jobs 2`` and ``--cluster``,
where the pass runs in the parent and hands the frames it decoded to the worker's view.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import pickle
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from sealverify_testkit import mint

from sealverify._internal import fastpath
from sealverify._internal.cli.main import cli
from sealverify._internal.kernel.receipt_inputs import carried_frames
from sealverify._internal.primitives.trust import TrustStore
from sealverify._internal.receipts.families import read_document
from sealverify._internal.receipts.verify import VerifyOptions, verify_jsonl, verify_receipt
from sealverify._internal.receipts.view import Decoded, decode, read_view
from sealverify._internal.run import cluster as clusters
from sealverify._internal.run import engine, worker_pool
from sealverify._internal.wire import strictjson
from sealverify._internal.wire.framing import raw_line
from sealverify._internal.wire.strictjson import parse_bytes
from tests.helpers.kernel_minting import CONFIG, HOST
from tests.helpers.verify_sessions import PIN_ARGS

PINS = TrustStore.from_pins(
    config=(mint.CONFIG_KEY.public_key.hex(),), receipt=(mint.RECEIPT_KEY.public_key.hex(),)
)
OPTIONS = VerifyOptions(trust=PINS, allow_published_keys=True)


def _receipt(index: int) -> bytes:
    """Call ``index`` of one host session (every call names the same session)."""
    frame = mint.tools_call_frame("search_notes", f'{{"q":"{index}"}}', request_id=index)
    ctx = dataclasses.replace(HOST, temporal_events=index, operation_seed=bytes([index]))
    doc = parse_bytes(mint.mint_host_v3(frame, CONFIG, ctx=ctx))
    assert isinstance(doc, dict)
    return mint.render_compact(doc)  # one line of a log


def _object_a(raw: bytes) -> tuple[str, str]:
    """The receipt's Object A text and its request line (as text)."""
    doc = parse_bytes(raw)
    assert isinstance(doc, dict)
    artifacts = doc["signed_artifacts"]
    assert isinstance(artifacts, dict) and isinstance(artifacts["object_a"], str)
    text = artifacts["object_a"]
    return text, raw_line(base64.b64decode(text)).decode("utf-8")


def _wrap_everywhere(
    monkeypatch: pytest.MonkeyPatch, module: object, name: str, wrapper: Callable[..., object]
) -> None:
    """Replace ``module.name`` and every sealverify module's own binding of the same function."""
    original = getattr(module, name)
    monkeypatch.setattr(module, name, wrapper)
    for loaded in list(sys.modules.values()):
        if getattr(loaded, "__name__", "").startswith("sealverify"):
            for attribute, value in list(vars(loaded).items()):
                if value is original:
                    monkeypatch.setattr(loaded, attribute, wrapper)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Counter[str], Counter[str]]]:
    """Counters of base64 decodes by text and of strict parses by text, while the test runs."""
    decodes: Counter[str] = Counter()
    parses: Counter[str] = Counter()
    decode, parse = binascii.a2b_base64, strictjson.parse_text

    def counting_decode(data: str | bytes, *args: object, **kwargs: object) -> bytes:
        decodes[data.decode("latin-1") if isinstance(data, bytes) else data] += 1
        return decode(data, *args, **kwargs)  # type: ignore[arg-type]

    def counting_parse(text: str, *args: object, **kwargs: object) -> strictjson.JsonValue:
        parses[text] += 1
        return parse(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(binascii, "a2b_base64", counting_decode)
    _wrap_everywhere(monkeypatch, strictjson, "parse_text", counting_parse)
    yield decodes, parses


@pytest.fixture(params=[False, True], ids=["fast", "reference"])
def mode(request: pytest.FixtureRequest) -> Iterator[None]:
    with fastpath.use_reference(request.param):
        yield


def test_one_receipt_is_decoded_and_parsed_once(
    mode: None, counted: tuple[Counter[str], Counter[str]]
) -> None:
    raw = _receipt(1)
    text, line = _object_a(raw)
    decodes, parses = counted
    decodes.clear()
    parses.clear()
    subject = verify_receipt(raw, "r.json", OPTIONS)
    replay = next(c for c in subject.checks if c.id == "replay.decision")
    assert replay.status == "pass"  # the re-derivation ran, on the frame the view decoded
    assert (decodes[text], parses[line]) == (1, 1)


def test_a_session_is_decoded_and_parsed_once_a_receipt(
    mode: None, counted: tuple[Counter[str], Counter[str]]
) -> None:
    receipts = [_receipt(index) for index in (1, 2, 3)]
    readings = [_object_a(raw) for raw in receipts]
    assert len({text for text, _ in readings}) == 3
    decodes, parses = counted
    decodes.clear()
    parses.clear()
    subjects, findings = verify_jsonl(b"\n".join(receipts) + b"\n", "log.jsonl", OPTIONS)
    assert not findings and len(subjects) == 3
    reasons = [next(c.reason for c in s.checks if c.id == "replay.decision") for s in subjects]
    assert all("log order" in reason for reason in reasons[1:]), reasons  # the session pass
    assert [(decodes[text], parses[line]) for text, line in readings] == [(1, 1)] * 3


def _laid_out(tmp_path: Path, layout: str, receipts: list[bytes]) -> tuple[Path, str]:
    """One session's receipts as a log, as files, or spanning a log and a file; its order."""
    if layout == "log":
        target = tmp_path / "session.jsonl"
        target.write_bytes(b"\n".join(receipts) + b"\n")
        return target, "log order"
    target = tmp_path / "session"
    target.mkdir()
    if layout == "files":
        for index, raw in enumerate(receipts, start=1):
            (target / f"{index}.json").write_bytes(raw)
    else:  # the first calls in a log, the last a file beside it: one session, two inputs
        (target / "calls.jsonl").write_bytes(b"\n".join(receipts[:-1]) + b"\n")
        (target / "last.json").write_bytes(receipts[-1])
    return target, "the order of the positions its receipts claim"


@pytest.mark.parametrize("layout", ["log", "files", "spanning"])
def test_the_command_line_reads_a_session_once_a_receipt(
    tmp_path: Path, layout: str, mode: None, counted: tuple[Counter[str], Counter[str]]
) -> None:
    receipts = [_receipt(index) for index in (1, 2, 3)]
    readings = [_object_a(raw) for raw in receipts]
    target, order = _laid_out(tmp_path, layout, receipts)
    decodes, parses = counted
    decodes.clear()
    parses.clear()
    result = CliRunner().invoke(
        cli, ["verify", str(target), *PIN_ARGS, "--jobs", "1"], catch_exceptions=False
    )
    subjects = json.loads(result.stdout)["subjects"]
    assert [s["outcome"] for s in subjects] == ["VERIFIED"] * 3, result.output
    reasons = [
        next(c["reason"] for c in s["checks"] if c["id"] == "replay.decision") for s in subjects
    ]
    assert all(order in reason for reason in reasons[1:]), reasons  # the session pass
    assert [(decodes[text], parses[line]) for text, line in readings] == [(1, 1)] * 3


class _Here:
    """A worker pool that runs each task in this process, after a worker's round trip.

    A task and the run's settings are pickled and unpickled as a worker's are, then run by
    what a worker runs (``engine._run_task``), so the counters see the parent's readings and
    the worker's alike.
    """

    def __init__(self, settings: engine.Settings) -> None:
        self.settings = settings

    def __enter__(self) -> _Here:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def apply_async(self, run: object, args: tuple[engine.Task]) -> _Done:
        task, settings = pickle.loads(pickle.dumps((args[0], self.settings)))
        return _Done(engine._run_task(task, settings))


class _Done:
    def __init__(self, value: list[engine.Result]) -> None:
        self.value = value

    def ready(self) -> bool:
        return True

    def get(self) -> list[engine.Result]:
        return self.value


def _cluster_here(
    tasks: Iterator[engine.Task], settings: engine.Settings, address: object, size: int
) -> Iterator[engine.Result]:
    """A cluster's run in this process: each partition pickled as it is sent, then run."""
    for part in clusters._partitions(tasks, size):
        sent, shared = pickle.loads(pickle.dumps((part, settings)))
        yield from clusters.run_partition(sent, shared, {})


@pytest.mark.parametrize("runner", ["jobs", "cluster"])
@pytest.mark.parametrize("layout", ["log", "files", "spanning"])
def test_workers_and_a_cluster_read_a_session_once_a_receipt(
    tmp_path: Path,
    layout: str,
    runner: str,
    mode: None,
    counted: tuple[Counter[str], Counter[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Under --jobs N and --cluster the session pass runs in the parent and the receipt's
    # checks in a worker: the frames the pass decoded travel with the task, and the worker's
    # view takes them, so nothing is decoded twice.
    monkeypatch.setattr(worker_pool, "worker_pool", lambda n, init, args: _Here(args[0]))
    monkeypatch.setattr(clusters, "results_on_cluster", _cluster_here)
    receipts = [_receipt(index) for index in (1, 2, 3)]
    readings = [_object_a(raw) for raw in receipts]
    target, order = _laid_out(tmp_path, layout, receipts)
    how = ["--jobs", "2"] if runner == "jobs" else ["--cluster", "local:1"]
    decodes, parses = counted
    decodes.clear()
    parses.clear()
    result = CliRunner().invoke(
        cli, ["verify", str(target), *PIN_ARGS, *how], catch_exceptions=False
    )
    subjects = json.loads(result.stdout)["subjects"]
    assert [s["outcome"] for s in subjects] == ["VERIFIED"] * 3, result.output
    reasons = [
        next(c["reason"] for c in s["checks"] if c["id"] == "replay.decision") for s in subjects
    ]
    assert all(order in reason for reason in reasons[1:]), reasons  # the session pass
    assert [(decodes[text], parses[line]) for text, line in readings] == [(1, 1)] * 3


def test_an_object_b_v1_request_recovered_from_its_release_frame_is_parsed_once(
    mode: None, counted: tuple[Counter[str], Counter[str]]
) -> None:
    # An Object B v1 ALLOW carries no Object A: the request is the release frame less its
    # operation-id splice, recovered only when splicing it again gives the frame back. That
    # round trip parses the request: the view keeps that parse, and the step is handed the
    # recovered request rather than recover (and parse) it again.
    wire = mint.tools_call_frame(
        "db.execute", '{"sql":"drop table x","database":"prod"}', request_id=7
    )
    ctx = dataclasses.replace(HOST, domain=mint.OBJECT_B_V1)
    raw = mint.mint_host_v3(wire, CONFIG, approvals=[mint.guard_target_of(wire, CONFIG)], ctx=ctx)
    decodes, parses = counted
    decodes.clear()
    parses.clear()
    subject = verify_receipt(raw, "r.json", OPTIONS)
    replay = next(c for c in subject.checks if c.id == "replay.decision")
    assert replay.status == "pass" and "recovered from the release frame" in replay.reason
    assert parses[raw_line(wire).decode("utf-8")] == 1


def test_a_view_takes_known_frames_only_as_the_decoding_of_its_own_texts() -> None:
    # Frames handed from another reader (a run's session pass, in another process) are taken
    # only when their canonical encoding is the very text the document carries: another
    # receipt's frames, or the lenient decoding of a non-canonical text, change nothing.
    raw, other = _receipt(1), _receipt(2)
    read, read_other = read_document(raw), read_document(other)
    assert read.document is not None and read_other.document is not None
    alone = read_view(read.document, read.family)
    assert read_view(read.document, read.family, carried_frames(read_other.document)) == alone
    assert read_view(read.document, read.family, carried_frames(read.document)) == alone
    assert decode("QQ==", b"B") == decode("QQ==") == Decoded(b"A", b"A", None)
    refused = decode("QR==")  # non-zero trailing bits: standard base64 reads b"A" all the same
    assert refused.error is not None and refused.lenient == b"A"
    assert decode("QR==", b"A") == refused


def test_known_frames_spare_the_view_its_decoding(
    counted: tuple[Counter[str], Counter[str]],
) -> None:
    raw = _receipt(1)
    text, _ = _object_a(raw)
    read = read_document(raw)
    assert read.document is not None
    frames = carried_frames(read.document)
    decodes, _ = counted
    decodes.clear()
    view = read_view(read.document, read.family, frames)
    assert decodes[text] == 0 and view.frames.object_a == frames.object_a
