"""A text linted a paragraph at a time gives the findings of the whole text, at the same lines.

`lint_text` and `lint` hold one paragraph (the text up to a blank line, wording/paragraphs.py)
where they held the whole document. The properties compare the findings (ids, reasons,
locations, excerpts, order) with the whole-text rules as first written
(tests/helpers/wording_reference.py), on texts made mostly of blank lines, fences and the
words a match can carry across a blank line.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sealverify._internal.results.repeats import Findings
from sealverify._internal.wording import paragraphs as cut
from sealverify._internal.wording import rules as wording
from sealverify._internal.wording.lint_report import lint_subject
from tests.helpers import wording_reference as reference

FRAGMENTS = [
    "The traceparent key is",
    "inert",
    "Inert.",
    "semantically",
    "harmless",
    "not",
    "isn't",
    "present",
    "PREſENT",
    "in",
    "the",
    "authority",
    "identity",
    "metadata",
    "baggage",
    '"',
    "`",
    "```",
    "~~~",
    "- ",
    "1. ",
    "x.",
    "and",
    "\t",
    "\r",
    "\u2028",
    "\x0c",
]
# Blank lines of every kind (spaces, tabs, CR, form feeds), often, beside the usual gaps, and
# line ends after a sentence end (a window is cut there too).
GAPS = [" ", "\n", "\n\n", "\n \n", "\n\t\n  ", "\r\n\r\n", "\n\x0c\n", "\n\n\n", ". ", ", "]
GAPS += [".\n", ",\n", "!) \n", '."\r\n', "?\n- ", ".\t\n"]  # a sentence ends at a line's end
# Lines that `SENTENCE_END` cuts without a blank line or a sentence end at the line's end: a
# marker or a tab starts the next line, a tab ends this one, a sentence ends inside a line.
GAPS += ["\n- ", "\n  * ", "\n#", "\n> ", "\n| ", "\n2) ", "\n10.\n", "\n\t", "\n \t ", "\t\n"]
GAPS += ["\t", " \t ", ". ", "?\u2028", '!" ', ".) \x0c", "\n\u2022 ", "\n1.x"]

texts = st.lists(st.tuples(st.sampled_from(FRAGMENTS), st.sampled_from(GAPS)), max_size=24).map(
    lambda parts: "".join(fragment + gap for fragment, gap in parts)
)

# Sentences that violate a rule, their words parted by random gaps: blank lines inside a match.
SENTENCES = [
    "The baggage key is not present in the authority identity.",
    "The _meta key isn't present from its digest",
    "The _meta key is semantically inert, not harmless at all.",
    "traceparent values are Inert and harmless",
]
split_sentences = st.lists(
    st.sampled_from(SENTENCES).flatmap(
        lambda sentence: st.lists(
            st.sampled_from(GAPS), min_size=len(sentence.split()), max_size=len(sentence.split())
        ).map(lambda gaps: "".join(w + g for w, g in zip(sentence.split(), gaps, strict=True)))
    ),
    min_size=1,
    max_size=4,
).map("".join)


def by_paragraphs(
    text: str, rules: wording.RuleSet, markdown: bool, lines: int = 1, keep: int = sys.maxsize
) -> wording.Findings:
    """``lint_lines`` given ``lines`` lines a chunk, cutting wherever it may (a window of 1)."""
    each = list(cut.text_lines(text))
    chunks = ("".join(each[i : i + lines]) for i in range(0, len(each), lines))
    return wording.lint_lines(chunks, rules, markdown=markdown, keep=keep, window=1)


rule_sets = st.sampled_from(
    [
        wording.DEFAULT_RULES,
        wording.RuleSet(
            phrases=(
                wording.ExtraPhrase("house.a", "semantically inert", "r"),
                wording.ExtraPhrase("house.b", "not harmless at all", "r"),
                wording.ExtraPhrase("house.a", "harmless", "r"),
            )
        ),
    ]
)


@given(texts, rule_sets, st.booleans(), st.integers(1, 4))
@settings(max_examples=800, deadline=None)
def test_paragraph_at_a_time_equals_the_whole_text(
    text: str, rules: wording.RuleSet, markdown: bool, lines: int
) -> None:
    expected = reference.lint_text(text, rules, markdown=markdown)
    assert list(by_paragraphs(text, rules, markdown, lines)) == expected
    assert wording.lint_text(text, rules, markdown=markdown) == expected


@given(split_sentences, rule_sets, st.booleans(), st.integers(1, 4))
@settings(max_examples=400, deadline=None)
def test_matches_across_blank_lines_are_found_as_in_the_whole_text(
    text: str, rules: wording.RuleSet, markdown: bool, lines: int
) -> None:
    expected = reference.lint_text(text, rules, markdown=markdown)
    assert list(by_paragraphs(text, rules, markdown, lines)) == expected


@given(texts, rule_sets, st.booleans(), st.integers(1, 3))
@settings(max_examples=300, deadline=None)
def test_kept_findings_are_those_the_whole_list_keeps(
    text: str, rules: wording.RuleSet, markdown: bool, keep: int
) -> None:
    whole = Findings(reference.lint_text(text, rules, markdown=markdown), keep=keep)
    held = by_paragraphs(text, rules, markdown, keep=keep)
    assert held.checks() == whole.checks()
    assert held.counts == whole.counts


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("The baggage key is not\n\npresent in the identity.\n", "wording.not-present-unobserved"),
        (
            "The baggage key is not present\n\nin\n\nthe\n\nauthority identity.\n",
            "wording.not-present-unobserved",
        ),
        ("The _meta key is semantically\n\n\ninert.\n", "house.a"),
    ],
)
def test_a_match_across_blank_lines_holds_the_paragraphs_together(text: str, rule: str) -> None:
    # Cut at every blank line, these matches would be lost: the paragraphs are held together.
    rules = wording.RuleSet(phrases=(wording.ExtraPhrase("house.a", "semantically inert", "r"),))
    expected = reference.lint_text(text, rules)
    assert expected and list(by_paragraphs(text, rules, True)) == expected
    assert rule in {c.id for c in expected}
    assert len(list(cut.paragraphs(cut.text_lines(text), lambda words: False, 1))) > 1


def test_paragraphs_end_at_blank_lines_and_keep_line_numbers() -> None:
    text = "\n\na b\nc\n \nd\n\t\n\ne\n"
    got = list(cut.paragraphs(cut.text_lines(text), lambda words: False, 1))
    assert got == [("\n\n", 1), ("a b\nc\n \n", 3), ("d\n\t\n\n", 6), ("e\n", 9)]
    assert list(cut.paragraphs([text], lambda words: False, 1)) == [(text[:15], 1), ("e\n", 9)]
    assert "".join(body for body, _ in got) == text


def test_the_last_words_reach_back_over_lines_and_long_lines() -> None:
    seen: list[list[str]] = []
    text = "x " * 5000 + "a b\nc\nd e f g\n\nnext\n"
    list(cut.paragraphs(cut.text_lines(text), lambda words: bool(seen.append(words)), 1))
    assert seen == [["b", "c", "d", "e", "f", "g"]]


def test_fences_are_blanked_as_in_the_whole_text() -> None:
    text = "a\n```\ninert key\r\n~~~ x\n```\nb\rc\u2028```\nd\n"
    for lines in (cut.text_lines(text), [text], ["a\n", text[2:]]):
        assert "".join(cut.blanked_lines(lines, True)) == wording._blank_code_fences(text)


def test_a_subject_read_by_lines_equals_one_read_whole() -> None:
    data = ("The traceparent value is inert.\n\n" * 3000).encode()
    pieces = [data[i : i + 7] for i in range(0, len(data), 7)]  # cut anywhere, not at lines
    by_lines = lint_subject("n.md", iter(pieces))
    assert by_lines == lint_subject("n.md", data)
    assert by_lines.facts["violations"] == 3000
    assert by_lines.checks[99].location == "line 199"


@pytest.mark.parametrize("data", [b"ok\n\xe2\n", b"ok\n\xff", b"ok\n\xe2\x82"])
def test_a_text_not_utf8_is_refused_as_when_read_whole(data: bytes) -> None:
    from sealverify.errors import InputError

    with pytest.raises(InputError) as whole:
        lint_subject("n.txt", data)
    with pytest.raises(InputError) as by_lines:
        lint_subject("n.txt", iter(data.splitlines(keepends=True)))
    assert str(by_lines.value) == str(whole.value)


def test_the_last_cut_is_looked_for_further_back_when_the_nearest_join() -> None:
    # Every run of blank lines near the end follows "not": the cut is found 12 kB back.
    text = "a key\n\nb\n\n" + "The _meta key is not\n\n" * 600 + "present in its identity.\n"
    joins = wording._joins(wording.DEFAULT_RULES)
    assert list(cut.paragraphs([text], joins, 1)) == [(text[:10], 1), (text[10:], 5)]
    expected = reference.lint_text(text)
    assert [c.location for c in expected] == ["line 1203"]
    assert list(by_paragraphs(text, wording.DEFAULT_RULES, True, lines=10_000)) == expected


def test_a_line_that_ends_a_sentence_is_a_place_to_cut() -> None:
    text = "One sentence.\nTwo, and\nthree!) \nfour\n"
    got = list(cut.paragraphs(cut.text_lines(text), lambda words: False, 1))
    assert got == [("One sentence.\n", 1), ("Two, and\nthree!) \n", 2), ("four\n", 4)]
    assert list(cut.paragraphs([text], lambda words: False, 1)) == [(text[:-5], 1), ("four\n", 4)]
