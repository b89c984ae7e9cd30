"""``sealverify skill verify``: SEP-2640 listings against fetched files or a skills directory."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import click

from sealverify import (
    DEFAULT_SKILL_BASE,
    FetchedSkill,
    ResourceFile,
    SkillTree,
    skill_report,
)
from sealverify._internal.cli.common import (
    emit,
    format_option,
    output_option,
    read_file,
    read_input,
)
from sealverify._internal.cli.helptext import examples
from sealverify._internal.reports.filenames import report_name
from sealverify._internal.run.walk import entries

__all__ = ["COMMANDS", "read_tree", "skill"]


@click.group(
    epilog=examples(
        "sealverify skill verify --listing fixtures/skills/listing.json --dir fixtures/skills/dir"
    )
)
def skill() -> None:
    """Agent Skills served over MCP (SEP-2640)."""


def _relpath(skill_md: Path, file: str) -> str:
    path = Path(file)
    try:
        rel = path.resolve().relative_to(skill_md.resolve().parent)
    except ValueError:
        raise click.UsageError(
            f"{file} is not under the directory of the SKILL.md; give the skill's files in "
            "their place relative to it"
        ) from None
    return report_name(PurePosixPath(*rel.parts).as_posix())


def read_tree(root: Path) -> SkillTree:
    """Read every regular file under ``root`` by its ``/``-separated relative path.

    Symlinks are not followed out of ``root``: a file symlink is read only when its target is
    a regular file inside ``root``; a symlinked directory is not entered (which also keeps
    loops out). Each thing not read is a problem the report names, never a silent skip.
    """
    base = root.resolve()
    files: dict[str, bytes] = {}
    problems: list[tuple[str, str]] = []

    def fail(path: Path, why: str) -> None:
        rel = PurePosixPath(*path.relative_to(root).parts).as_posix()
        problems.append((report_name(rel), why))

    def walk_error(where: Path, why: str) -> None:
        problems.append((report_name(where), why))

    # The shared walker (run/walk.py): iterative, depth-limited, each directory entered once.
    for entry in entries(root, follow_links=False, problem=walk_error):
        path = entry.path
        if entry.is_link and entry.is_dir:
            fail(path, "a symlinked directory is not followed")
            continue
        if entry.is_dir:
            continue
        rel = PurePosixPath(*path.relative_to(root).parts).as_posix()
        if report_name(rel) != rel:  # no listing path (JSON text) can name these bytes
            fail(path, "the file name is not UTF-8, so no listing entry can name it")
            continue
        try:
            if entry.is_link:
                target = path.resolve(strict=True)
                if not target.is_relative_to(base):
                    fail(path, "a symlink to a file outside the directory is not followed")
                    continue
            if not path.is_file():
                fail(path, "not a regular file")
                continue
            files[rel] = read_file(path)  # held to --max-input-bytes
        except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on 3.11
            fail(path, f"cannot read: {getattr(exc, 'strerror', None) or exc}")
    return SkillTree(files, tuple(sorted(problems)))


@skill.command(
    "verify",
    epilog=examples(
        "sealverify skill verify --listing fixtures/skills/listing.json --dir fixtures/skills/dir"
    ),
)
@click.option(
    "--listing",
    "listing",
    required=True,
    type=click.Path(dir_okay=False, allow_dash=True),
    help="A skills/list result (or JSON-RPC response, array of pages, skills/get result), "
    "or one entry: {uri, frontmatter, resources:[{uri,digest}]}.",
)
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="A skills directory: every entry's <skill-path>/SKILL.md and files are read under "
    "it, and every directory holding a SKILL.md must have an entry.",
)
@click.option(
    "--base",
    metavar="URI",
    default=DEFAULT_SKILL_BASE,
    show_default=True,
    help="The uri prefix that names the root of --dir (<base><skill-path>/SKILL.md).",
)
@click.option(
    "--entry",
    "wanted",
    default=None,
    metavar="URI",
    help="With SKILL.md: the uri of the listing entry it belongs to.",
)
@click.option(
    "--partial-listing",
    "partial",
    is_flag=True,
    help="The listing is partial on purpose (SEP-2640 allows it): a directory without an "
    "entry is reported, not failed.",
)
@click.argument("skill_md", metavar="[SKILL.md]", required=False, type=click.Path(dir_okay=False))
@click.argument("files", metavar="[FILES]...", nargs=-1, type=click.Path(dir_okay=False))
@format_option()
@output_option
def verify(
    listing: str,
    directory: Path | None,
    base: str,
    wanted: str | None,
    partial: bool,
    skill_md: str | None,
    files: tuple[str, ...],
    fmt: str,
    output: Path | None,
) -> int:
    """Check a listing's entries field by field against SKILL.md files, and every digest.

    With --dir, every entry of the listing against the skills directory (and every skill
    directory against the listing). With SKILL.md, one entry against that file and FILES,
    the skill's other fetched files at their paths relative to SKILL.md's directory. With
    neither, the listing alone. Exit 0 when everything matches, 1 on any mismatch, 2 when an
    input cannot be read.
    """
    data = read_input(listing)
    if directory is not None and skill_md is not None:
        raise click.UsageError("give either --dir or SKILL.md [FILES], not both")
    tree = read_tree(directory) if directory is not None else None
    fetched = None
    if skill_md is not None:
        md = read_input(skill_md)
        resources = [ResourceFile(_relpath(Path(skill_md), f), read_input(f)) for f in files]
        fetched = FetchedSkill(md, report_name(Path(skill_md).name), tuple(resources))
    # an input refused raises its InputError: one line, exit 2 (cli/main.py)
    report = skill_report(
        data,
        tree=tree,
        skill=fetched,
        entry=wanted,
        base=base,
        partial=partial,
        listing_name=listing,
    )
    emit(
        report,
        fmt,
        output,
        f"sealverify skill verify: {report.summary['outcome']}, "
        f"{report.summary['failed_checks']} failing check(s)",
    )
    return report.exit_code


COMMANDS = [skill]
