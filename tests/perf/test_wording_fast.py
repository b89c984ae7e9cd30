"""The fast wording paths equal the rules as first written (tests/helpers/wording_reference.py).

`lint_receipt` walks without building a pointer per node, compiles phrase patterns once per
rule set and skips a string by a cue (`wording._may_hit`) before the per-rule work; `lint_text`
shares the precompiled patterns. Each property below compares the whole output (check ids,
reasons, locations, excerpts, order and the ``wording.clean`` text) with the reference, on
inputs built to reach both the skip and the full path.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sealverify_testkit.mintfixtures import demo_receipts

from sealverify._internal import fastpath
from sealverify._internal.wire.strictjson import JsonError, JsonNumber, parse_text
from sealverify._internal.wording import rules as wording
from tests.conftest import shared_path
from tests.helpers import wording_reference as reference

# Words and marks the rules react to, with the case variants the regex engine folds together
# (ſ/s, K/k, ı and İ/i) and non-ASCII neighbours, so texts reach both the cue and the full path.
META_KEYS = [
    "traceparent",
    "tracestate",
    "baggage",
    "progressToken",
    "io.modelcontextprotocol/clientInfo",
    "clientInfo",
    "protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
]
FRAGMENTS = [
    "inert",
    "INERT",
    "Inert",
    "ınert",
    "İnert",
    "ineRt",
    "semantically inert",
    "harmless",
    "harmleſs",
    "HARMLESS",
    "ſafe",
    "safe",
    "SAFE",
    "not",
    "never",
    "isn't",
    "wasn't",
    "present",
    "preſent",
    "PRESENT",
    "not present",
    "Not Present",
    "isn't present",
    "not\npresent",
    *META_KEYS,
    *(f"{key} not present" for key in META_KEYS),
    "baggage was not present",
    "not present in the authority identity",
    "isn't present from its digest",
    "_meta",
    "key",
    "value",
    "excluded from authority identity",
    "in the",
    "from the",
    "authority identity",
    "commitment",
    "target",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\n- ",
    "\t",
    ".",
    ". ",
    ",",
    ";",
    ":",
    "(",
    '"',
    "'",
    "`",
    "“",
    "”",
    "‘",
    "’",
    "«",
    "»",
    "—",
    "é",
    "§",
    "\ud800",
    "\x00",
    "K",
]

# Fragments joined mostly by spaces (word boundaries are part of every rule), sometimes by
# nothing or by sentence and clause marks.
texts = st.lists(
    st.tuples(
        st.sampled_from(FRAGMENTS) | st.text(string.ascii_letters + " .'", max_size=4),
        st.sampled_from([" ", " ", " ", "", ". ", ", ", "\n"]),
    ),
    max_size=12,
).map(lambda parts: "".join(fragment + gap for fragment, gap in parts))

PHRASES = ["harmless", "semantically inert", "ſafe", "safe", "INERT", "not present", "ok"]

phrases = st.lists(
    st.builds(
        wording.ExtraPhrase,
        id=st.sampled_from(["house.a", "house.b", "house.c"]),
        phrase=st.sampled_from(PHRASES),
        reason=st.sampled_from(["say what it does", "r"]),
    ),
    max_size=3,
).map(tuple)

rule_sets = st.one_of(
    st.just(wording.DEFAULT_RULES),
    st.builds(wording.RuleSet, st.frozensets(st.sampled_from(sorted(wording.RULES))), phrases),
)

KEYS = [
    *sorted(wording._HUMAN_KEYS),
    "arguments",
    "_meta",
    "record",
    "emitted_bytes",
    "certs",
    "kernel_identity",
    "evidence",
    "human_present_detail",
    "why_note",
    "a_statement",
    "reason_",
    "a~b",
    "c/d",
    "~1",
    "0",
    "other",
    "",
]

leaves = st.one_of(
    texts,
    texts.map(lambda t: type("Text", (str,), {})(t)),  # a str subclass takes the general path
    st.integers(-5, 5),
    st.integers(-5, 5).map(lambda n: type("Int", (int,), {})(n)),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
    st.sampled_from(["1", "-0", "1e9999"]).map(JsonNumber),
    st.tuples(texts),  # neither mapping nor list: never walked
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    mappings = st.dictionaries(st.sampled_from(KEYS) | st.integers(0, 2), children, max_size=5)
    return st.one_of(
        st.lists(children, max_size=4),
        mappings,
        mappings.map(MappingProxyType),  # a Mapping that is not a dict
    )


values = st.recursive(leaves, _containers, max_leaves=30)

declarations = st.one_of(
    st.none(),
    st.lists(st.sampled_from(["traceparent", "baggage", "io.modelcontextprotocol/clientInfo"])),
    st.just("not a list"),
)


@st.composite
def documents(draw: st.DrawFn) -> dict[Any, Any]:
    """A receipt-like object: random members, maybe an Option C record, maybe a wire `_meta`."""
    document: dict[Any, Any] = draw(st.dictionaries(st.sampled_from(KEYS), values, max_size=8))
    declared = draw(declarations)
    if declared is not None:
        record = {"policy": draw(st.sampled_from(["c-refuse-unknown", "commit-all"]))}
        if declared != "not a list":
            record["exclusion_declaration"] = declared
        where = draw(st.sampled_from(["top", "record", "partition", "attestation"]))
        if where == "top":
            document.update(record)
        elif where == "attestation":
            document["partition_attestation"] = {"record": record}
        else:
            document[where] = record
    if draw(st.booleans()):
        document["_meta"] = dict.fromkeys(draw(st.lists(st.sampled_from(META_KEYS))), 1)
    return document


frame_keys = st.none() | st.frozensets(st.sampled_from([*META_KEYS, "other"]))


@given(documents(), frame_keys, rule_sets)
@settings(max_examples=600)
def test_lint_receipt_equals_reference(
    document: dict[Any, Any], keys: frozenset[str] | None, rules: wording.RuleSet
) -> None:
    assert wording.receipt_strings(document) == reference.receipt_strings(document)
    assert wording.lint_receipt(document, keys, rules) == reference.lint_receipt(
        document, keys, rules
    )


@given(texts, rule_sets, st.booleans())
@settings(max_examples=600)
def test_lint_text_equals_reference(text: str, rules: wording.RuleSet, markdown: bool) -> None:
    assert wording.lint_text(text, rules, markdown=markdown) == reference.lint_text(
        text, rules, markdown=markdown
    )


@given(texts, rule_sets, frame_keys)
@settings(max_examples=1500)
def test_a_skipped_string_has_no_hit(
    text: str, rules: wording.RuleSet, carried: frozenset[str] | None
) -> None:
    """The cue is exact where it matters: whenever it skips a string, the rules find nothing."""
    if not wording._may_hit(text, wording._cues(rules)):
        assert list(reference._phrase_hits(text, rules, metadata_only=False)) == []
        assert list(reference._not_present_hits(text, rules, carried=carried, receipt=True)) == []


def test_cue_reaches_both_paths() -> None:
    """The properties above are not vacuous: the cue skips some texts and passes others."""
    cues = wording._cues(wording.DEFAULT_RULES)
    assert not wording._may_hit("trace ok (1 events)", cues)
    assert not wording._may_hit("Re-derive against this wasm — not proven equivalent.", cues)
    for text in ["The key is INERT.", "preſent", "İnert", "ınert", "— not present"]:
        assert wording._may_hit(text, cues), text
    # A folded spelling that the full rule does flag: the cue must not have skipped it.
    assert [c.id for c in wording.lint_receipt({"reason": "the key is ınert"}, None)] == [
        "wording.inert"
    ]


def test_an_empty_phrase_disables_the_cue() -> None:
    """A phrase of only spaces compiles to a pattern that matches anywhere: nothing to cue on."""
    rules = wording.RuleSet(phrases=(wording.ExtraPhrase("house.x", "  ", "r"),))
    assert wording._cues(rules) is None
    receipt = {"reason": "a - b"}  # the empty pattern matches around the lone dash
    expected = reference.lint_receipt(receipt, None, rules)
    assert [c.id for c in expected] == ["house.x"] * 2
    assert wording.lint_receipt(receipt, None, rules) == expected


def test_ascii_case_folding_is_the_regex_engines() -> None:
    """Why ``word in text.lower()`` decides an ASCII word in ASCII text: the engine's
    case-insensitive comparison of two ASCII characters is exactly equality after lower()."""
    chars = [chr(c) for c in range(128)]
    for a in chars:
        pattern = re.compile(re.escape(a), re.IGNORECASE)
        for b in chars:
            assert (pattern.fullmatch(b) is not None) == (a.lower() == b.lower()), (a, b)


def test_phrase_patterns_are_compiled_once_per_rule_set() -> None:
    rules = wording.parse_rules('[[phrase]]\nid = "house.a"\nphrase = "harmless"\n')
    first = wording._phrase_patterns(rules)
    assert (
        wording._phrase_patterns(
            wording.parse_rules('[[phrase]]\nid = "house.a"\nphrase = "harmless"\n')
        )
        is first
    )
    assert [(rule, pattern.pattern) for rule, _, pattern in first] == [
        ("wording.inert", r"(?<!\w)inert(?!\w)"),
        ("house.a", r"(?<!\w)harmless(?!\w)"),
    ]


def test_pointers_escape_like_the_reference() -> None:
    document: dict[Any, Any] = {
        "a/b": {"note": "x"},
        "c~d": [{"reason": "y"}, "z"],
        "notes": ["p", ["q"], {"k~/": "r"}],
        1: {"note": "non-string key: skipped"},
        "arguments": {"note": "request data: skipped"},
    }
    assert wording.receipt_strings(document) == reference.receipt_strings(document)
    assert [p for p, _ in wording.receipt_strings(document)] == [
        "/a~1b/note",
        "/c~0d/0/reason",
        "/notes/0",
        "/notes/1/0",
        "/notes/2/k~0~1",
    ]


def _corpus() -> list[Mapping[str, Any]]:
    """The demo receipts (one per line of the .jsonl) and the real upstream receipts."""
    texts: list[str] = []
    for name, data in demo_receipts().items():
        texts.extend(data.decode().splitlines() if name.endswith(".jsonl") else [data.decode()])
    for path in sorted(shared_path("fixtures", "seal").rglob("*receipt*.json")):
        texts.append(path.read_text(encoding="utf-8"))
    documents: list[Mapping[str, Any]] = []
    for text in texts:
        try:
            parsed = parse_text(text)
        except JsonError:
            continue
        if isinstance(parsed, dict):
            documents.append(parsed)
    return documents


PLANTED = [
    "the traceparent key is inert",
    "traceparent not present",
    "progressToken is not present in the authority identity.",
    "baggage was left out; it is “inert”",
    "the key is preſent but not present",
    "io.modelcontextprotocol/clientInfo isn't present",
    "clientInfo is harmless",
]


def _planted(document: Mapping[str, Any], text: str) -> dict[str, Any]:
    """The document with ``text`` written over every human-readable string it has."""
    targets = {pointer for pointer, _ in reference.receipt_strings(document)}

    def rewrite(value: Any, pointer: str) -> Any:
        if pointer in targets and isinstance(value, str):
            return text
        if isinstance(value, Mapping):
            return {
                k: rewrite(v, pointer + "/" + k.replace("~", "~0").replace("/", "~1"))
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [rewrite(v, f"{pointer}/{i}") for i, v in enumerate(value)]
        return value

    planted = rewrite(document, "")
    assert isinstance(planted, dict)
    planted["partition_attestation"] = {
        "record": {"policy": "c-refuse-unknown", "exclusion_declaration": ["traceparent"]}
    }
    return planted


@pytest.mark.parametrize(
    "rules",
    [
        wording.DEFAULT_RULES,
        wording.parse_rules(
            'disable = ["wording.inert"]\n[[phrase]]\nid = "h.a"\nphrase = "harmless"'
        ),
        wording.parse_rules('enable = ["wording.excluded-unlabelled"]'),
    ],
)
def test_real_receipts_equal_reference(rules: wording.RuleSet) -> None:
    corpus = _corpus()
    assert len(corpus) >= 10
    checked = 0
    for document in corpus:
        variants = [document] + [_planted(document, text) for text in PLANTED]
        for variant in variants:
            for keys in (None, frozenset(), frozenset({"traceparent", "progressToken"})):
                fast = wording.lint_receipt(variant, keys, rules)
                assert fast == reference.lint_receipt(variant, keys, rules)
                checked += len(fast)
    assert checked > 100


@given(documents())
@settings(max_examples=600)
def test_names_walk_equals_the_reference_walk(document: dict[Any, Any]) -> None:
    """The walk by member names finds `_walk`'s strings at its paths in its order, twice over
    (the second walk reads the kept plans), and the same under a dict nested at any depth."""
    nested = {"certs": [document, {"evidence": document}], "reason": "x"}
    for value in (document, document, nested):
        fast = wording._human_strings(value)
        with fastpath.use_reference():
            assert wording._human_strings(value) == fast
