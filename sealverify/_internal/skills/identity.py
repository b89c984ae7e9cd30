"""SEP-2640 skill identity: SKILL.md frontmatter against its listing entry, and resource digests."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

import yaml  # type: ignore[import-untyped]  # no types-PyYAML in the dev deps

from sealverify._internal.results.model import (
    Check,
    Report,
    Status,
    Subject,
    fail,
    info,
    not_evaluated,
    passed,
)
from sealverify._internal.results.outcomes import Outcome, Vocabulary, decide, exit_code
from sealverify._internal.skills.uris import uri_problem
from sealverify._internal.wire.spelling import pointer, sha256_uri
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue
from sealverify.errors import InputError

_FAIL = Status.FAIL

__all__ = [
    "RECOGNIZED_RESERVED_KEYS",
    "RESERVED_PREFIX",
    "VOCABULARY",
    "Frontmatter",
    "FrontmatterError",
    "ResourceFile",
    "SkillEntry",
    "check_name",
    "directory_check",
    "entry_checks",
    "field_checks",
    "parse_frontmatter",
    "verify_skill",
]

RESERVED_PREFIX = "io.modelcontextprotocol/"
# Reserved metadata keys this verifier gives a meaning to. SEP-2640 defines none, so none are
# acted on; every key under the prefix is still preserved and compared (the experimental-ext-skills
# finding on reserved metadata keys: do not act on them, do compare them).
RECOGNIZED_RESERVED_KEYS: frozenset[str] = frozenset()


class FrontmatterError(InputError, ValueError):
    """SKILL.md has no frontmatter block, or its YAML cannot be read under the pinned rule."""


# --- the pinned YAML -> JSON typing rule ---------------------------------------------------
# YAML 1.1 (PyYAML's default resolver) turns `yes`/`no`/`on`/`off` into booleans, `2024-01-15`
# into a date and `0x1F`/`010` into integers; none of those has a JSON spelling the listing
# could carry verbatim, so a verifier using them reports false mismatches. The rule pinned here
# is the YAML 1.2 core schema restricted to what JSON can hold: documented in docs/skills.md.
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")


class PinnedLoader(yaml.SafeLoader):  # type: ignore[misc]
    """SafeLoader with only the pinned implicit resolvers; numbers load as Decimal."""


PinnedLoader.yaml_implicit_resolvers = {}
PinnedLoader.add_implicit_resolver("tag:yaml.org,2002:null", _NULL, ["~", "n", "N", ""])
PinnedLoader.add_implicit_resolver("tag:yaml.org,2002:bool", _BOOL, list("tTfF"))
PinnedLoader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
PinnedLoader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+.0123456789"))


def _construct_number(loader: yaml.SafeLoader, node: yaml.Node) -> Decimal:
    # construct_scalar refuses a tag on a sequence or mapping (`!!int []`) as a YAML error.
    text = str(loader.construct_scalar(node))
    try:
        number = Decimal(text)
    except InvalidOperation:
        number = None
    # NaN, sNaN and infinities are no JSON number; a signalling NaN would also raise when
    # compared, so they are refused here with the other non-numbers.
    if number is None or not number.is_finite():
        raise yaml.constructor.ConstructorError(
            None,
            None,
            f"explicitly tagged number {text[:40]!r} is not a finite decimal number",
            node.start_mark,
        )
    return number


def _construct_bool(loader: yaml.SafeLoader, node: yaml.Node) -> bool:
    return str(loader.construct_scalar(node)).lower() == "true"


PinnedLoader.add_constructor("tag:yaml.org,2002:int", _construct_number)
PinnedLoader.add_constructor("tag:yaml.org,2002:float", _construct_number)
PinnedLoader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)
# An explicit `!!timestamp` or `!!binary` has no JSON value: keep the scalar's text.
PinnedLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)
PinnedLoader.add_constructor("tag:yaml.org,2002:binary", yaml.SafeLoader.construct_yaml_str)


@dataclass(frozen=True, slots=True)
class Frontmatter:
    """A parsed frontmatter mapping and what in its YAML needs saying (anchors, merge keys)."""

    value: dict[str, Any]
    anchors: tuple[str, ...] = ()
    aliases: int = 0
    merge_keys: int = 0
    duplicate_keys: tuple[str, ...] = ()


def _split(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrontmatterError(
            f"SKILL.md is not UTF-8 ({exc.reason} at byte {exc.start})"
        ) from None
    if text.startswith("\ufeff"):
        raise FrontmatterError("SKILL.md starts with a byte order mark")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        raise FrontmatterError("SKILL.md does not begin with a `---` frontmatter line")
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") == "---":
            return "".join(lines[1:i])
    raise FrontmatterError("the frontmatter block has no closing `---` line")


def _events(text: str) -> tuple[tuple[str, ...], int, int, tuple[str, ...]]:
    anchors: list[str] = []
    aliases = 0
    merges = 0
    dups: list[str] = []
    root = yaml.compose(text, Loader=PinnedLoader)
    stack: list[tuple[yaml.Node, str]] = [(root, "")] if root is not None else []
    seen_nodes: set[int] = set()
    for event in yaml.parse(text, Loader=PinnedLoader):
        anchor = getattr(event, "anchor", None)
        if isinstance(event, yaml.AliasEvent):
            aliases += 1
        elif anchor:
            anchors.append(anchor)
    while stack:
        node, path = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            names: set[str] = set()  # a set: a list made n keys cost n*n/2 comparisons
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value == "<<" and key.style is None:
                        merges += 1
                    if key.value in names:
                        dups.append(path + pointer(key.value))
                    names.add(key.value)
                    stack.append((value, path + pointer(key.value)))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((v, path + pointer(i)) for i, v in enumerate(node.value))
    return tuple(anchors), aliases, merges, tuple(sorted(dups))


MAX_DEPTH = 64  # the same bound the strict JSON parser applies to a whole document


def _depth(value: object) -> int:
    """Nesting depth of a loaded value, iteratively (aliases may share subtrees)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    seen: set[tuple[int, int]] = set()
    while stack:
        item, level = stack.pop()
        if not isinstance(item, (dict, list)) or (id(item), level) in seen:
            continue
        seen.add((id(item), level))
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            return level
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, level + 1) for child in children)
    return deepest


def parse_frontmatter(data: bytes) -> Frontmatter:
    """Parse SKILL.md's frontmatter under the pinned typing rule.

    YAML merge keys (``<<``) are YAML 1.1 only: here they stay a literal ``<<`` member and are
    counted. Aliases expand to their anchored value (every YAML loader does this), and are
    counted so the report can name them. Raises :class:`FrontmatterError`.
    """
    text = _split(data)
    try:
        anchors, aliases, merges, dups = _events(text)
        value = yaml.load(text, Loader=PinnedLoader)  # PinnedLoader is a SafeLoader
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"frontmatter is not YAML: {exc}") from None
    except RecursionError:
        raise FrontmatterError(f"frontmatter nests deeper than {MAX_DEPTH} levels") from None
    if _depth(value) > MAX_DEPTH:
        raise FrontmatterError(f"frontmatter nests deeper than {MAX_DEPTH} levels")
    if not isinstance(value, dict):
        raise FrontmatterError("frontmatter is not a YAML mapping")
    bad = [k for k in value if not isinstance(k, str)]
    if bad:
        raise FrontmatterError(f"frontmatter key {_json(bad[0])} is not a string")
    return Frontmatter(value, anchors, aliases, merges, dups)


# --- Agent Skills name rules -----------------------------------------------------------------
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def check_name(name: Any) -> str | None:
    """Why ``name`` breaks the Agent Skills name rule (1-64 of a-z0-9-, no edge or double -)."""
    if not isinstance(name, str):
        return "name is not a string"
    if not 1 <= len(name) <= 64:
        return f"name is {len(name)} characters; the rule is 1 to 64"
    if not _NAME.match(name):
        return (
            "name must be lowercase a-z, 0-9 and single hyphens, not starting or ending "
            "with a hyphen"
        )
    return None


# --- comparison --------------------------------------------------------------------------


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (Decimal, JsonNumber, int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def _number(value: Any) -> Decimal:
    return Decimal(value.lexeme if isinstance(value, JsonNumber) else str(value))


def _json(value: Any) -> str:
    """A value in a reason as JSON text, never a Python repr."""
    return json.dumps(value, ensure_ascii=False, default=str)


def _show(value: Any) -> str:
    if isinstance(value, (Decimal, JsonNumber)):
        return str(value)
    if isinstance(value, str):
        return _json(value if len(value) <= 60 else value[:60] + "…")
    return _kind(value) if isinstance(value, (dict, list)) else _json(value)


def compare_values(listing: Any, file: Any, path: tuple[str | int, ...] = ()) -> list[Check]:
    """Field-by-field differences between the listing's frontmatter and the file's.

    Numbers compare by exact decimal value (``1.0`` equals ``1``: JSON does not keep the
    spelling); every other type must match exactly. Each difference is one failing check.
    """
    where = "/frontmatter" + pointer(*path)
    if isinstance(listing, dict) and isinstance(file, dict):
        out: list[Check] = []
        for key in sorted(set(listing) | set(file)):
            sub = (*path, key)
            if key not in file:
                out.append(
                    fail(
                        "skill.frontmatter.mismatch",
                        "member is in the listing entry but not in SKILL.md",
                        "/frontmatter" + pointer(*sub),
                    )
                )
            elif key not in listing:
                out.append(
                    fail(
                        "skill.frontmatter.mismatch",
                        "member is in SKILL.md but not in the listing entry",
                        "/frontmatter" + pointer(*sub),
                    )
                )
            else:
                out.extend(compare_values(listing[key], file[key], sub))
        return out
    if isinstance(listing, list) and isinstance(file, list):
        if len(listing) != len(file):
            return [
                fail(
                    "skill.frontmatter.mismatch",
                    f"array length differs: listing {len(listing)}, SKILL.md {len(file)}",
                    where,
                )
            ]
        return [
            c
            for i, (a, b) in enumerate(zip(listing, file, strict=True))
            for c in compare_values(a, b, (*path, i))
        ]
    ka, kb = _kind(listing), _kind(file)
    if ka != kb:
        hint = " (quote the value in SKILL.md to keep it a string)" if ka == "string" else ""
        return [
            fail(
                "skill.frontmatter.mismatch",
                f"type differs under the pinned YAML typing rule: listing has {ka} "
                f"{_show(listing)}, SKILL.md has {kb} {_show(file)}{hint}",
                where,
            )
        ]
    same = _number(listing) == _number(file) if ka == "number" else listing == file
    if same:
        return []
    return [
        fail(
            "skill.frontmatter.mismatch",
            f"value differs: listing {_show(listing)}, SKILL.md {_show(file)}",
            where,
        )
    ]


def field_checks(fm: dict[str, Any]) -> list[Check]:
    out: list[Check] = []
    why = check_name(fm.get("name"))
    out.append(
        fail("skill.name.invalid", why, "/frontmatter/name")
        if why
        else passed("skill.name.valid", "name follows the Agent Skills rule", "/frontmatter/name")
    )
    description = fm.get("description")
    if not isinstance(description, str) or not 1 <= len(description) <= 1024:
        out.append(
            fail(
                "skill.description.invalid",
                "description must be a non-empty string of at most 1024 characters",
                "/frontmatter/description",
            )
        )
    compatibility = fm.get("compatibility")
    if compatibility is not None and (
        not isinstance(compatibility, str) or not 1 <= len(compatibility) <= 500
    ):
        out.append(
            fail(
                "skill.compatibility.invalid",
                "compatibility, when present, must be a string of 1 to 500 characters",
                "/frontmatter/compatibility",
            )
        )
    metadata = fm.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        out.append(
            fail(
                "skill.metadata.not-a-map",
                "metadata must be a map of string to string",
                "/frontmatter/metadata",
            )
        )
    elif isinstance(metadata, dict):
        for key in sorted(metadata):
            where = "/frontmatter/metadata" + pointer(key)
            if not isinstance(metadata[key], str):
                out.append(
                    fail(
                        "skill.metadata.not-a-string",
                        f"metadata value is a {_kind(metadata[key])} under the pinned "
                        "typing rule; Agent Skills metadata values are strings",
                        where,
                    )
                )
            if key.startswith(RESERVED_PREFIX):
                if key in RECOGNIZED_RESERVED_KEYS:  # pragma: no cover - none defined yet
                    out.append(
                        info("skill.metadata.reserved-recognized", "reserved key recognized", where)
                    )
                else:
                    out.append(
                        info(
                            "skill.metadata.reserved-unrecognized",
                            "reserved io.modelcontextprotocol/ key not recognized: "
                            "preserved and compared, not acted on",
                            where,
                        )
                    )
    return out


@dataclass(frozen=True, slots=True)
class ResourceFile:
    """A fetched skill file: its path relative to the skill root, and its raw bytes."""

    relpath: str
    data: bytes


@dataclass(slots=True)
class SkillEntry:
    """One listing entry as read: its uri, frontmatter and ``(pointer, uri, digest)`` rows.

    ``has_resources`` is False when the entry omits ``resources`` (SEP-2640 allows that only
    for generated skills, whose content no digest binds).
    """

    uri: str = ""
    frontmatter: dict[str, Any] | None = None
    resources: list[tuple[str, str, str]] = field(default_factory=list)
    has_resources: bool = True


def _entry(value: JsonValue, checks: list[Check]) -> SkillEntry:
    entry = SkillEntry()
    if not isinstance(value, dict):
        checks.append(fail("skill.listing.invalid", "the listing entry is not a JSON object", "/"))
        return entry
    uri = value.get("uri")
    if isinstance(uri, str):
        entry.uri = uri
    else:
        checks.append(fail("skill.listing.invalid", "the entry has no string `uri`", "/uri"))
    fm = value.get("frontmatter")
    if isinstance(fm, dict):
        entry.frontmatter = fm
    else:
        checks.append(
            fail("skill.listing.invalid", "the entry has no `frontmatter` object", "/frontmatter")
        )
    if "resources" not in value:
        entry.has_resources = False
        return entry
    resources = value["resources"]
    if not isinstance(resources, list):
        checks.append(fail("skill.listing.invalid", "`resources` is not an array", "/resources"))
        return entry
    for i, res in enumerate(resources):
        where = pointer("resources", i)
        if not (
            isinstance(res, dict)
            and isinstance(res.get("uri"), str)
            and isinstance(res.get("digest"), str)
        ):
            checks.append(
                fail(
                    "skill.listing.invalid", "resource entry needs string `uri` and `digest`", where
                )
            )
            continue
        entry.resources.append((where, str(res["uri"]), str(res["digest"])))
    return entry


def _base(uri: str) -> str:
    # The entry names the skill; its files live under it. `skill://x/SKILL.md` and `skill://x`
    # both give the root `skill://x/`.
    if uri.endswith("/SKILL.md"):
        return uri[: -len("SKILL.md")]
    return uri if uri.endswith("/") else uri + "/"


def _uri_name(uri: str) -> str:
    trimmed = uri[: -len("/SKILL.md")] if uri.endswith("/SKILL.md") else uri.rstrip("/")
    return trimmed.rsplit("/", 1)[-1]


# What a skill is called under the one rule (results/outcomes.py ``decide``): a failed check
# FAIL, else PASS (a skill check caps nothing).
VOCABULARY = Vocabulary(passed=Outcome.PASS, failed=Outcome.FAIL)


def verify_skill(
    listing: JsonValue, skill_md: bytes, files: list[ResourceFile], name: str = "SKILL.md"
) -> Report:
    """SEP-2640 checks of one fetched skill against its listing entry.

    Field-by-field frontmatter identity (reserved metadata keys compared, never acted on), the
    Agent Skills field rules, the entry uri naming the skill, and `sha256:<hex>` digests of the
    raw bytes of each fetched file, where a file the entry does not list is a mismatch.
    Exit code 1 when any check fails.
    """
    checks, entry = entry_checks(listing, skill_md, files, name)
    failed = any(c.status == _FAIL for c in checks)
    subject = Subject(
        entry.uri or name,
        decide(checks, VOCABULARY).outcome,
        tuple(checks),
        {"uri": entry.uri, "files": len(files) + 1, "listed_resources": len(entry.resources)},
    )
    summary = {
        "outcome": "fail" if failed else "pass",
        "failed_checks": sum(1 for c in checks if c.status == _FAIL),
    }
    code = exit_code((subject.outcome,))
    return Report("skill verify", (subject,), summary, code, layout="detail")


def entry_checks(
    listing: JsonValue,
    skill_md: bytes | None,
    files: list[ResourceFile],
    name: str = "SKILL.md",
    *,
    directory: str | None = None,
) -> tuple[list[Check], SkillEntry]:
    """Every check of one listing entry against its fetched files, and the entry as read.

    ``skill_md`` None means SKILL.md was not fetched: the entry's own frontmatter is held to
    the field rules and the file comparison is not evaluated. ``directory`` is the skill's
    directory name when the files come from a skills directory: the frontmatter name must
    equal it (Agent Skills), and a listed file missing from the directory is a mismatch
    rather than not fetched.
    """
    checks: list[Check] = []
    entry = _entry(listing, checks)
    problem = uri_problem(entry.uri) if entry.uri else ""
    if problem:
        checks.append(
            fail(
                "skill.uri.not-normal",
                f"the entry uri {_json(entry.uri)} does not name one skill as written: {problem}",
                "/uri",
            )
        )
    if skill_md is None:
        checks.append(
            not_evaluated(
                "skill.frontmatter.not-fetched",
                "no SKILL.md was given: the listing's frontmatter is held to the field rules, "
                "but not compared with the file",
                "/frontmatter",
            )
        )
        if entry.frontmatter is not None:
            checks.extend(field_checks(entry.frontmatter))
            checks.extend(_name_checks(entry, entry.frontmatter.get("name"), directory))
        checks.extend(_resource_checks(entry, None, files, complete=directory is not None))
        return checks, entry
    checks.extend(_skill_md_checks(entry, skill_md, name, directory))
    checks.extend(_resource_checks(entry, skill_md, files, complete=directory is not None))
    return checks, entry


def _skill_md_checks(
    entry: SkillEntry, skill_md: bytes, name: str, directory: str | None
) -> list[Check]:
    """SKILL.md's frontmatter read, held to the field rules and compared with the entry."""
    checks: list[Check] = []
    try:
        fm = parse_frontmatter(skill_md)
    except FrontmatterError as exc:
        return [fail("skill.frontmatter.unreadable", str(exc), name)]
    checks.append(
        passed(
            "skill.frontmatter.parsed",
            "frontmatter read under the pinned YAML 1.2-core typing rule",
            name,
        )
    )
    checks.extend(_yaml_checks(fm, name))
    checks.extend(field_checks(fm.value))
    if entry.frontmatter is not None:
        diffs = compare_values(entry.frontmatter, fm.value)
        checks.extend(diffs)
        if not diffs:
            checks.append(
                passed(
                    "skill.frontmatter.identical",
                    "SKILL.md frontmatter matches the listing entry field by field",
                    "/frontmatter",
                )
            )
    checks.extend(_name_checks(entry, fm.value.get("name"), directory))
    return checks


def _yaml_checks(fm: Frontmatter, name: str) -> list[Check]:
    """YAML constructs whose reading loaders disagree on: aliases, merge keys, duplicates."""
    checks: list[Check] = []
    if fm.aliases or fm.anchors:
        checks.append(
            info(
                "skill.yaml.alias",
                f"frontmatter uses {len(fm.anchors)} anchor(s) and {fm.aliases} "
                "alias(es); aliases were expanded to their anchored values "
                "before comparison",
                name,
            )
        )
    if fm.merge_keys:
        checks.append(
            fail(
                "skill.yaml.merge-key",
                "frontmatter uses a `<<` merge key: YAML 1.1 loaders merge it, "
                "YAML 1.2 loaders keep a literal `<<` member, so its JSON "
                "rendering is ambiguous",
                name,
            )
        )
    for where in fm.duplicate_keys:
        checks.append(
            fail(
                "skill.yaml.duplicate-key",
                "a key occurs twice in one YAML mapping; loaders disagree on which value wins",
                "/frontmatter" + where,
            )
        )
    return checks


def _name_checks(entry: SkillEntry, fm_name: Any, directory: str | None) -> list[Check]:
    out: list[Check] = []
    if entry.uri:
        if _uri_name(entry.uri) != fm_name:
            out.append(
                fail(
                    "skill.uri.name-mismatch",
                    f"the entry uri names {_json(_uri_name(entry.uri))}, the "
                    f"frontmatter name is {_json(fm_name)}",
                    "/uri",
                )
            )
        else:
            out.append(passed("skill.uri.name", "entry uri ends in the skill name", "/uri"))
    if directory is not None:
        out.append(directory_check(directory, fm_name))
    return out


def directory_check(directory: str, name: Any) -> Check:
    """The Agent Skills rule that ``name`` equals the skill's parent directory name."""
    if directory != name:
        return fail(
            "skill.name.directory-mismatch",
            f"the skill's directory is {_json(directory)} but its name is {_json(name)}; "
            "Agent Skills requires the name to equal the parent directory",
            "/frontmatter/name",
        )
    return passed(
        "skill.name.directory", "the name equals the skill's parent directory", "/frontmatter/name"
    )


def _relative(uri: str, base: str) -> str | None:
    """A resource uri as a path inside the skill's directory, or None when it is not inside.

    SEP-2640: each resource is the skill's SKILL.md or a file within its directory. A path with
    an empty, ``.`` or ``..`` segment does not name a file within it, and neither does a uri a
    host would read as another one after RFC 3986 normalisation (:func:`uri_problem`).
    """
    if not base or not uri.startswith(base) or uri_problem(uri):
        return None
    rel = uri[len(base) :]
    if not rel or any(seg in ("", ".", "..") for seg in rel.split("/")):
        return None
    return rel


def _resource_checks(
    entry: SkillEntry, skill_md: bytes | None, files: list[ResourceFile], *, complete: bool = False
) -> list[Check]:
    """Digests of the fetched files against the entry's ``resources``.

    ``complete`` says the files are the whole skill directory: a listed file that is not
    among them is then a mismatch (``skill.resource.missing``), not merely not fetched.
    """
    if not entry.has_resources:
        return [
            not_evaluated(
                "skill.resource.none",
                "the entry has no `resources`: SEP-2640 allows this only for generated skills, "
                "and no digest binds their content",
                "/resources",
            )
        ]
    base = _base(entry.uri) if entry.uri else ""
    listed: dict[str, tuple[str, str]] = {}
    out = _listed_checks(entry, base, listed)
    fetched = ([ResourceFile("SKILL.md", skill_md)] if skill_md is not None else []) + files
    seen: set[str] = set()
    for item in fetched:
        seen.add(item.relpath)
        found = _digest_check(item, listed)
        if found is not None:
            out.append(found)
    for rel, (where, _digest) in sorted(listed.items()):
        if rel in seen:
            continue
        if complete:
            out.append(
                fail(
                    "skill.resource.missing",
                    f"listed file {rel} is not in the skill's directory",
                    where,
                )
            )
        else:
            out.append(
                not_evaluated(
                    "skill.resource.not-fetched",
                    f"listed file {rel} was not given; its digest is not checked",
                    where,
                )
            )
    return out


def _listed_checks(entry: SkillEntry, base: str, listed: dict[str, tuple[str, str]]) -> list[Check]:
    """The entry's ``resources``: digest spelling, each inside the skill, once, SKILL.md listed.

    Fills ``listed`` (relative path to its location and digest) with the usable entries.
    """
    out: list[Check] = []
    for where, uri, digest in entry.resources:
        if not sha256_uri(digest):
            out.append(
                fail(
                    "skill.resource.digest-format",
                    "digest is not `sha256:` and 64 lowercase hex digits",
                    where,
                )
            )
        rel = _relative(uri, base)
        if rel is None:
            problem = uri_problem(uri)
            out.append(
                fail(
                    "skill.resource.outside",
                    f"resource {_json(uri)} is not a file within the skill's directory "
                    f"{_json(base)} (SEP-2640)" + (f": {problem}" if problem else ""),
                    where,
                )
            )
            continue
        if rel in listed:
            out.append(fail("skill.resource.duplicate", f"{rel} is listed twice", where))
        listed[rel] = (where, digest)
    if base and "SKILL.md" not in listed:
        out.append(
            fail(
                "skill.resource.skill-md-unlisted",
                "`resources` has no entry for the skill's own SKILL.md; SEP-2640 requires one, "
                "carrying SKILL.md's digest",
                "/resources",
            )
        )
    return out


def _digest_check(item: ResourceFile, listed: dict[str, tuple[str, str]]) -> Check | None:
    """A fetched file's raw-byte sha256 against its listed digest (None: unlisted SKILL.md)."""
    actual = "sha256:" + hashlib.sha256(item.data).hexdigest()
    if item.relpath not in listed:
        if item.relpath == "SKILL.md":
            return None  # reported above; still identified by the entry field by field
        return fail(
            "skill.resource.unlisted",
            "a fetched file the entry does not list is a mismatch (SEP-2640)",
            item.relpath,
        )
    where, digest = listed[item.relpath]
    if digest != actual:
        return fail(
            "skill.resource.digest-mismatch",
            f"listed {digest[:19]}…, raw bytes give {actual[:19]}…",
            f"{where} ({item.relpath})",
        )
    return passed(
        "skill.resource.digest",
        "raw-byte sha256 matches the listing",
        f"{where} ({item.relpath})",
    )
