"""``sealverify skill verify``: a fetched SKILL.md and its files against their SEP-2640 entry."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import click

from sealverify.cli.common import emit, format_option, output_option, read_input
from sealverify.definitions.skills import ResourceFile, verify_skill
from sealverify.wire.strictjson import JsonError, parse_bytes

__all__ = ["COMMANDS", "skill"]


@click.group()
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
    return PurePosixPath(*rel.parts).as_posix()


@skill.command("verify")
@click.option(
    "--listing",
    "listing",
    required=True,
    type=click.Path(dir_okay=False),
    help="The skill's listing entry as JSON: {uri, frontmatter, resources:[{uri,digest}]}.",
)
@click.argument("skill_md", metavar="SKILL.md", type=click.Path(dir_okay=False))
@click.argument("files", metavar="[FILES]...", nargs=-1, type=click.Path(dir_okay=False))
@format_option(choices=("table", "json"))
@output_option
def verify(
    listing: str, skill_md: str, files: tuple[str, ...], fmt: str, output: Path | None
) -> int:
    """Check SKILL.md's frontmatter field by field against the entry, and every file's digest.

    FILES are the skill's other fetched files, at their paths relative to SKILL.md's directory.
    Exit 0 when everything matches, 1 on any mismatch, 2 when an input cannot be read.
    """
    try:
        entry = parse_bytes(read_input(listing))
    except JsonError as exc:
        raise click.UsageError(f"--listing {listing}: not strict JSON: {exc}") from None
    md = read_input(skill_md)
    resources = [ResourceFile(_relpath(Path(skill_md), f), read_input(f)) for f in files]
    report = verify_skill(entry, md, resources, Path(skill_md).name)
    emit(
        report,
        fmt,
        output,
        f"sealverify skill verify: {report.summary['outcome']}, "
        f"{report.summary['failed_checks']} failing check(s)",
    )
    return report.exit_code


COMMANDS = [skill]
