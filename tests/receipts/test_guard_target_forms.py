"""guard_target works out only the target forms its verdict reads, with the same verdict.

:func:`guards._call_targets` stops at the first form equal to the safety reason; the
reference is every form (:func:`guards._targets`). Checks compared for each form matched,
for none, and for calls with and without context members.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit import mint

from sealverify._internal.primitives import identities
from sealverify._internal.receipts.bindings import guard_target, guards
from sealverify._internal.wire.strictjson import JsonNumber

SPECS: list[Any] = [
    [{"full_arguments": True}],
    [{"arg": "command"}],
    [{"literal": "x"}, {"arg": "cwd"}],
]
CONTEXTS: list[dict[str, Any]] = [
    {},
    {"_meta": {"traceparent": "00-ab"}},
    {"_meta": {"k": JsonNumber("1")}, "requestState": "s"},
    {"_meta": "not an object"},
    {"inputResponses": {"a": ["b"]}},
]

_text = st.text(alphabet="abc/-_ é", max_size=8)


@settings(max_examples=200, deadline=None)
@given(
    spec=st.sampled_from(SPECS),
    context=st.sampled_from(CONTEXTS),
    server=_text,
    tool=_text.filter(bool),
    command=_text,
    pick=st.sampled_from(["ruled", "absent", "untagged", "other"]),
)
def test_the_verdict_equals_the_one_over_every_form(
    spec: Any, context: dict[str, Any], server: str, tool: str, command: str, pick: str
) -> None:
    arguments: dict[str, Any] = {"command": command, "cwd": "/srv"}
    every = guards._targets(server, tool, spec, arguments, context)
    reason = every.get(pick, "0" * 64)
    read = guards._call_targets(server, tool, spec, arguments, context, reason)
    assert set(read) <= set(every)
    assert all(every[form] == value for form, value in read.items())
    assert guards._judge_target(reason, read, context) == guards._judge_target(
        reason, every, context
    )


def test_a_receipt_of_the_deployed_form_hashes_two_forms_not_three(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    record = mint.parse_record(
        next(iter(mint.mint_many(1, kernel_config=mint.KERNEL_VALID_CONFIG, ruled_target=False)))
    )
    hashed: list[str] = []
    real = identities.parts_guard_target

    def counted(*args: Any, **kwargs: Any) -> str:
        hashed.append(real(*args, **kwargs))
        return hashed[-1]

    monkeypatch.setattr(identities, "parts_guard_target", counted)
    checks = guard_target(record)
    assert [c.status for c in checks if c.id == "binding.guard-target"] == ["pass"]
    assert len(hashed) == 2  # ruled (not equal), then the deployed form (equal)
