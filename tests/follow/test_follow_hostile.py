"""Hostile input to the follower never crashes it: checkpoints refused by name, lines judged.

A checkpoint read back from the store is untrusted (the file may be edited): any JSON value
in its place is a ``ValueError`` (the follower says which checkpoint and exits 2), never
another exception. Any bytes appended to a followed chain are findings, never a crash.
"""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit import auditlog

from sealverify._internal.follow.chain import ChainFollow
from sealverify._internal.follow.engine import _position_of
from sealverify._internal.follow.tail import Line
from sealverify._internal.results.model import Check

_JSON: Any = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=20,
)
_POSITIONS: Any = st.fixed_dictionaries(
    {"path": st.just("r.jsonl")},
    optional={
        "fingerprint": _JSON,
        "offset": _JSON,
        "line": _JSON,
        "size": _JSON,
        "generation": _JSON,
        "mtime": _JSON,
        "last_sha256": _JSON,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_JSON, _POSITIONS))
def test_any_checkpointed_position_is_read_or_refused(value: object) -> None:
    try:
        position = _position_of(value, "r.jsonl")
    except ValueError:
        return
    assert position.path == "r.jsonl" and position.offset >= 0


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_any_checkpointed_chain_is_read_or_refused(value: object) -> None:
    with contextlib.suppress(ValueError):
        ChainFollow.from_value(value)


_CHAIN = auditlog.chain_log([auditlog.audit_payload(i) for i in range(3)]).splitlines()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_CHAIN), st.binary(max_size=80)), max_size=12))
def test_any_lines_appended_to_a_chain_are_findings(lines: list[bytes]) -> None:
    follow = ChainFollow()
    numbered = [
        Line("stderr.log", n, 0, data.replace(b"\n", b" ")) for n, data in enumerate(lines, 1)
    ]
    for cut in (len(numbered) // 2, len(numbered)):
        found = follow.judge(
            numbered[:cut] if cut < len(numbered) else numbered[len(numbered) // 2 :]
        )
        assert all(isinstance(check, Check) for check in found)
