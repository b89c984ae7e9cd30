"""A whole SEP-2640 skills listing against a skills directory: every entry and file, both ways."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

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
from sealverify._internal.skills.identity import (
    VOCABULARY,
    FrontmatterError,
    ResourceFile,
    directory_check,
    entry_checks,
    field_checks,
    parse_frontmatter,
)
from sealverify._internal.skills.uris import uri_problem
from sealverify._internal.wire.spelling import pointer
from sealverify._internal.wire.strictjson import JsonValue

_FAIL = Status.FAIL

__all__ = [
    "DEFAULT_BASE",
    "UNLISTED",
    "ListingEntries",
    "SkillTree",
    "read_listing_entries",
    "verify_listing",
]

DEFAULT_BASE = "skill://"
# What an unlisted skill directory is called under the one rule (results/outcomes.py
# ``decide``): a failed check FAIL; one that could not be judged (a not-evaluated check: pages
# missing) NOT EVALUATED, which JUnit counts as a failure; else PASS (reported as info). A listed
# entry is a skill as skills.VOCABULARY calls it.
UNLISTED = Vocabulary(passed=Outcome.PASS, failed=Outcome.FAIL, not_evaluated=Outcome.NOT_EVALUATED)


@dataclass(frozen=True, slots=True)
class SkillTree:
    """A skills directory as the caller read it: raw bytes by ``/``-separated relative path.

    ``problems`` are ``(path, why)`` for what could not be read (unreadable files, symlinks
    leaving the directory, symlinked directories); each one is a finding.
    """

    files: Mapping[str, bytes]
    problems: tuple[tuple[str, str], ...] = ()


@dataclass(slots=True)
class ListingEntries:
    """The entries of a listing document, each with its JSON pointer, and how it was read."""

    entries: list[tuple[str, JsonValue]] = field(default_factory=list)
    findings: list[Check] = field(default_factory=list)
    pages: int = 0
    next_cursor: bool = False


def _page(value: JsonValue, where: str, out: ListingEntries) -> None:
    if isinstance(value, dict) and isinstance(value.get("result"), dict):
        _page(value["result"], where + "/result", out)
        return
    skills = value.get("skills") if isinstance(value, dict) else None
    if isinstance(value, dict) and isinstance(skills, list):
        out.pages += 1
        out.entries.extend((where + pointer("skills", i), entry) for i, entry in enumerate(skills))
        out.next_cursor = isinstance(value.get("nextCursor"), str)
    elif isinstance(value, dict) and isinstance(value.get("skill"), dict):
        out.entries.append((where + "/skill", value["skill"]))  # a skills/get result
    elif isinstance(value, dict) and "uri" in value:
        out.entries.append((where, value))  # one entry, as skill verify has always read
    else:
        out.findings.append(
            fail(
                "skill.listing.invalid",
                "not a skills/list result (`skills` array), a skills/get result (`skill`), "
                "a JSON-RPC response holding one, or a single entry",
                where or "/",
            )
        )


def read_listing_entries(doc: JsonValue) -> ListingEntries:
    """The entries of a skills/list result, JSON-RPC response, skills/get result or entry.

    An array is read as pages (or entries) in order. SEP-2640 pagination mirrors tools/list:
    the listing is complete only when the last page has no ``nextCursor``.
    """
    out = ListingEntries()
    if isinstance(doc, list):
        for index, item in enumerate(doc):
            _page(item, pointer(index), out)
    else:
        _page(doc, "", out)
    return out


def _skill_path(uri: str, base: str) -> str | None:
    """The directory a skill entry's uri names under ``base``, or None when it names none.

    A uri not in RFC 3986 normal form names none: a host that normalises it would load another
    directory than the one of that literal name (``%2e%2e`` is ``..``).
    """
    if not uri.startswith(base) or uri_problem(uri):
        return None
    rest = uri[len(base) :]
    rest = rest[: -len("/SKILL.md")] if rest.endswith("/SKILL.md") else rest.rstrip("/")
    if not rest or any(seg in ("", ".", "..") for seg in rest.split("/")):
        return None
    return rest


def _under(tree: SkillTree, directory: str) -> tuple[bytes | None, list[ResourceFile]]:
    prefix = directory + "/"
    md: bytes | None = None
    files: list[ResourceFile] = []
    for path in sorted(tree.files):
        if path.startswith(prefix):
            rel = path[len(prefix) :]
            if rel == "SKILL.md":
                md = tree.files[path]
            else:
                files.append(ResourceFile(rel, tree.files[path]))
    return md, files


def _located(checks: list[Check], where: str) -> list[Check]:
    """Pointers inside an entry become pointers into the whole listing document."""
    return [
        replace(c, location=where + c.location) if c.location.startswith("/") else c for c in checks
    ]


def _entry_subject(
    where: str, value: JsonValue, tree: SkillTree | None, base: str
) -> tuple[Subject, str | None]:
    uri = value.get("uri") if isinstance(value, dict) else None
    name = uri if isinstance(uri, str) else f"(entry at {where or '/'})"
    directory = _skill_path(uri, base) if isinstance(uri, str) and tree is not None else None
    checks: list[Check] = []
    md: bytes | None = None
    files: list[ResourceFile] = []
    if tree is not None:
        if directory is None:
            checks.append(
                fail(
                    "skill.listing.no-directory",
                    f"the entry uri does not name a skill directory under {base}",
                    where + "/uri",
                )
            )
        else:
            md, files = _under(tree, directory)
            if md is None:
                checks.append(
                    fail(
                        "skill.listing.no-directory",
                        f"the skills directory has no {directory}/SKILL.md for this entry",
                        where + "/uri",
                    )
                )
                files = []
            else:
                checks.append(
                    passed(
                        "skill.listing.directory",
                        f"the entry's skill is the directory {directory}",
                        where + "/uri",
                    )
                )
    leaf = directory.rsplit("/", 1)[-1] if directory is not None and md is not None else None
    found, _entry = entry_checks(value, md, files, f"{directory}/SKILL.md", directory=leaf)
    checks.extend(_located(found, where))
    facts = {
        "uri": uri if isinstance(uri, str) else None,
        "at": where or "/",
        "directory": directory if md is not None else None,
        "files": len(files) + (1 if md is not None else 0),
        "listed_resources": len(_entry.resources) if _entry.has_resources else None,
    }
    return Subject(name, decide(checks, VOCABULARY).outcome, tuple(checks), facts), (
        directory if md is not None else None
    )


def _unlisted_subject(
    directory: str, tree: SkillTree, enclosing: str | None, why: Check
) -> Subject:
    md = tree.files[f"{directory}/SKILL.md"]
    checks = [why]
    try:
        front = parse_frontmatter(md).value
    except FrontmatterError as exc:
        checks.append(fail("skill.frontmatter.unreadable", str(exc), "SKILL.md"))
    else:
        checks.extend(field_checks(front))
        checks.append(directory_check(directory.rsplit("/", 1)[-1], front.get("name")))
    outcome = decide(checks, UNLISTED).outcome
    facts = {"directory": directory, "enclosing_skill": enclosing}
    return Subject(f"{directory}/SKILL.md", outcome, tuple(checks), facts, label="unlisted")


def verify_listing(
    doc: JsonValue,
    tree: SkillTree | None = None,
    *,
    base: str = DEFAULT_BASE,
    partial: bool = False,
) -> Report:
    """Verify every entry of a SEP-2640 listing, and with ``tree`` every skill directory.

    Each entry is one subject with every check of :func:`entry_checks` (frontmatter field by
    field, reserved metadata keys compared, names, digests), its directory found from its uri
    under ``base``: the frontmatter name must equal that directory, and a listed file missing
    from it or a file it holds that the entry does not list is a mismatch. An entry without a
    directory fails; a directory with a SKILL.md and no entry fails too, unless ``partial``
    (the listing is declared partial, as SEP-2640 allows) or the listing's last page has a
    ``nextCursor``. A directory nested in a listed skill is its supporting content (info).
    """
    read = read_listing_entries(doc)
    findings = list(read.findings)
    if read.next_cursor:
        findings.append(
            not_evaluated(
                "skill.listing.incomplete",
                "the last page has a nextCursor: later pages were not given, so directories "
                "without an entry here may have one there",
            )
        )
    if not read.entries and not read.findings:
        findings.append(info("skill.listing.empty", "the listing has no entries"))
    subjects, dirs, names = _entry_subjects(read.entries, tree, base)
    for label, places in sorted(names.items()):
        if len(places) > 1:
            findings.append(
                info(
                    "skill.listing.name-collision",
                    f"{len(places)} entries are named {label}; SEP-2640 names are labels, a "
                    "host must tell them apart by uri",
                    ", ".join(places),
                )
            )
    if tree is not None:
        findings.extend(
            fail("skill.directory.unreadable", why, path) for path, why in tree.problems
        )
        subjects.extend(_unlisted(tree, dirs, partial, read.next_cursor))
    failed = sum(1 for s in subjects if s.outcome == Outcome.FAIL)
    bad = failed or any(c.status == _FAIL for c in findings)
    code = exit_code((s.outcome for s in subjects), any(c.status == _FAIL for c in findings))
    summary = {
        "outcome": "fail" if bad else "pass",
        "entries": len(read.entries),
        "failed": failed,
        "unlisted_directories": sum(1 for s in subjects if "enclosing_skill" in s.facts),
        "complete": not read.next_cursor,
        "failed_checks": sum(1 for s in subjects for c in s.checks if c.status == _FAIL)
        + sum(1 for c in findings if c.status == _FAIL),
    }
    return Report(
        "skill verify",
        tuple(subjects),
        summary,
        code,
        tuple(sorted(findings, key=lambda c: (c.id, c.location))),
        layout="detail",
    )


def _entry_subjects(
    entries: Sequence[tuple[str, JsonValue]], tree: SkillTree | None, base: str
) -> tuple[list[Subject], dict[str, str], dict[str, list[str]]]:
    """One subject per entry, a repeated uri failing it; the directories and names seen."""
    subjects: list[Subject] = []
    dirs: dict[str, str] = {}
    seen_uris: dict[str, str] = {}
    names: dict[str, list[str]] = {}
    for where, value in entries:
        subject, directory = _entry_subject(where, value, tree, base)
        extra: list[Check] = []
        uri = subject.facts.get("uri")
        if isinstance(uri, str):
            if uri in seen_uris:
                extra.append(
                    fail(
                        "skill.listing.duplicate-uri",
                        f"the entry at {seen_uris[uri]} has the same uri",
                        where + "/uri",
                    )
                )
            seen_uris.setdefault(uri, where or "/")
        front = value.get("frontmatter") if isinstance(value, dict) else None
        label = front.get("name") if isinstance(front, dict) else None
        if isinstance(label, str):
            names.setdefault(label, []).append(where or "/")
        if extra:
            checks = subject.checks + tuple(extra)
            subject = replace(subject, outcome=decide(checks, VOCABULARY).outcome, checks=checks)
        if directory is not None:
            dirs[directory] = where
        subjects.append(subject)
    return subjects, dirs, names


def _enclosing(directory: str, listed: Mapping[str, str]) -> str | None:
    """The deepest listed directory ``directory`` lies in, if any.

    Its ancestors are looked up from the deepest, each in the mapping: a scan of every listed
    directory for every skill directory took quadratic time on a large tree.
    """
    cut = directory.rfind("/")
    while cut >= 0:
        if directory[:cut] in listed:
            return directory[:cut]
        cut = directory.rfind("/", 0, cut)
    return None


def _unlisted(
    tree: SkillTree, listed: Mapping[str, str], partial: bool, incomplete: bool
) -> list[Subject]:
    out: list[Subject] = []
    skill_dirs = sorted(
        path[: -len("/SKILL.md")]
        for path in tree.files
        if path.endswith("/SKILL.md") and path != "/SKILL.md"
    )
    for directory in skill_dirs:
        if directory in listed:
            continue
        enclosing = _enclosing(directory, listed)
        where = f"{directory}/SKILL.md"
        if enclosing is not None:
            why = info(
                "skill.directory.nested-unlisted",
                f"a nested skill with no entry of its own: supporting content of {enclosing} "
                "(SEP-2640: publication is flat, so it is not published as a skill)",
                where,
            )
        elif partial:
            why = info(
                "skill.directory.unlisted",
                "a skill directory with no entry; the listing is declared partial",
                where,
            )
        elif incomplete:
            why = not_evaluated(
                "skill.directory.unlisted",
                "a skill directory with no entry on the pages given; later pages may list it",
                where,
            )
        else:
            why = fail(
                "skill.directory.unlisted",
                "a skill directory with no entry in the listing (pass --partial-listing when "
                "the listing is partial on purpose)",
                where,
            )
        out.append(_unlisted_subject(directory, tree, enclosing, why))
    return out
