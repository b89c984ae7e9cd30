"""``sealverify lint``: the `_meta` wording rules over receipts and documents (docs/wording.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click

from sealverify.cli.common import format_option, output_option, read_file, write_result
from sealverify.cli.helptext import examples
from sealverify.cli.spooled import SubjectSpool
from sealverify.cli.walk import walk_tree
from sealverify.reports.caps import Findings
from sealverify.reports.model import Check, Report, Subject
from sealverify.reports.names import report_name
from sealverify.ruling import wording
from sealverify.wire.strictjson import JsonError, parse_bytes

__all__ = ["COMMANDS", "lint"]

_SUFFIXES = (".md", ".markdown", ".txt", ".json")


def _expand(paths: tuple[str, ...]) -> Iterator[Path]:
    """Each named file, and every lintable file under each named directory (sorted).

    Every name is checked first (a missing one is a usage error before any work); the
    directories are then walked lazily, so a large tree is never held as a list.
    """
    for name in paths:
        if not Path(name).exists():
            raise click.UsageError(f"cannot read {name}: no such file or directory")
    for name in paths:
        path = Path(name)
        if path.is_dir():
            yield from walk_tree(path, lambda p: p.suffix in _SUFFIXES)
        else:
            yield path


def _lint_file(path: Path, rules: wording.RuleSet) -> tuple[str, list[Check]]:
    try:
        data = read_file(path)  # held to --max-input-bytes
    except OSError as exc:
        raise click.UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if path.suffix == ".json":
        try:
            document = parse_bytes(data)
        except JsonError as exc:
            raise click.UsageError(f"cannot lint {path}: not strict JSON ({exc})") from None
        if not isinstance(document, dict):
            raise click.UsageError(f"cannot lint {path}: a receipt must be a JSON object")
        return "receipt", wording.lint_receipt(document, None, rules)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise click.UsageError(f"cannot lint {path}: not UTF-8 ({exc.reason})") from None
    return "text", wording.lint_text(text, rules, markdown=path.suffix in (".md", ".markdown"))


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

    A directory is searched for *.md, *.markdown, *.txt and *.json files. Exit 0 when clean,
    1 when any rule is violated, 2 when a path or the rule file cannot be read.
    """
    rules = wording.DEFAULT_RULES
    if rules_path is not None:
        try:
            rules = wording.parse_rules(rules_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise click.UsageError(f"cannot read --rules {rules_path}: {exc}") from None
        except ValueError as exc:
            raise click.UsageError(f"--rules {rules_path}: {exc}") from None
    # Flat memory: files linted one at a time, each subject spooled as it is rendered, and a
    # rule hit a million times in one file keeps its first hits located, the rest counted.
    spool = SubjectSpool(fmt, "lint", layout="rows")
    violations = 0
    for path in _expand(paths):
        kind, checks = _lint_file(path, rules)
        bad = Findings(c for c in checks if c.status == "fail")
        count = sum(bad.counts.values())
        violations += count
        spool.add(
            Subject(
                name=report_name(path),  # a name that is not UTF-8 shown escaped
                outcome="VIOLATIONS" if count else "CLEAN",
                checks=tuple(bad.checks()),
                facts={"kind": kind, "violations": count},
            )
        )
    report = Report(
        command="lint",
        subjects=(),
        summary={"files": spool.count, "violations": violations},
        exit_code=1 if violations else 0,
    )
    with spool:
        write_result(spool.pieces(report), output)
    click.echo(f"sealverify lint: {spool.count} file(s), {violations} violation(s)", err=True)
    return report.exit_code


COMMANDS = [lint]
