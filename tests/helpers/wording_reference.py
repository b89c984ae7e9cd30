"""The wording rules as first written: the oracle the fast paths
in `sealverify._internal.wording` are tested against (tests/perf/test_wording_fast.py).

These are the pre-optimisation `_phrase_hits`, `_not_present_hits`, `receipt_strings`,
`lint_text` and `lint_receipt`, kept word for word: a phrase pattern compiled per call, the
union of known and carried keys built per string, a pointer built for every node walked and
every rule run on every string. The per-hit helpers (`_sentence`, `_quoted`, `_negated`,
`_excluded_hits`, `_to_check`, `_line_of`) are kept here as first written too: each scanned
the text or the sentence from its start for every hit (sealverify/_internal/wording/sentences.py now
cuts them once per text). The helpers still shared with the module (`_key_pattern`,
`_c_declaration`, `_carried_keys`, `_blank_code_fences`) were not changed and are imported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from sealverify._internal.mcp import keytable as metakeys
from sealverify._internal.results.model import Check, fail, passed
from sealverify._internal.wording.rules import (
    _HUMAN_KEYS,
    _LABELS,
    _MACHINE_SUBTREES,
    DEFAULT_RULES,
    EXCLUDED_UNLABELLED,
    INERT,
    NOT_PRESENT_CARRIED,
    NOT_PRESENT_UNOBSERVED,
    RULES,
    RuleSet,
    _blank_code_fences,
    _c_declaration,
    _carried_keys,
    _Hit,
    _key_pattern,
    _patterns,
)

_IDENTITY_OBJECT = _patterns().identity_object
_METADATA_CONTEXT = _patterns().metadata_context
_NOT_PRESENT = _patterns().not_present
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s)|\n\s*\n|\n(?=\s*(?:[-*+•|#>]|\d+[.)]\s))|\t")
_CLAUSE_BREAK = re.compile(r"[,;:—(]|\s(?:and|but|while|whereas|although)\s", re.IGNORECASE)
_NEGATION = re.compile(r"^(?:not|never|no|nor|neither|cannot|without|\w+n't)$", re.IGNORECASE)
_WORD = re.compile(r"[\w'’]+")


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """Bounds of the sentence holding ``text[start:end]``."""
    begin = 0
    for match in _SENTENCE_END.finditer(text, 0, start):
        begin = match.end()
    after = _SENTENCE_END.search(text, end)
    if after is None:
        return begin, len(text)
    return begin, after.end() if after.group()[:1] in ".!?" else after.start()


def _quoted(sentence: str, start: int, end: int) -> bool:
    """True when the phrase at ``sentence[start:end]`` sits inside quotation marks."""
    before = sentence[:start]
    if before.rfind("“") > before.rfind("”") or before.rfind("«") > before.rfind("»"):
        return True
    if before.rfind("‘") > before.rfind("’"):
        return True
    if before.count('"') % 2 == 1 or before.count("`") % 2 == 1:
        return True
    tail = sentence[end:].lstrip(".,;:!?")
    return before.endswith("'") and tail.startswith("'")


def _negated(sentence: str, start: int) -> bool:
    """True when a negation precedes the phrase in its clause, within six words."""
    clause = _CLAUSE_BREAK.split(sentence[:start])[-1]
    words = _WORD.findall(clause)[-6:]
    return any(_NEGATION.match(word.replace("’", "'")) for word in words)


def _excluded_hits(text: str, declaration: frozenset[str], rules: RuleSet) -> Iterator[_Hit]:
    if EXCLUDED_UNLABELLED not in rules.enabled:
        return
    pattern = _key_pattern(declaration)
    if pattern is None:
        return
    seen: set[int] = set()
    for match in pattern.finditer(text):
        begin, stop = _sentence(text, match.start(), match.end())
        if begin in seen:
            continue
        seen.add(begin)
        sentence = text[begin:stop]
        if not any(label in sentence.lower() for label in _LABELS):
            yield _Hit(
                EXCLUDED_UNLABELLED,
                f'excluded key {match.group()} is described without "excluded from authority '
                'identity"',
                match.start(),
                sentence,
            )


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _to_check(hit: _Hit, location: str) -> Check:
    excerpt = " ".join(hit.sentence.split())
    return fail(hit.rule, hit.reason, location, excerpt=excerpt[:200])


def _phrase_hits(text: str, rules: RuleSet, *, metadata_only: bool) -> Iterator[_Hit]:
    """``inert`` and the extra phrases: unquoted, not negated, (for documents) about metadata."""
    phrases: list[tuple[str, str, str]] = []
    if INERT in rules.enabled:
        phrases.append((INERT, "inert", RULES[INERT]))
    phrases.extend((p.id, p.phrase, p.reason) for p in rules.phrases)
    for rule, phrase, reason in phrases:
        pattern = re.compile(
            r"(?<!\w)" + r"\s+".join(map(re.escape, phrase.split())) + r"(?!\w)", re.IGNORECASE
        )
        for match in pattern.finditer(text):
            begin, stop = _sentence(text, match.start(), match.end())
            sentence = text[begin:stop]
            at = match.start() - begin
            if _quoted(sentence, at, at + len(match.group())) or _negated(sentence, at):
                continue
            if metadata_only and not _METADATA_CONTEXT.search(sentence):
                continue
            yield _Hit(rule, reason, match.start(), sentence)


def _not_present_hits(
    text: str,
    rules: RuleSet,
    *,
    carried: frozenset[str] | None,
    receipt: bool,
) -> Iterator[_Hit]:
    all_keys = _key_pattern(frozenset(metakeys.KEY_TABLE) | (carried or frozenset()))
    carried_keys = _key_pattern(carried) if carried else None
    for match in _NOT_PRESENT.finditer(text):
        begin, stop = _sentence(text, match.start(), match.end())
        sentence = text[begin:stop]
        at = match.start() - begin
        if _quoted(sentence, at, at + len(match.group())):
            continue
        if NOT_PRESENT_UNOBSERVED in rules.enabled and _IDENTITY_OBJECT.match(text, match.end()):
            yield _Hit(
                NOT_PRESENT_UNOBSERVED,
                '"not present" said of an identity, commitment or target: a key left out of '
                'identity is excluded, not absent; write "excluded from authority identity"',
                match.start(),
                sentence,
            )
            continue
        if not receipt:
            continue
        named = carried_keys.search(sentence) if carried_keys else None
        if named and NOT_PRESENT_CARRIED in rules.enabled:
            yield _Hit(
                NOT_PRESENT_CARRIED,
                f'"not present" said of {named.group()}, which the request frame carries',
                match.start(),
                sentence,
            )
        elif (
            carried is None
            and all_keys
            and all_keys.search(sentence)
            and NOT_PRESENT_UNOBSERVED in rules.enabled
        ):
            yield _Hit(
                NOT_PRESENT_UNOBSERVED,
                '"not present" said of a _meta key, but no frame bytes were available to '
                "show it was observed absent",
                match.start(),
                sentence,
            )


def lint_text(text: str, rules: RuleSet = DEFAULT_RULES, *, markdown: bool = True) -> list[Check]:
    """Lint a text or markdown document; each failing check is located as ``line N``.

    In documents, ``inert`` and extra phrases count only in sentences about metadata, and
    "not present" only when said of an identity, commitment or target. A phrase inside
    quotation marks is a mention, never a violation. Fenced code blocks are skipped.
    """
    body = _blank_code_fences(text) if markdown else text
    hits = [
        *_phrase_hits(body, rules, metadata_only=True),
        *_not_present_hits(body, rules, carried=None, receipt=False),
    ]
    return [_to_check(h, f"line {_line_of(body, h.offset)}") for h in hits]


def _pointer(parts: list[str]) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def receipt_strings(document: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every human-readable string of a receipt as ``(JSON pointer, text)``, in document order.

    Strings under keys such as ``reason``, ``note(s)``, ``statement(s)``, ``message``,
    ``detail`` (or ending ``_note``/``_detail``/``_reason``) at any depth, except inside
    request data and signed machine members (arguments, ``_meta``, ``emitted_bytes``...).
    """
    found: list[tuple[str, str]] = []

    def human(key: str) -> bool:
        return key in _HUMAN_KEYS or key.endswith(("_note", "_detail", "_reason", "_statement"))

    def walk(value: Any, path: list[str], collect: bool) -> None:
        if isinstance(value, str):
            if collect:
                found.append((_pointer(path), value))
        elif isinstance(value, Mapping):
            for key, item in value.items():
                if isinstance(key, str) and key not in _MACHINE_SUBTREES:
                    walk(item, [*path, key], collect or human(key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, [*path, str(index)], collect)

    walk(document, [], False)
    return found


def lint_receipt(
    document: Mapping[str, Any],
    frame_meta_keys: frozenset[str] | None,
    rules: RuleSet = DEFAULT_RULES,
) -> list[Check]:
    """Apply the receipt rules to every human-readable string of one receipt.

    ``frame_meta_keys`` are the `_meta` key names of the request frame (from its bytes); when
    None, the receipt's own wire ``_meta`` member is used if it has one. Returns one failing
    check per violation (located by JSON pointer), or a single ``wording.clean`` pass.
    """
    carried = frame_meta_keys if frame_meta_keys is not None else _carried_keys(document)
    declaration = _c_declaration(document)
    strings = receipt_strings(document)
    checks: list[Check] = []
    for pointer, text in strings:
        hits = [
            *_phrase_hits(text, rules, metadata_only=False),
            *_not_present_hits(text, rules, carried=carried, receipt=True),
        ]
        if declaration is not None:
            hits.extend(_excluded_hits(text, declaration, rules))
        checks.extend(_to_check(h, pointer) for h in hits)
    if not checks:
        checks.append(
            passed(
                "wording.clean",
                f"{len(strings)} human-readable string(s) checked against "
                f"{len(rules.enabled) + len(rules.phrases)} wording rule(s)",
            )
        )
    return checks
