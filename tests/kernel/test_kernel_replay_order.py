"""The step run ahead of the position claim gives the answer of the ordered re-derivation.

``rederive`` runs a first call's step before it reads the receipt's temporal claim and keeps
only a pass; the ordered path (claim, config, evidence, step) is the definition. Every receipt
here, honest or edited (later calls, denied tools, refused configs, an escaped claim), gets
the same verdict, reason and difference from both.
"""

from __future__ import annotations

import dataclasses

import pytest
from sealverify_testkit import mint

from sealverify._internal.kernel import replay
from sealverify._internal.kernel.ljson import ModelLimit
from sealverify._internal.kernel.receipt_inputs import NotEvaluated, ReplayInput, prepare
from sealverify._internal.kernel.replay import Rederivation, rederive
from sealverify._internal.kernel.session import StepResult, mediated_result
from sealverify._internal.wire.strictjson import parse_bytes
from tests.helpers.kernel_minting import CONFIG, DENIED, GUARDED, HOST, TARGET, Receipt


def _ordered(receipt: Receipt) -> Rederivation:
    """The re-derivation in the order the model states it: the claim first, then the step."""
    inputs = prepare(receipt)
    if isinstance(inputs, NotEvaluated):
        return Rederivation("not-evaluated", f"decision not re-derived: {inputs.reason}")
    gap = replay._position_gap(inputs)
    if gap is not None:
        where = replay.session_id(receipt)
        hint = (
            f" (its session {where} is re-derived in log order when its receipts are in one log)"
            if where
            else " (the receipt names no session, so no log can supply them)"
        )
        return replay._not_evaluated(gap + hint, inputs)
    try:
        session = replay._start(inputs)
        if isinstance(session, Rederivation):
            return session
        return replay._run(session, inputs)
    except ModelLimit as exc:
        return replay._not_evaluated(f"outside this model's limits ({exc})", inputs)


def _host(frame: bytes, approvals: list[str]) -> Receipt:
    raw = mint.mint_host_v3(
        frame, CONFIG, approvals=approvals, ctx=dataclasses.replace(HOST, domain=mint.OBJECT_B_V2)
    )
    receipt = parse_bytes(raw)
    assert isinstance(receipt, dict)
    return receipt


def _edited(receipt: Receipt, old: str, new: str) -> Receipt:
    edited = dict(receipt)
    edited["emitted_bytes"] = str(receipt["emitted_bytes"]).replace(old, new)
    return edited


def _cases() -> list[tuple[str, Receipt]]:
    guarded, allowed, denied = _host(GUARDED, []), _host(GUARDED, [TARGET]), _host(DENIED, [])
    no_config = dict(guarded)
    no_config["signed_config"] = {"payload": '{"not": "a config"}'}
    return [
        ("first call, block", guarded),
        ("first call, forward", allowed),
        ("first call, denied tool", denied),
        ("a later call", _edited(allowed, "(1 events)", "(3 events)")),
        ("a later call, escaped", _edited(allowed, "temporal", "\\\\u0074emporal")),
        ("a temporal deny", _edited(guarded, "trace ok (1 events)", "temporal policy violated: x")),
        ("a block edited", _edited(guarded, '"deny"', '"allow"')),
        ("a refused config", no_config),
        ("no temporal cert", _edited(allowed, "temporal", "temporary")),
    ]


@pytest.mark.parametrize(("name", "receipt"), _cases(), ids=[name for name, _ in _cases()])
def test_the_step_ahead_answers_as_the_ordered_path(name: str, receipt: Receipt) -> None:
    assert rederive(receipt) == _ordered(receipt), name


def test_the_cases_reach_every_verdict() -> None:
    # The comparison above is worth something only if the cases reach each outcome.
    statuses = {rederive(receipt).status for _, receipt in _cases()}
    assert statuses == {"pass", "fail", "not-evaluated"}


def test_the_step_inputs_built_without_init_equal_the_dataclass() -> None:
    receipt = _host(GUARDED, [TARGET])
    inputs = prepare(receipt)
    assert not isinstance(inputs, NotEvaluated)
    members = {f.name: getattr(inputs, f.name) for f in dataclasses.fields(ReplayInput)}
    assert members["line"] and members["expected"] and members["gate"] is False
    assert inputs == ReplayInput(**members)
    assert repr(inputs) == repr(ReplayInput(**members))


def test_a_mediated_result_built_without_init_equals_the_dataclass() -> None:
    result = rederive(_host(GUARDED, [TARGET])).result
    assert result is not None and result.route == "forward" and result.audit
    members = {f.name: getattr(result, f.name) for f in dataclasses.fields(StepResult)}
    assert members["tool"] and members["verdicts"] and members["refused_by"] is None
    assert result == StepResult(**members)
    built = mediated_result("o", "block", (), "r", "a", "p", "t")
    assert built == StepResult(
        output="o", route="block", verdicts=(), response="r", audit="a", principal="p", tool="t"
    )
