"""``sealverify lint``: the `_meta` wording rules over receipts and documents (docs/wording.md)."""

from __future__ import annotations

import errno
import re
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import click

from sealverify import (
    LINTED_SUFFIXES,
    InputFileError,
    LintTally,
    RuleSet,
    SourceError,
    lint_subject,
    parse_rules,
)
from sealverify._internal.cli.common import (
    format_option,
    output_option,
    read_file,
    say,
    table_view,
    write_result,
)
from sealverify._internal.cli.helptext import examples
from sealverify._internal.cli.spooled import SubjectSpool
from sealverify._internal.reports.filenames import report_name
from sealverify._internal.run.reading import CappedFile, max_input_bytes, too_large
from sealverify._internal.run.refused import InputRefused, SourceUnreadable
from sealverify._internal.run.walk import glob_matches, walk_tree

__all__ = ["COMMANDS", "lint"]

_GLOB = re.compile(r"[*?\[]")
_BLOCK = 1 << 16  # bytes read at a time from a text


def _expand(paths: tuple[str, ...]) -> Iterator[Path]:
    """Each named file, and every lintable file under each named directory (sorted).

    Every name is checked first (a missing one is a usage error before any work); the
    directories are then walked lazily, so a large tree is never held as a list.
    """
    named: list[Path] = []
    for name in paths:
        if Path(name).exists():
            named.append(Path(name))
        elif _GLOB.search(name):  # quoted, or from a shell that does not expand: as verify
            matches = list(glob_matches(name))
            if not matches:
                raise InputRefused(f"{name}: no file matches this pattern")
            named.extend(matches)
        else:
            raise SourceError(errno.ENOENT, "no such file or directory", name)
    for path in named:
        if path.is_dir():
            yield from walk_tree(path, lambda p: p.suffix in LINTED_SUFFIXES)
        else:
            yield path


def _read(path: Path) -> bytes:
    try:
        return read_file(path)  # held to --max-input-bytes
    except OSError as exc:
        raise SourceUnreadable.of(path, exc) from None


def _lines(path: Path) -> Iterator[bytes]:
    """The file in blocks of whole lines, read under --max-input-bytes: one block held.

    A regular file past the cap is refused by its size first, as :func:`_read` refuses it.
    """
    try:
        info = path.stat()
    except OSError as exc:
        raise SourceUnreadable.of(path, exc) from None
    if stat.S_ISREG(info.st_mode) and info.st_size > max_input_bytes():
        raise too_large(str(path))
    with CappedFile(path, str(path), None) as file:
        rest: list[bytes] = []  # the line being read, in the pieces its blocks brought
        while block := file.read(_BLOCK):
            cut = block.rfind(b"\n") + 1
            if cut:
                yield b"".join([*rest, block[:cut]]) if rest else block[:cut]
                rest = []
            if cut < len(block):
                rest.append(block[cut:])
        if rest:
            yield b"".join(rest)


@click.command(epilog=examples("sealverify lint fixtures/lint"))
@click.argument("paths", metavar="PATH...", nargs=-1, required=True)
@click.option(
    "--rules",
    "rules_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="TOML rule file: enable, disable, [[phrase]] (the rules: sealverify explain wording.).",
)
@format_option(choices=("table", "json", "sarif"))
@output_option
def lint(paths: tuple[str, ...], rules_path: Path | None, fmt: str, output: Path | None) -> int:
    """Check receipts (*.json) and documents for wording that misstates `_meta`.

    A directory is searched for *.md, *.markdown, *.txt and *.json files; a quoted glob
    ('notes/**/*.md') is expanded as verify expands it. Exit 0 when clean, 1 when any rule is
    violated, 2 when a path or the rule file cannot be read or no file was found to lint.
    """
    rules = RuleSet()
    if rules_path is not None:
        try:
            rules = parse_rules(rules_path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise SourceUnreadable.of(f"--rules {rules_path}", exc) from None
        except ValueError as exc:  # not UTF-8, or not a rule file: one line, exit 2
            raise InputFileError(f"--rules {rules_path}: {exc}") from None
    # Flat memory: files linted one at a time (the library judges each file and the run,
    # sealverify.lint_report does both at once), each subject spooled as it is rendered.
    spool = SubjectSpool(fmt, "lint", layout="rows", view=table_view(output))
    tally = LintTally()
    for path in _expand(paths):
        # a name that is not UTF-8 shown escaped; an input refused raises its InputError
        name = report_name(path)
        # a receipt is read whole; a text a line at a time, held a paragraph at a time
        data = _read(path) if PurePosixPath(name).suffix == ".json" else _lines(path)
        subject = lint_subject(name, data, rules, where=str(path))
        spool.add(tally.add(subject))
    if not tally.files:  # nothing linted is no pass: as verify with no receipt
        raise InputRefused("no files to lint (*.md, *.markdown, *.txt, *.json): " + " ".join(paths))
    report = tally.report()
    with spool:
        write_result(spool.pieces(report), output)
    say(f"sealverify lint: {tally.files} file(s), {tally.violations} violation(s)")
    return report.exit_code


COMMANDS = [lint]
