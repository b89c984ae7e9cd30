"""Wording rules for receipts and documents about `_meta` (meta-partition ruling §5)."""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sealverify._internal import fastpath
from sealverify._internal.results.model import Check, fail, passed
from sealverify._internal.results.repeats import KEEP, Findings
from sealverify._internal.wire import spelling
from sealverify._internal.wire.strictjson import JsonNumber
from sealverify.errors import InputFileError

# What a receipt's strings need only when one may hit a rule (`_may_hit`), and what a
# document's lint needs, load on first use: most receipts never reach them, and every run
# paid for their import and patterns at start-up (about 25 M instructions).
if TYPE_CHECKING:
    from sealverify._internal.wording.sentences import Sentence, Sentences

__all__ = [
    "DEFAULT_RULES",
    "RULES",
    "ExtraPhrase",
    "RuleSet",
    "lint_lines",
    "lint_receipt",
    "lint_text",
    "parse_rules",
    "receipt_strings",
]

INERT = "wording.inert"
NOT_PRESENT_CARRIED = "wording.not-present-carried"
EXCLUDED_UNLABELLED = "wording.excluded-unlabelled"
NOT_PRESENT_UNOBSERVED = "wording.not-present-unobserved"

RULES: dict[str, str] = {
    INERT: 'calls metadata keys or values "inert"; servers and downstream systems may act on '
    "every key, so say what the key does or that it is excluded from authority identity "
    "(the meta-partition ruling §3.3, §5)",
    NOT_PRESENT_CARRIED: '"not present" said of a _meta key the request frame carries; write '
    '"excluded from authority identity" for an excluded key (the meta-partition ruling §5)',
    EXCLUDED_UNLABELLED: 'an excluded key is named without the words "excluded from authority '
    'identity" in an Option C record (the meta-partition ruling §5)',
    NOT_PRESENT_UNOBSERVED: '"not present" where the structure was not observed absent; reserve '
    "it for an absence seen in the request (the meta-partition ruling §5)",
}

_LABELS = ("excluded from authority identity", "excluded from action and authority identity")
_C_POLICIES = ("c-refuse-unknown", "c-commit-unknown")


@dataclass(frozen=True, slots=True)
class ExtraPhrase:
    """A configured forbidden phrase, treated like ``inert`` (quotes and negation exempt)."""

    id: str
    phrase: str
    reason: str


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Which built-in rules run, and the extra phrases from a rule file."""

    enabled: frozenset[str] = frozenset(RULES)
    phrases: tuple[ExtraPhrase, ...] = ()


DEFAULT_RULES = RuleSet()


@functools.cache
def _rule_id() -> re.Pattern[str]:
    return re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+")


def parse_rules(text: str) -> RuleSet:
    """Parse a TOML rule file (``enable``, ``disable``, ``[[phrase]]``); ValueError if invalid."""
    import tomllib  # loaded with a rule file: the built-in rules need no TOML

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(f"rule file is not TOML: {exc}") from None
    unknown = sorted(set(data) - {"enable", "disable", "phrase"})
    if unknown:
        raise InputFileError(f"rule file: unknown setting(s) {', '.join(unknown)}")

    def ids(name: str) -> set[str]:
        value = data.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputFileError(f"rule file: {name} must be a list of rule ids")
        bad = sorted(set(value) - set(RULES))
        if bad:
            raise InputFileError(f"rule file: {name} names unknown rule id(s) {', '.join(bad)}")
        return set(value)

    enabled = ids("enable") if "enable" in data else set(RULES)
    enabled -= ids("disable")
    phrases: list[ExtraPhrase] = []
    entries = data.get("phrase", [])
    if not isinstance(entries, list):
        raise InputFileError("rule file: phrase must be an array of tables ([[phrase]])")
    for entry in entries:
        if not isinstance(entry, dict) or set(entry) - {"id", "phrase", "reason"}:
            raise InputFileError("rule file: each [[phrase]] holds only id, phrase and reason")
        rule_id, phrase = entry.get("id"), entry.get("phrase")
        if not isinstance(rule_id, str) or not _rule_id().fullmatch(rule_id) or rule_id in RULES:
            raise InputFileError(f"rule file: phrase id {rule_id!r} must be a new dotted id")
        if not isinstance(phrase, str) or not phrase.strip():
            raise InputFileError(f"rule file: phrase {rule_id} needs a non-empty phrase")
        reason = entry.get("reason", f'uses the forbidden phrase "{phrase}"')
        if not isinstance(reason, str):
            raise InputFileError(f"rule file: phrase {rule_id} reason must be a string")
        phrases.append(ExtraPhrase(rule_id, phrase.strip(), reason))
    return RuleSet(frozenset(enabled), tuple(phrases))


# Sentence and clause boundaries are cut in sealverify/_internal/wording/sentences.py.
class _Patterns:
    """The rules' fixed patterns, compiled when a string first may hit a rule."""

    def __init__(self) -> None:
        self.negation = re.compile(
            r"^(?:not|never|no|nor|neither|cannot|without|\w+n't)$", re.IGNORECASE
        )
        self.not_present = re.compile(
            r"\b(?:not|isn't|aren't|wasn't|weren't)\s+present\b", re.IGNORECASE
        )
        self.identity_object = re.compile(
            r"\s+(?:in|from|within)\s+(?:the\s+|an?\s+|its\s+|their\s+)?(?:[\w/-]+\s+){0,3}?"
            r"(?:identity|identities|commitments?|targets?|digests?|hash(?:es)?|preimages?"
            r"|projections?)\b",
            re.IGNORECASE,
        )
        self.metadata_context = re.compile(
            r"_meta|\bmeta(?:data)?\b|\bkeys?\b|\bvalues?\b|\bfields?\b|traceparent|tracestate"
            r"|baggage|progressToken|clientInfo|clientCapabilities|protocolVersion|logLevel"
            r"|subscriptionId|serverInfo|\bexcluded\b",
            re.IGNORECASE,
        )
        from sealverify._internal.mcp import keytable as metakeys

        # Every key the table knows. Only read when ``carried`` is None, where the union
        # "table keys | carried keys" the rule is defined by is the table keys alone.
        self.known_keys = _key_pattern(frozenset(metakeys.KEY_TABLE))


@functools.cache
def _patterns() -> _Patterns:
    return _Patterns()


def _negated(sentence: Sentence, start: int) -> bool:
    """True when a negation precedes the phrase in its clause, within six words."""
    from sealverify._internal.wording.sentences import last_words

    words = last_words(sentence.text, sentence.clause_start(start), start, 6)
    negation = _patterns().negation
    return any(negation.match(word.replace("’", "'")) for word in words)


@dataclass(frozen=True, slots=True)
class _Hit:
    rule: str
    reason: str
    offset: int
    sentence: str


def _phrase_source(phrase: str) -> str:
    """The regex for one phrase: its words separated by any whitespace, never inside a word."""
    return r"(?<!\w)" + r"\s+".join(map(re.escape, phrase.split())) + r"(?!\w)"


def _phrases(rules: RuleSet) -> list[tuple[str, str, str]]:
    """``(rule id, phrase, reason)`` for ``inert`` (when enabled) and each extra phrase."""
    phrases: list[tuple[str, str, str]] = []
    if INERT in rules.enabled:
        phrases.append((INERT, "inert", RULES[INERT]))
    phrases.extend((p.id, p.phrase, p.reason) for p in rules.phrases)
    return phrases


@fastpath.cache(maxsize=32)  # a RuleSet is frozen and compares by value: one per rule file
def _phrase_patterns(rules: RuleSet) -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    """``(rule id, reason, compiled pattern)`` for each phrase of `_phrases`, in order."""
    return tuple(
        (rule, reason, re.compile(_phrase_source(phrase), re.IGNORECASE))
        for rule, phrase, reason in _phrases(rules)
    )


def _phrase_hits(
    text: str, rules: RuleSet, sentences: Sentences, *, metadata_only: bool
) -> Iterator[_Hit]:
    """``inert`` and the extra phrases: unquoted, not negated, (for documents) about metadata."""
    for rule, reason, pattern in _phrase_patterns(rules):
        yield from _pattern_hits(text, (rule, reason, pattern), sentences, metadata_only)


def _pattern_hits(
    text: str,
    phrase: tuple[str, str, re.Pattern[str]],
    sentences: Sentences,
    metadata_only: bool,
) -> Iterator[_Hit]:
    """The hits of one phrase of `_phrase_patterns`, in order."""
    rule, reason, pattern = phrase
    for match in pattern.finditer(text):
        sentence = sentences.around(match.start(), match.end())
        at = match.start() - sentence.begin
        if sentence.quoted(at, at + len(match.group())) or _negated(sentence, at):
            continue
        if metadata_only and not sentence.search(_patterns().metadata_context):
            continue
        yield _Hit(rule, reason, match.start(), sentence.text)


@fastpath.cache(maxsize=64)  # pure in a frozenset: the same few key sets every receipt
def _key_pattern(names: frozenset[str]) -> re.Pattern[str] | None:
    """Match any of the key names, or the part after the last ``/`` of a prefixed one."""
    spelled = set(names) | {n.rpartition("/")[2] for n in names if "/" in n}
    spelled.discard("")
    if not spelled:
        return None
    alternatives = "|".join(re.escape(n) for n in sorted(spelled, key=len, reverse=True))
    return re.compile(rf"(?<![\w/.-])(?:{alternatives})(?![\w/-])")


def _not_present_hits(
    text: str,
    rules: RuleSet,
    sentences: Sentences,
    *,
    carried: frozenset[str] | None,
    receipt: bool,
) -> Iterator[_Hit]:
    carried_keys = _key_pattern(carried) if carried else None
    patterns = _patterns()
    for match in patterns.not_present.finditer(text):
        held = sentences.around(match.start(), match.end())
        sentence = held.text
        at = match.start() - held.begin
        if held.quoted(at, at + len(match.group())):
            continue
        if NOT_PRESENT_UNOBSERVED in rules.enabled and patterns.identity_object.match(
            text, match.end()
        ):
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
        named = held.search(carried_keys) if carried_keys else None
        if named and NOT_PRESENT_CARRIED in rules.enabled:
            yield _Hit(
                NOT_PRESENT_CARRIED,
                f'"not present" said of {named.group()}, which the request frame carries',
                match.start(),
                sentence,
            )
        elif (
            carried is None
            and patterns.known_keys
            and held.search(patterns.known_keys)
            and NOT_PRESENT_UNOBSERVED in rules.enabled
        ):
            yield _Hit(
                NOT_PRESENT_UNOBSERVED,
                '"not present" said of a _meta key, but no frame bytes were available to '
                "show it was observed absent",
                match.start(),
                sentence,
            )


def _excluded_hits(
    text: str, declaration: frozenset[str], rules: RuleSet, sentences: Sentences
) -> Iterator[_Hit]:
    if EXCLUDED_UNLABELLED not in rules.enabled:
        return
    pattern = _key_pattern(declaration)
    if pattern is None:
        return
    seen: set[int] = set()
    for match in pattern.finditer(text):
        held = sentences.around(match.start(), match.end())
        if held.begin in seen:
            continue
        seen.add(held.begin)
        sentence = held.text
        if not any(label in sentence.lower() for label in _LABELS):
            yield _Hit(
                EXCLUDED_UNLABELLED,
                f'excluded key {match.group()} is described without "excluded from authority '
                'identity"',
                match.start(),
                sentence,
            )


def _blank_code_fences(text: str) -> str:
    """Replace fenced code blocks by blank lines (offsets and line numbers are kept)."""
    out: list[str] = []
    fenced = False
    for line in text.splitlines(keepends=True):
        fence = line.lstrip().startswith(("```", "~~~"))
        if fence or fenced:
            out.append("".join(c if c in "\r\n" else " " for c in line))
        else:
            out.append(line)
        if fence:
            fenced = not fenced
    return "".join(out)


def _to_checks(located: Iterable[tuple[_Hit, str]]) -> list[Check]:
    """A failing check per (hit, location); the hits of one sentence share one excerpt of it."""
    excerpts: dict[str, str] = {}
    checks = []
    for hit, location in located:
        excerpt = excerpts.get(hit.sentence)
        if excerpt is None:
            excerpt = excerpts[hit.sentence] = " ".join(hit.sentence.split())[:200]
        checks.append(fail(hit.rule, hit.reason, location, excerpt=excerpt))
    return checks


def lint_text(text: str, rules: RuleSet = DEFAULT_RULES, *, markdown: bool = True) -> list[Check]:
    """Lint a text or markdown document; each failing check is located as ``line N``.

    In documents, ``inert`` and extra phrases count only in sentences about metadata, and
    "not present" only when said of an identity, commitment or target. A phrase inside
    quotation marks is a mention, never a violation. Fenced code blocks are skipped.
    """
    return list(lint_lines((text,), rules, markdown=markdown, keep=sys.maxsize))


def lint_lines(
    chunks: Iterable[str],
    rules: RuleSet = DEFAULT_RULES,
    *,
    markdown: bool = True,
    keep: int = KEEP,
    window: int | None = None,
) -> Findings:
    """:func:`lint_text` of the text ``chunks`` make, held a window of paragraphs at a time.

    Each chunk holds whole lines (ends with a line feed; the last may not). The findings are
    :func:`lint_text`'s, in its order (each rule's in turn), with the first ``keep`` of each
    rule kept and the rest counted. What is held is about ``window`` characters, the
    paragraph they end in and one chunk (wording/paragraphs.py; None: its ``WINDOW``), and
    ``keep`` findings a rule.
    """
    from sealverify._internal.wording.paragraphs import WINDOW, blanked_lines, paragraphs
    from sealverify._internal.wording.sentences import Sentences, lines_of

    window = WINDOW if window is None else window
    phrases = _phrase_patterns(rules)
    groups = [Findings(keep=keep) for _ in range(len(phrases) + 1)]
    for body, first in paragraphs(blanked_lines(chunks, markdown), _joins(rules), window):
        sentences = Sentences(body)
        found = [list(_pattern_hits(body, phrase, sentences, True)) for phrase in phrases]
        found.append(list(_not_present_hits(body, rules, sentences, carried=None, receipt=False)))
        at = lines_of(body, [h.offset for hits in found for h in hits])
        for group, hits in zip(groups, found, strict=True):
            group.extend(_to_checks((h, f"line {at[h.offset] + first - 1}") for h in hits))
    findings = Findings(keep=keep)
    for group in groups:  # each rule's first ``keep`` kept, in order; the rest counted
        findings.extend(group)
        for key, total in group.counts.items():
            findings.counts[key] += total - min(total, keep)
    return findings


# The words that end a paragraph and may go on, across blank lines, into a match: a phrase's
# word before its last, and the negation of "not present" (`_Patterns.not_present`).
_NOT_WORDS = ("not", "isn't", "aren't", "wasn't", "weren't")
_PRESENT = re.compile("present", re.IGNORECASE)


@fastpath.cache(maxsize=32)  # keyed by the frozen RuleSet, which compares by value
def _joins(rules: RuleSet) -> Callable[[list[str]], bool]:
    """Whether a paragraph ending in these words must be held with the next (paragraphs.py).

    A match that reads across the blank lines holds them in one ``\\s+``, so the word before
    them ends a phrase's word that is not its last, or a negation; or "present" is one of
    the last words and the identity object after it may go on. Case as the patterns' (each
    ``re.IGNORECASE`` compares one character to one, so a suffix is as long as the word).
    """
    words = {w for _, phrase, _ in _phrases(rules) for w in phrase.split()[:-1]}
    words.update(_NOT_WORDS)
    longest = max(map(len, words))
    ends = re.compile("(?:" + "|".join(map(re.escape, sorted(words))) + r")\Z", re.IGNORECASE)

    def joins(last: list[str]) -> bool:
        if not last:
            return False
        if ends.search(last[-1][-longest:]):
            return True
        return any(_PRESENT.search(word) for word in last)

    return joins


_HUMAN_KEYS = frozenset(
    {
        "reason",
        "reasons",
        "note",
        "notes",
        "statement",
        "statements",
        "message",
        "messages",
        "description",
        "detail",
        "details",
        "summary",
        "explanation",
        "wording",
        "label",
    }
)
_MACHINE_SUBTREES = frozenset(
    {
        "arguments",
        "_meta",
        "requestState",
        "inputResponses",
        "effect_view",
        "emitted_bytes",
        "signed_config",
        "kernel_config",
        "release_frame",
        "signature",
        "canonical_request",
        "record",
        "signed_artifacts",
    }
)


_HUMAN_SUFFIXES = ("_note", "_detail", "_reason", "_statement")
# Exact types that hold no string (numbers, bools, null), so the walk skips them without a
# call. Subclasses are not listed: they take the general path through `_walk`.
_LEAF_TYPES = frozenset({int, float, bool, type(None), JsonNumber})

_Path = tuple[str | int, ...]


def _pointer(parts: _Path) -> str:
    return spelling.pointer(*parts)


# What a member name means to the walk: its members are skipped (a machine subtree, or a
# name that is not a string), human-readable, or neither. A pure function of the name, kept
# per exact ``str`` name (names of a fleet's receipts repeat), bounded in entries and length;
# in reference mode (:func:`sealverify._internal.fastpath.reference`) nothing is kept.
_SKIPPED, _HUMAN, _PLAIN = 0, 1, 2
_KEY_ROLES: dict[str, int] = {}
_KEY_ROLES_LIMIT = 4096
_KEY_ROLE_CHARS = 64


class _NothingKept(dict[str, int]):
    """The roles in reference mode: a table that is never filled, so never read."""

    def __setitem__(self, key: str, value: int) -> None:
        pass


_NOTHING_KEPT = _NothingKept()


def _key_role(key: object, roles: dict[str, int]) -> int:
    """The role of a member name, worked out (and kept in ``roles``, for a short exact str)."""
    if not isinstance(key, str) or key in _MACHINE_SUBTREES:
        role = _SKIPPED
    elif key in _HUMAN_KEYS or key.endswith(_HUMAN_SUFFIXES):
        role = _HUMAN
    else:
        role = _PLAIN
    if type(key) is str and len(key) <= _KEY_ROLE_CHARS and len(roles) < _KEY_ROLES_LIMIT:
        roles[key] = role
    return role


def _walk(
    value: Any,
    path: list[str | int],
    collect: bool,
    found: list[tuple[_Path, str]],
    roles: dict[str, int],
) -> None:
    """Append ``(path, text)`` for each collected string under ``value``, in document order.

    ``path`` is one shared stack (pushed and popped around each descent) and is copied only
    for a collected string, so the walk allocates nothing per node it merely passes through.
    A string is collected when some key above it is human-readable (`_HUMAN_KEYS`, the
    suffixes); members under `_MACHINE_SUBTREES` keys and under non-string keys are skipped.
    """
    kind = type(value)
    # Exact dicts and lists (all a parsed receipt holds) skip the slower abstract checks; the
    # general order (string, then mapping, then list) decides everything else.
    if kind is dict:
        mapping = True
    elif kind is list:
        mapping = False
    elif isinstance(value, str):
        if collect:
            found.append((tuple(path), value))
        return
    elif isinstance(value, Mapping):
        mapping = True
    elif isinstance(value, list):
        mapping = False
    else:
        return
    if mapping:
        for key, item in value.items():
            kind = type(item)
            if kind in _LEAF_TYPES:
                continue
            role = roles.get(key) if type(key) is str else None
            if role is None:
                role = _key_role(key, roles)
            if role == _SKIPPED:
                continue
            below = collect or role == _HUMAN
            if kind is str:
                if below:
                    found.append(((*path, key), item))
                continue
            path.append(key)
            _walk(item, path, below, found, roles)
            path.pop()
    else:
        for index, item in enumerate(value):
            kind = type(item)
            if kind is str:
                if collect:
                    found.append(((*path, index), item))
                continue
            if kind in _LEAF_TYPES:
                continue
            path.append(index)
            _walk(item, path, collect, found, roles)
            path.pop()


# The walk by member names: a fast path beside `_walk` (ADR 0008; the walk is three
# quarters of the lint on the bench corpus). Which members of an exact dict `_walk` skips by
# name (machine subtrees) and which names are human-readable is a pure function of the tuple
# of its names, so that plan is worked out once per tuple and kept: a receipt's dicts skip
# their machine members without a loop turn and read no role per member. Each value is then
# treated as `_walk` treats it; a name that is not an exact str, a container of another type
# or a value of another type goes to `_walk` itself, at the same path, so the two agree.
_Plan = tuple[tuple[str, bool], ...]
_PLAN_NAMES = 64  # a dict with more members takes `_walk` (its names would be a long key)


@fastpath.cache(maxsize=256)  # pure in the names; receipts of one fleet share a few name sets
def _names_plan(names: tuple[Any, ...]) -> _Plan | None:
    """``(name, human)`` for each member `_walk` does not skip by name; None unless all str."""
    if any(type(name) is not str for name in names):
        return None
    roles = ((name, _key_role(name, _KEY_ROLES)) for name in names)
    return tuple((name, role == _HUMAN) for name, role in roles if role != _SKIPPED)


def _names_walk(
    value: dict[Any, Any], path: list[str | int], collect: bool, found: list[tuple[_Path, str]]
) -> None:
    """`_walk` of an exact dict, by the plan of its names (same ``found``, same order)."""
    plan = _names_plan(tuple(value)) if len(value) <= _PLAN_NAMES else None
    if plan is None:
        _walk(value, path, collect, found, _KEY_ROLES)
        return
    for name, human in plan:
        item = value[name]
        kind = type(item)
        if kind is str:
            if collect or human:
                found.append(((*path, name), item))
        elif kind not in _LEAF_TYPES:
            path.append(name)
            _item_walk(item, kind, path, collect or human, found)
            path.pop()


def _item_walk(
    item: Any, kind: type, path: list[str | int], collect: bool, found: list[tuple[_Path, str]]
) -> None:
    """`_walk` of one value that is neither a leaf nor an exact str (``kind`` is its type)."""
    if kind is dict:
        _names_walk(item, path, collect, found)
    elif kind is list:
        for index, each in enumerate(item):
            kind = type(each)
            if kind is str:
                if collect:
                    found.append(((*path, index), each))
            elif kind not in _LEAF_TYPES:
                path.append(index)
                _item_walk(each, kind, path, collect, found)
                path.pop()
    else:
        _walk(item, path, collect, found, _KEY_ROLES)


def _human_strings(document: Mapping[str, Any]) -> list[tuple[_Path, str]]:
    """Like `receipt_strings`, with each location as path parts (a pointer is built on demand)."""
    found: list[tuple[_Path, str]] = []
    if fastpath.reference():
        _walk(document, [], False, found, _NOTHING_KEPT)
    elif type(document) is dict:
        _names_walk(document, [], False, found)
    else:
        _walk(document, [], False, found, _KEY_ROLES)
    return found


def receipt_strings(document: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every human-readable string of a receipt as ``(JSON pointer, text)``, in document order.

    Strings under keys such as ``reason``, ``note(s)``, ``statement(s)``, ``message``,
    ``detail`` (or ending ``_note``/``_detail``/``_reason``) at any depth, except inside
    request data and signed machine members (arguments, ``_meta``, ``emitted_bytes``...).
    """
    return [(_pointer(path), text) for path, text in _human_strings(document)]


def _c_declaration(document: Mapping[str, Any]) -> frozenset[str] | None:
    """The exclusion declaration when the document is (or carries) an Option C record."""
    candidates: list[Any] = [document, document.get("record"), document.get("partition")]
    attestation = document.get("partition_attestation")
    if isinstance(attestation, Mapping):
        candidates.append(attestation.get("record"))
    for item in candidates:
        if isinstance(item, Mapping) and item.get("policy") in _C_POLICIES:
            declared = item.get("exclusion_declaration")
            if isinstance(declared, list) and all(isinstance(n, str) for n in declared):
                return frozenset(declared)
            from sealverify._internal.mcp import keytable as metakeys

            return frozenset(metakeys.OPTION_C_EXCLUDED)
    return None


def _carried_keys(document: Mapping[str, Any]) -> frozenset[str] | None:
    """`_meta` key names the receipt itself shows from the wire, or None when it shows none."""
    meta = document.get("_meta")
    if isinstance(meta, Mapping):
        return frozenset(k for k in meta if isinstance(k, str))
    return None


# A cue is a word every match of a rule's pattern contains, as ``(lowered word if ASCII else
# "", the word compiled case-insensitive)``. Why a cue proves "no hit" exactly:
# - `_phrase_hits` yields only from a match of a phrase pattern, which is the phrase's words
#   compiled case-insensitive, so any match contains a case-insensitive match of the first word;
#   `_not_present_hits` yields only from a `_Patterns.not_present` match, which contains "present".
# - The compiled word finds such a match by the very same case-insensitive comparison.
# - For ASCII text and an ASCII word, that comparison is plain ASCII case folding (the
#   regex engine's extra case equivalences, such as s/ſ or k/K, all pair an ASCII letter
#   with a non-ASCII one), so a substring test on the lowered text decides it at C speed.
_Cue = tuple[str, re.Pattern[str]]


@fastpath.cache(maxsize=32)  # keyed by the frozen RuleSet, which compares by value
def _cues(rules: RuleSet) -> tuple[_Cue, ...] | None:
    """The cues of the phrase and "not present" rules, or None if some phrase has no word."""
    words = [phrase.split() for _, phrase, _ in _phrases(rules)]
    if not all(words):
        return None  # an empty phrase pattern matches the empty string: no word to look for
    literals = sorted({w[0] for w in words} | {"present"})
    return tuple(
        (word.lower() if word.isascii() else "", re.compile(re.escape(word), re.IGNORECASE))
        for word in literals
    )


def _may_hit(text: str, cues: tuple[_Cue, ...] | None) -> bool:
    """False only when no phrase or "not present" rule can fire in ``text`` (see `_Cue`)."""
    if cues is None:
        return True
    if text.isascii():  # a loop, not any() over a generator: it runs for every string
        low = text.lower()
        for word, pattern in cues:
            if (word in low) if word else (pattern.search(text) is not None):
                return True
        return False
    return any(pattern.search(text) for _, pattern in cues)


def _string_hits(
    text: str,
    rules: RuleSet,
    carried: frozenset[str] | None,
    declaration: frozenset[str] | None,
) -> list[_Hit]:
    """Every receipt-rule hit in one string, in rule order (phrases, "not present", excluded)."""
    from sealverify._internal.wording.sentences import Sentences

    sentences = Sentences(text)
    hits = [
        *_phrase_hits(text, rules, sentences, metadata_only=False),
        *_not_present_hits(text, rules, sentences, carried=carried, receipt=True),
    ]
    if declaration is not None:
        hits.extend(_excluded_hits(text, declaration, rules, sentences))
    return hits


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
    cues = _cues(rules)
    # `_excluded_hits` yields only from a match of the declaration's key pattern (and only
    # when its rule is on), so a string without such a match has no excluded-key hit either.
    keys = None
    if declaration is not None and EXCLUDED_UNLABELLED in rules.enabled:
        keys = _key_pattern(declaration)
    strings = _human_strings(document)
    checks: list[Check] = []
    for path, text in strings:
        if not _may_hit(text, cues) and (keys is None or keys.search(text) is None):
            continue  # proven clean without the per-rule work (see `_Cue`)
        hits = _string_hits(text, rules, carried, declaration)
        if hits:
            pointer = _pointer(path)
            checks.extend(_to_checks((h, pointer) for h in hits))
    if not checks:
        checks.append(
            passed(
                "wording.clean",
                f"{len(strings)} human-readable string(s) checked against "
                f"{len(rules.enabled) + len(rules.phrases)} wording rule(s)",
            )
        )
    return checks
