"""A later call judged alone reads its line once: the view's parse and the step's inputs, handed.

A receipt that claims a later call of its session is not re-derived whole; the parts that
need no session state are judged (``kernel/stateless.py``). That judgement classifies the line
and runs the MCP version gate for every session selection: from the receipt reader's parse of
exactly that line, never a parse of its own. Counted as in
``tests/receipts/test_request_line_read_once.py``, the kernel's per-line caches emptied first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from sealverify_testkit import mint

from sealverify._internal.kernel import gate, replay, session, stateless
from sealverify._internal.kernel.lpath import trim_ascii
from sealverify._internal.kernel.receipt_inputs import NotEvaluated, prepare
from sealverify._internal.kernel.replay import known_line
from sealverify._internal.kernel.stateless import AGREE, contradiction
from sealverify._internal.receipts import view as view_module
from sealverify._internal.receipts.families import read_document
from sealverify._internal.receipts.rederivation import rederivation_check
from sealverify._internal.receipts.verify import verify_receipt
from sealverify._internal.receipts.view import read_view
from sealverify._internal.wire.framing import raw_line
from tests.helpers.kernel_minting import CONFIG, FLEET, GUARDED, HOST, SEARCH

_LATER_HOST = dataclasses.replace(HOST, temporal_events=2)
_LATER_FLEET = dataclasses.replace(FLEET, temporal_events=2)


_MODERN = '{"io.modelcontextprotocol/protocolVersion":"2025-06-18","traceparent":"00-1"}'
_FRAMES = [
    SEARCH,
    GUARDED,
    mint.tools_call_frame("search_notes", '{"q":"b","n":2}'),
    mint.tools_call_frame("search_notes", '{"q":"c"}', meta=_MODERN),
    mint.tools_call_frame("search_notes", '{"q":"d"}', meta='{"traceparent":"00-2"}'),
    mint.tools_call_frame("db.execute", '{"sql":"select 1","database":"prod"}', meta=_MODERN),
]


def _receipts(frames: list[bytes] = _FRAMES) -> list[bytes]:
    host = [mint.mint_host_v3(f, CONFIG, ctx=_LATER_HOST) for f in frames]
    fleet = [mint.mint_fleet_v2(f, CONFIG, ctx=_LATER_FLEET) for f in frames]
    return host + fleet


def _counted(lines: dict[str, int], function: Callable[..., Any]) -> Callable[..., Any]:
    def call(text: str | bytes, *args: Any, **kwargs: Any) -> Any:
        key = trim_ascii(text.decode("utf-8") if isinstance(text, bytes) else text)
        if key in lines:
            lines[key] += 1
        return function(text, *args, **kwargs)

    return call


def test_a_later_call_judged_alone_parses_its_line_once(monkeypatch: pytest.MonkeyPatch) -> None:
    receipts = []
    lines: dict[str, int] = {}
    for raw in _receipts(_FRAMES[:5]):  # the last is refuted (a judgement all the same)
        read = read_document(raw)
        assert read.document is not None
        frame = read_view(read.document, read.family).request_frame
        if frame is not None:  # a receipt without frames: the kernel reads its line alone
            receipts.append(raw)
            lines[trim_ascii(raw_line(frame).decode("utf-8"))] = 0
    assert len(receipts) >= 3
    monkeypatch.setattr(view_module, "parse_bytes", _counted(lines, view_module.parse_bytes))
    monkeypatch.setattr(session, "proven_request", _counted(lines, session.proven_request))
    monkeypatch.setattr(session, "parse", _counted(lines, session.parse))
    monkeypatch.setattr(gate, "parse", _counted(lines, gate.parse))
    session.classify_line.cache_clear()  # type: ignore[attr-defined]
    session.line_keys_safe.cache_clear()  # type: ignore[attr-defined]
    subjects = [verify_receipt(raw, f"r{index}") for index, raw in enumerate(receipts)]
    replays = [next(c for c in s.checks if c.id == "replay.decision") for s in subjects]
    # Every receipt was judged alone, and the judgement agreed (nothing refuted it).
    assert {r.status for r in replays} == {"not-evaluated"}
    assert all(AGREE in r.reason for r in replays), [r.reason for r in replays]
    assert set(lines.values()) == {1}, lines


@pytest.mark.parametrize("gate_on", [False, True])
def test_the_judgement_from_the_readers_parse_is_the_kernels_own(gate_on: bool) -> None:
    """With the reader's parse or without, every judgement is the same (the gate's too)."""
    judged = 0
    for raw in _receipts():
        read = read_document(raw)
        assert read.document is not None
        frames = read_view(read.document, read.family).frames
        inputs = prepare(read.document, None, frames)
        if isinstance(inputs, NotEvaluated) or frames.request is None:
            continue
        inputs = dataclasses.replace(inputs, gate=gate_on)
        known = known_line(inputs, frames)
        assert known is not None  # the reader's parse is of exactly the judged line
        session.classify_line.cache_clear()  # type: ignore[attr-defined]
        assert contradiction(inputs, known) == contradiction(inputs)
        judged += 1
    assert judged >= 6


def test_a_later_call_is_prepared_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The judgement takes the step's inputs the re-derivation prepared, not its own."""
    calls: list[int] = []
    real = replay.prepare

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(replay, "prepare", counted)
    monkeypatch.setattr(stateless, "prepare", counted)
    receipts = _receipts(_FRAMES[:5])
    for raw in receipts:
        read = read_document(raw)
        assert read.document is not None
        frames = read_view(read.document, read.family).frames
        check = rederivation_check(read.document, {}, True, frames)
        assert check.status == "not-evaluated" and AGREE in check.reason
    assert len(calls) == len(receipts)


def test_the_judgement_of_the_prepared_inputs_is_the_judgement_alone() -> None:
    for raw in _receipts():
        read = read_document(raw)
        assert read.document is not None
        frames = read_view(read.document, read.family).frames
        result, prepared = replay.rederive_prepared(read.document, None, frames)
        assert result == replay.rederive(read.document, None, frames)
        assert prepared is not None
        handed = stateless.judged_alone(result, read.document, None, frames, prepared)
        assert handed == stateless.judged_alone(result, read.document, None, frames)
