"""The request line read once: the re-derivation from the view's parse equals the kernel's own.

The receipt view strictly parses the request line; the re-derivation takes that parse for its
judged line (``Frames.request``) when the line is exactly the bytes parsed, proves the guards
on it (``wirecue.proven_parsed``) and otherwise parses the line itself. These tests hold the
handed-down path to the kernel's own parse, line by line and receipt by receipt.
"""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit import mint
from sealverify_testkit.mint import KERNEL_VALID_CONFIG

from sealverify._internal import fastpath
from sealverify._internal.kernel import ljson, session, wirecue
from sealverify._internal.kernel.lpath import trim_ascii
from sealverify._internal.kernel.profiles import CURRENT
from sealverify._internal.kernel.receipt_inputs import Frames, ParsedLine
from sealverify._internal.kernel.replay import rederive
from sealverify._internal.kernel.stateless import judged_alone
from sealverify._internal.receipts.families import read_document
from sealverify._internal.receipts.view import ReceiptView, read_view
from sealverify._internal.wire.framing import raw_line
from sealverify._internal.wire.strictjson import JsonError, parse_bytes, parse_text
from tests.helpers.json_trees import json_trees, rendered

# --- line by line: the proof from the strict parse is the proof from the text -----------------

_LEXEMES = st.from_regex(
    r"-?(0|[1-9][0-9]{0,20})(\.[0-9]{1,20})?([eE][+\-]?[0-9]{1,9})?", fullmatch=True
)
_NAMES = st.sampled_from(
    ["a", "b", "id", "e\u0301", "\u00e9", "\u212b", "\u00c5", "x\\u0041", "\\\\", 'a\\"', ""]
)
_SCALARS = (
    st.sampled_from(["null", "true", "false", '"v"', '"1e1234567"', '"\u00e9"', "NaN"])
    | st.sampled_from(['"\\n"', '"a\\\\"', '"\\"\\":"', '"\\ud800"', '"\\ud83d\\ude00"'])
    | _LEXEMES
)


_TREES = json_trees(_SCALARS, _NAMES)
_CALLS = st.builds(
    lambda request_id, name, arguments, meta: (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":'
        f'{{"_meta":{meta},"name":"{name}","arguments":{arguments}}}}}'
    ),
    _LEXEMES | st.sampled_from(['"r"', "null"]),
    st.sampled_from(["shell_exec", "search_notes", "\u00e9"]),
    st.builds(rendered, _TREES, st.just("")),
    st.builds(rendered, _TREES, st.just("")),
)
_LINES = (
    _CALLS
    | st.builds(rendered, _TREES, st.sampled_from(["", " ", "\n\t"]))
    | st.text(alphabet='"\\ab{}[]:,0123456789eE+-.\u00e9', max_size=40)
)
_GUARD_SETS = [CURRENT.guards, frozenset({"keys", "depth"}), frozenset()]


def _strict(line: str) -> object:
    try:
        return parse_text(line)
    except JsonError:
        return None


def _kernel_classification(line: str, guards: frozenset[str]) -> object:
    try:
        return session.classify_line.__wrapped__(line, guards)  # type: ignore[attr-defined]
    except ljson.ModelLimit as exc:
        return f"ModelLimit: {exc}"


@settings(max_examples=3000)
@given(_LINES, st.sampled_from(["", " ", "\r\n", "\t \n"]))
def test_the_proof_from_the_parse_is_the_proof_from_the_text(text: str, pad: str) -> None:
    line = f"{pad}{text}{pad}"
    try:
        parsed = parse_text(line)
    except JsonError:
        return  # the view hands down no parse of a line it refuses
    trimmed = trim_ascii(line)
    from_parse = wirecue.proven_parsed(trimmed, parsed)
    from_text = wirecue.proven_request(trimmed)
    assert isinstance(from_parse, wirecue.Unproven) == isinstance(from_text, wirecue.Unproven)
    assert from_parse == from_text  # numbers as the model's LeanNumber, members in order
    known = session.classify_parsed(line, parsed)
    assert (known is None) == isinstance(from_text, wirecue.Unproven)
    if known is not None:
        assert known[0] == line
        assert known[2] == ljson.parse(line)
        for guards in _GUARD_SETS:
            assert known[1] == _kernel_classification(line, guards)


@settings(max_examples=500)
@given(_CALLS)
def test_reference_mode_proves_nothing_from_a_parse(text: str) -> None:
    parsed = _strict(text)
    with fastpath.use_reference():
        assert isinstance(wirecue.proven_parsed(text, parsed), wirecue.Unproven)


def test_the_parse_leaves_every_refusal_to_the_scans() -> None:
    unproven = [
        '{"\u00e9":1,"e\u0301":2}',  # equal under NFD
        '{"a":1e+1234567}',  # seven exponent digits
        '{"a":1234567890123456789}',  # nineteen mantissa digits
        '{"a":12345678901234567}',  # not exact in binary64
        '{"a":"\\ud83d\\ude00"}',  # a surrogate escape
        '{"\\u0061":1}',  # an escaped name
        "[" * 129 + "]" * 129,  # more than 128 brackets
    ]
    for text in unproven:
        parsed = parse_text(text) if text[0] == "{" else [[]]
        assert isinstance(wirecue.proven_parsed(text, parsed), wirecue.Unproven), text


# --- receipt by receipt: the same re-derivation, and only for the very bytes ------------------


def _frame(index: int, tool: str = "shell_exec") -> bytes:
    arguments = f'{{"command":"rotate-logs --shard {index}","cwd":"/srv/app","keep":{index}}}'
    return mint.tools_call_frame(tool, arguments, request_id=index)


def _receipts() -> list[bytes]:
    minted = list(mint.mint_many(12, kernel_config=KERNEL_VALID_CONFIG, ruled_target=False))
    minted += list(mint.mint_many(6, seed=b"ruled"))
    minted += [mint.mint_fleet_v2(_frame(i), KERNEL_VALID_CONFIG) for i in range(4)]
    minted += [mint.mint_host_v3(_frame(i, "search_notes"), KERNEL_VALID_CONFIG) for i in (7, 8)]
    return minted


def _read(raw: bytes) -> tuple[dict[str, object], ReceiptView]:
    read = read_document(raw)
    assert read.document is not None
    return read.document, read_view(read.document, read.family)  # type: ignore[return-value]


def _without(frames: Frames) -> Frames:
    return dataclasses.replace(frames, request=None)


def test_the_view_hands_down_its_parse_with_the_bytes_it_was_made_of() -> None:
    handed_down = 0
    for raw in _receipts():
        _, view = _read(raw)
        handed = view.frames.request
        assert (handed is None) == (view.request_frame is None)  # every strict parse is handed
        if handed is None or view.request_frame is None:
            continue  # a block receipt carries no request frame
        handed_down += 1
        assert handed.raw == raw_line(view.request_frame)
        assert handed.value == parse_bytes(handed.raw)
    assert handed_down >= 10


def test_the_rederivation_from_the_views_parse_is_the_kernels_own() -> None:
    receipts = _receipts()
    results = set()
    for raw in receipts:
        doc, view = _read(raw)
        handed = rederive(doc, None, view.frames)  # type: ignore[arg-type]
        own = rederive(doc, None, _without(view.frames))  # type: ignore[arg-type]
        assert handed == own
        alone = judged_alone(handed, doc, None, view.frames)  # type: ignore[arg-type]
        assert alone == judged_alone(own, doc, None, _without(view.frames))  # type: ignore[arg-type]
        results.add(handed.status)
    assert results >= {"pass"}  # the corpus re-derives, so the step really ran


def test_a_parse_of_other_bytes_is_never_used() -> None:
    """A receipt handed another line's parse re-derives from its own line, as without one."""
    readings = [_read(raw) for raw in _receipts()]
    first, second = [reading for reading in readings if reading[1].frames.request][:2]
    (doc, view), (_, other) = first, second
    assert other.frames.request is not None and view.frames.request is not None
    assert other.frames.request.raw != view.frames.request.raw
    foreign = dataclasses.replace(view.frames, request=other.frames.request)
    expected = rederive(doc, None, _without(view.frames))  # type: ignore[arg-type]
    assert rederive(doc, None, foreign) == expected  # type: ignore[arg-type]
    # The bytes decide, not the value: the line's own bytes with another parse are the
    # reader's promise (read_view makes the pair from one reading); other bytes never match.
    relabelled = ParsedLine(other.frames.request.raw, view.frames.request.value)
    forged = dataclasses.replace(view.frames, request=relabelled)
    assert rederive(doc, None, forged) == expected  # type: ignore[arg-type]
