"""Every fast path of verify gives the report its reference path gives, byte for byte.

The fast paths: the receipts layer's rebound pairs (``receipts/fast.py``: embedded JSON texts
parsed once per distinct text, the member-set check's set differences, the Object B envelope
walk, the name-equivalence cues, ``verify``'s reuse of the bindings' frame decode), the
branches on ``fastpath.reference()`` (the serde and Lean writers by orjson, the one-pass proof
that a request line passes every kernel wire guard, report JSON and a whole subject by
orjson) and every cache (``fastpath.cache`` and the memos that read the same flag). The
reference run switches them all (``fastpath.use_reference``) with every cache emptied, then
``verify`` runs over the same corpus in every format, over a directory and over a JSONL log:
the demo fixtures, the real upstream receipts in ../shared, minted receipts that re-derive,
and hostile and adversarial mutants.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit import mint
from sealverify_testkit.mintfixtures import demo_receipts

from sealverify._internal import fastpath
from sealverify._internal.cli.main import cli
from sealverify._internal.kernel import guards, ljson, session, wirecue
from sealverify._internal.kernel.profiles import CURRENT
from sealverify._internal.receipts.bindings import signatures
from sealverify._internal.results import model
from sealverify._internal.wire import guards as wire_guards
from sealverify._internal.wire import strictjson
from tests.conftest import SHARED
from tests.helpers.adversarial_mutants import mutants
from tests.helpers.hostile import scalar_mutants as hostile_mutants
from tests.helpers.json_trees import json_trees, rendered

FORMATS = ("table", "json", "jsonl", "sarif", "junit", "html")
# the module, not the binding function the package exports under the same name
object_a = importlib.import_module("sealverify._internal.receipts.bindings.object_a")


def _clear_caches() -> None:
    """Empty every cache in sealverify, so no run reuses what the other one computed."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("sealverify"):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type):  # a class's cache_clear clears its instances'
                continue
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and getattr(value, "__module__", "").startswith("sealverify"):
                clear()


def _equivalent_keys_reference(value: strictjson.JsonValue) -> list[tuple[str, str]]:
    return wire_guards._equivalent_keys(value, functools.partial(unicodedata.normalize, "NFC"))


def _holders_reference(doc: signatures.Doc) -> list[tuple[tuple[str | int, ...], signatures.Doc]]:
    found = signatures._holders_by_stack(doc)
    return sorted(found, key=lambda pair: [str(step) for step in pair[0]])


# The guards' literal patterns as first written, one alternation per character.
_STRING_REFERENCE = re.compile(r'"((?:[^"\\]|\\.)*)("?)', re.DOTALL)


@contextmanager
def _reference(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every fast path switched to the computation it stands in for, caches emptied around it.

    The library's own switch (SEALVERIFY_REFERENCE=1 in a fresh process, ``use_reference``
    here) selects every definition; only the guards' literal pattern, a regex formulation
    rather than a fast path, is swapped by hand.
    """
    _clear_caches()
    strictjson.NUMBERS.clear()
    with fastpath.use_reference(), monkeypatch.context() as patch:
        patch.setattr(guards, "_STRING", _STRING_REFERENCE)
        yield
    _clear_caches()


def _corpus() -> dict[str, bytes]:
    """A few hundred receipts: demo, upstream (when ../shared is there), minted, mutants."""
    files = {f"demo/{name}": raw for name, raw in sorted(demo_receipts().items())}
    upstream = SHARED / "fixtures" / "seal"
    if upstream.is_dir():
        for path in sorted(upstream.rglob("*.json")):
            files[f"upstream/{path.relative_to(upstream)}"] = path.read_bytes()
    minted = list(
        mint.mint_many(
            30,
            kernel_config=mint.KERNEL_VALID_CONFIG,
            wasm_sha256=CURRENT.wasm_sha256,
            ruled_target=False,
        )
    )
    minted += list(mint.mint_many(6, seed=b"exact"))
    for index, raw in enumerate(minted):
        files[f"minted/{index:03d}.json"] = raw
    text = demo_receipts()["verified-allow.receipt.json"].decode()
    for index, mutant in enumerate(hostile_mutants(text, every=4)):
        files[f"hostile/{index:04d}.json"] = mutant.encode()
    record = mint.parse_record(minted[1])  # an approved ALLOW with a release frame
    for index, lie in enumerate(mutants(record)):
        if index % 4 == 0:
            files[f"adversarial/{index:04d}.json"] = mint.render_pretty(lie.record)
    return files


@functools.cache
def _corpus_cached() -> tuple[tuple[str, bytes], ...]:
    return tuple(_corpus().items())


def _write(root: Path) -> tuple[Path, Path]:
    directory, log = root / "receipts", root / "receipts.jsonl"
    lines = []
    for name, raw in _corpus_cached():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        lines.append(b" ".join(raw.splitlines()))  # one line each, broken ones included
    log.write_bytes(b"\n".join(lines) + b"\n")
    return directory, log


def _verify(target: Path, fmt: str, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli,
        [
            "verify",
            str(target),
            "--config-pubkey",
            mint.CONFIG_KEY.public_hex,
            "--receipt-pubkey",
            mint.RECEIPT_KEY.public_hex,
            "--allow-published-keys",
            "--format",
            fmt,
            *extra,
        ],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_the_corpus_is_large_and_reaches_every_kind_of_outcome(tmp_path: Path) -> None:
    files = dict(_corpus_cached())
    assert 250 <= len(files) <= 600
    directory, _ = _write(tmp_path)
    code, output = _verify(directory, "json")
    assert code == 1  # mutants fail
    for outcome in ('"VERIFIED"', '"FAIL"', '"REDUCED"'):
        assert outcome in output


@pytest.mark.parametrize("kind", ["directory", "jsonl"])
def test_fast_paths_give_the_reference_reports_byte_for_byte(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory, log = _write(tmp_path)
    target = directory if kind == "directory" else log
    # the directory run waives a legacy check, so waived checks reach every format too
    extra = ("--waive", "legacy.guard-target-omits-meta") if kind == "directory" else ()
    fast = {fmt: _verify(target, fmt, *extra) for fmt in FORMATS}
    # the passing checks kept for every receipt were shared (one object per key), and nothing
    # wrote to the data of a kept one
    assert model._pass.cache_info().currsize > 0 and model._pass.cache_info().hits > 0
    kept = model.passed("document.strict-json", "shared?")
    assert kept is model.passed("document.strict-json", "shared?") and kept.data == {}
    with _reference(monkeypatch):
        slow = {fmt: _verify(target, fmt, *extra) for fmt in FORMATS}
    for fmt in FORMATS:
        assert fast[fmt][0] == slow[fmt][0], fmt
        assert fast[fmt][1] == slow[fmt][1], fmt
    if kind == "directory":
        assert '"status": "waived"' in fast["json"][1]
    # and the run with fast paths again, after the reference: no cache carried a result over
    assert _verify(target, "json", *extra) == fast["json"]


_GUARD_TEXT = st.text(alphabet='"\\ab{}[]:,0123456789eE+-.\n\u00e9', max_size=40)


@settings(max_examples=3000)
@given(_GUARD_TEXT)
def test_the_unrolled_literal_patterns_match_as_the_alternations_do(text: str) -> None:
    for start in range(len(text)):
        fast, slow = guards._STRING.match(text, start), _STRING_REFERENCE.match(text, start)
        assert (fast and (fast.span(), fast.groups())) == (slow and (slow.span(), slow.groups()))


def test_the_number_scans_refuse_only_unsafe_texts() -> None:
    assert not guards.numbers_safe('{"a":1e+1234567}')
    assert guards.numbers_safe('{"a":1e+123456,"b":"1e1234567"}')
    assert not guards.digits_safe('{"a":1234567890.123456789}')
    assert guards.digits_safe('{"a":123456789012345678e123}')
    assert guards.digits_safe('{"a":"12345678901234567890"}')


def test_an_unclosed_string_runs_to_the_end_of_the_text() -> None:
    for text in ('{"a":"b', '{"a\\', '"\\"', 'x"y"z"', '""\\'):
        assert guards._segments(text)[-1][1] is not None or text.count('"') % 2 == 0


_JSON_TREE = st.recursive(
    st.none() | st.booleans() | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["signature", "domain", "a", "0"]),
            inner | st.just({"domain": "seal.object-b/v2"}),
            max_size=3,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=800)
@given(st.dictionaries(st.sampled_from(["signature", "x", "y"]), _JSON_TREE, max_size=3))
def test_the_envelope_walk_finds_what_the_stack_walk_finds(doc: signatures.Doc) -> None:
    assert signatures._envelope_holders(doc) == _holders_reference(doc)


def test_the_envelope_walk_falls_back_when_recursion_runs_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc: signatures.Doc = {"x": [{"signature": {"domain": "seal.object-b/v2"}}]}
    for _ in range(30):
        doc = {"x": [doc]}

    def exhausted(*_: object) -> None:
        raise RecursionError

    monkeypatch.setattr(signatures, "_holders", exhausted)
    assert signatures._envelope_holders(doc) == _holders_reference(doc)
    assert len(signatures._envelope_holders(doc)) == 1


@settings(max_examples=2000)
@given(st.text(alphabet='"\\a:{} \u00e9\u0301e', max_size=24))
def test_the_wire_guard_cues_change_nothing(text: str) -> None:
    assert wire_guards.escaped_keys(text) == wire_guards._escaped_keys_by_search(text)
    try:
        value = strictjson.parse_text(text)
    except strictjson.JsonError:
        return
    assert wire_guards.unicode_equivalent_keys(value) == _equivalent_keys_reference(value)


def test_the_byte_count_proves_only_the_top_envelope() -> None:
    raw = demo_receipts()["verified-allow.receipt.json"]
    doc = strictjson.parse_bytes(raw)
    assert isinstance(doc, dict)
    assert signatures._only_the_top_envelope(doc, raw)
    wrapped = b'{"x":{"signature":{"domain":"seal.object-b/v2"}},' + raw.lstrip()[1:]
    assert not signatures._only_the_top_envelope(strictjson.parse_bytes(wrapped), wrapped)
    escaped = wrapped.replace(b'"seal.object-b/v2"}}', b'"seal\\u002eobject-b/v2"}}', 1)
    assert escaped.count(b"seal.object-b") == 1
    assert not signatures._only_the_top_envelope(strictjson.parse_bytes(escaped), escaped)
    assert len(signatures.object_b_envelopes(strictjson.parse_bytes(escaped), "v3", escaped)) > 0


# --- the request line's one-pass guard proof (kernel/wirecue.py) -----------------------------

_LEXEMES = st.from_regex(
    r"-?(0|[1-9][0-9]{0,20})(\.[0-9]{1,20})?([eE][+\-]?[0-9]{1,9})?", fullmatch=True
)
_NAMES = st.sampled_from(
    ["a", "b", "id", "e\u0301", "\u00e9", "\u212b", "\u00c5", "x\\u0041", "\\\\", 'a\\"', ""]
)
_ESCAPED_VALUES = ['"\\n"', '"a\\\\"', '"\\"\\":"', '"\\ud800"', '"\\ud83d\\ude00"', '"\\u0041"']
_SCALARS = (
    st.sampled_from(["null", "true", "false", '"v"', '"1e1234567"', '"\u00e9"', "NaN"])
    | st.sampled_from(_ESCAPED_VALUES)
    | _LEXEMES
)


_LINE_TREE = json_trees(_SCALARS, _NAMES)
_LINES = st.builds(rendered, _LINE_TREE, st.sampled_from(["", " ", "\n\t"])) | st.text(
    alphabet='"\\ab{}[]:,0123456789eE+-.\u00e9', max_size=40
)


@settings(max_examples=3000)
@given(_LINES)
def test_the_guard_proof_holds_only_for_lines_every_guard_passes(text: str) -> None:
    proven = wirecue.proven_request(text)
    if isinstance(proven, wirecue.Unproven):
        return
    assert guards.first_failed_guard(text) is None
    assert proven == ljson.parse(text)


@settings(max_examples=2000)
@given(_LINES, st.sampled_from([CURRENT.guards, frozenset({"keys", "depth"}), frozenset()]))
def test_the_classification_with_the_proof_is_the_scans_classification(
    text: str, enabled: frozenset[str]
) -> None:
    line = f"  {text}\r\n"
    fast = _classified(line, enabled)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(session, "proven_request", lambda _text: wirecue.UNPROVEN)
        slow = _classified(line, enabled)
    assert fast == slow


@settings(max_examples=2000)
@given(_LINES, st.sampled_from(["", " ", "\r\n", "\t \n"]))
def test_the_gate_reads_the_scans_key_verdict(text: str, pad: str) -> None:
    line = f"{pad}{text}{pad}"
    assert session.line_keys_safe.__wrapped__(line) == guards._keys_safe(line, guards._same)


def _classified(line: str, enabled: frozenset[str]) -> object:
    try:
        return session.classify_line.__wrapped__(line, enabled)
    except ljson.ModelLimit as exc:
        return f"ModelLimit: {exc}"


def test_the_guard_proof_leaves_every_refusal_to_the_scans() -> None:
    refused = [
        '{"a":1,"a":2}',  # a repeated name
        '{"\u00e9":1,"e\u0301":2}',  # equal under NFD
        '{"a":1e+1234567}',  # seven exponent digits
        '{"a":1234567890123456789}',  # nineteen mantissa digits
        '{"a":12345678901234567}',  # not exact in binary64
        '{"a":"\\ud800"}',  # a surrogate escape
        '{"\\u0061":1}',  # an escaped name
        "[" * 129 + "]" * 129,  # deeper than 128
        '{"a":NaN}',
    ]
    for text in refused:
        assert isinstance(wirecue.proven_request(text), wirecue.Unproven), text
    assert wirecue.proven_request('{"a":[1,2.5,-0.0,"x"],"b":{"a":true}}') == ljson.parse(
        '{"a":[1,2.5,-0.0,"x"],"b":{"a":true}}'
    )
