"""``sealverify tools``: tool-definition digests with their capture block, and comparison."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from sealverify.cli.common import emit, format_option, output_option, read_input, write_result
from sealverify.cli.helptext import examples
from sealverify.cli.spooled import SubjectSpool
from sealverify.definitions.capture import build_capture
from sealverify.definitions.compare import Reading, compare, reader_environment
from sealverify.definitions.digests import (
    PROFILES,
    Listing,
    Unrepresentable,
    digest_tool,
    js_value,
    listing_findings,
    toolset_digest,
    unevaluated,
)
from sealverify.definitions.transcripts import TranscriptError, read_any
from sealverify.reports.model import Check, Report, Subject, fail, info, passed
from sealverify.wire.strictjson import JsonError, parse_bytes

__all__ = ["COMMANDS", "tools"]

_PROFILE = click.Choice(sorted(PROFILES))


def _declared(path: str | None) -> tuple[Any, list[Check]]:
    """The declared capture of ``--capture`` and the findings on it.

    A number it cannot hold is a finding, as for a ``capture`` member beside ``tools``
    (``tools.input.bad-capture``); a file that is not JSON cannot be run (exit 2).
    """
    if path is None:
        return None, []
    try:
        parsed = parse_bytes(read_input(path))
    except JsonError as exc:
        raise click.UsageError(f"--capture {path}: not strict JSON: {exc}") from None
    try:
        return js_value(parsed), []
    except Unrepresentable as exc:
        return None, [fail("tools.input.bad-capture", f"declared capture unreadable: {exc}", path)]


def _read(
    source: str, requests: str | None, capture: str | None
) -> tuple[Listing, dict[str, Any], list[Check]]:
    try:
        listing = read_any(read_input(source), read_input(requests) if requests else None)
    except TranscriptError as exc:
        raise click.UsageError(f"{source}: {exc}") from None
    declared, declared_findings = _declared(capture)
    if declared is None and not declared_findings:
        declared = listing.declared_capture
    block, capture_findings = build_capture(listing, declared)
    return listing, block, listing_findings(listing) + declared_findings + capture_findings


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@click.group(
    epilog=examples(
        "sealverify tools digest fixtures/tools/tools.json",
        "sealverify tools compare fixtures/tools/tools.json fixtures/tools/tools-later.json",
    )
)
def tools() -> None:
    """Tool-definition digests under named profiles, with the capture conditions beside them."""


@tools.command("digest", epilog=examples("sealverify tools digest fixtures/tools/tools.json"))
@click.argument("source", metavar="TOOLS.json|TRANSCRIPT|-")
@click.option(
    "--profile",
    "profile_name",
    type=_PROFILE,
    default="heldfast",
    show_default=True,
    help="Digest profile: heldfast (RFC 8785, heldfast-jcs-v2) or rugsnare (rugsnare-v1); "
    "the same default as tools compare. The profile id is printed beside every digest.",
)
@click.option(
    "--requests",
    type=click.Path(dir_okay=False),
    default=None,
    help="Client-to-server stream of the same stdio session (pairs responses with "
    "requests, checks cursors, records requested version and capabilities).",
)
@click.option(
    "--capture",
    "capture",
    type=click.Path(dir_okay=False),
    default=None,
    help="JSON file with capture members the bytes cannot show (observedAt, launch, "
    "versionHeader...); env values in it are never published.",
)
@click.option(
    "--placeholder",
    "placeholders",
    metavar="VALUE",
    multiple=True,
    help="A placeholder value the reader gave the server (repeatable); definitions "
    "quoting it are flagged. The value itself is never printed.",
)
@format_option(choices=("table", "json"))
@output_option
def digest(
    source: str,
    profile_name: str,
    requests: str | None,
    capture: str | None,
    placeholders: tuple[str, ...],
    fmt: str,
    output: Path | None,
) -> int:
    """Digest every tool of a tools/list result or a captured stdio transcript.

    The profile id is printed beside every digest, and the capture block beside them. Exit 0
    when every tool was digested over a complete list with nothing flagged, 1 otherwise, 2 when
    the input cannot be read.
    """
    profile = PROFILES[profile_name]
    listing, block, findings = _read(source, requests, capture)
    home = block.get("launch", {}).get("home")
    # Flat memory: each tool's subject is rendered and spooled as it is digested.
    spool = SubjectSpool(fmt, "tools digest", layout="rows")
    unfinished = False  # a subject with a failing or not-evaluated check
    digests = []
    for location, tool in listing.tools:
        d = digest_tool(tool, profile, location)
        digests.append(d)
        checks: list[Check] = []
        if d.digest is None:
            checks.append(unevaluated(d))
        else:
            checks.append(
                passed("tools.digest.computed", f"{profile.id} digest computed", location)
            )
        for where in reader_environment(tool, home, placeholders):
            checks.append(
                fail(
                    "tools.capture.reader-environment",
                    "the definition quotes the reader's home directory or a placeholder value "
                    "(capture rule 4); this digest identifies the reader",
                    location + where,
                )
            )
        facts: dict[str, Any] = {"profile": profile.id, "digest": d.digest, "capture": block}
        facts.update(d.extra)
        unfinished = unfinished or any(c.status in ("fail", "not-evaluated") for c in checks)
        spool.add(
            Subject(
                d.name,
                "digested" if d.digest else "not-evaluated",
                tuple(checks),
                facts,
                label=f"{profile.id} {d.digest or '-'}",
            )
        )
    set_digest = toolset_digest(digests, profile) if listing.pages else None
    set_id = f"{profile.id}+set-v1"
    set_checks = (
        passed("tools.set.computed", f"{set_id} over {len(digests)} tool(s)")
        if set_digest
        else fail(
            "tools.set.not-computed",
            "no tool-set digest: a tool has no digest, names repeat, or no listing was found",
        ),
    )
    unfinished = unfinished or not set_digest
    spool.add(
        Subject(
            "(tool set)",
            "digested" if set_digest else "not-evaluated",
            set_checks,
            {"profile": set_id, "digest": set_digest, "tools": len(digests), "capture": block},
            label=f"{set_id} {set_digest or '-'}",
        )
    )
    findings.append(info("tools.capture", "capture " + _compact(block)))
    findings.append(
        info(
            "tools.profile",
            f"{profile.id}: "
            + "; ".join(f"{k}: {v}" for k, v in profile.describe().items() if k != "id"),
        )
    )
    failed = any(c.status == "fail" for c in findings) or unfinished
    summary = {
        "profile": profile.id,
        "tools": len(digests),
        "digested": sum(1 for d in digests if d.digest),
        "toolset_digest": set_digest,
        "complete": block["pages"]["complete"],
        "pages": block["pages"]["read"],
    }
    report = Report(
        "tools digest",
        (),
        summary,
        1 if failed else 0,
        tuple(sorted(findings, key=lambda c: (c.id, c.location))),
    )
    with spool:
        write_result(spool.pieces(report), output)
    click.echo(
        f"sealverify tools digest: {summary['digested']}/{len(digests)} tool(s) under "
        f"{profile.id}, pages {block['pages']['read']} complete={block['pages']['complete']}",
        err=True,
    )
    return report.exit_code


@tools.command(
    "compare",
    epilog=examples(
        "sealverify tools compare fixtures/tools/tools.json fixtures/tools/tools-later.json"
    ),
)
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@click.option(
    "--profile",
    "profile_name",
    type=_PROFILE,
    default="heldfast",
    show_default=True,
    help="Profile whose digest decides drift (the same default as tools digest).",
)
@click.option(
    "--requests-a",
    type=click.Path(dir_okay=False),
    default=None,
    help="Client-to-server stream for transcript A.",
)
@click.option(
    "--requests-b",
    type=click.Path(dir_okay=False),
    default=None,
    help="Client-to-server stream for transcript B.",
)
@click.option(
    "--capture-a",
    type=click.Path(dir_okay=False),
    default=None,
    help="Declared capture members for A (else a `capture` member beside `tools`).",
)
@click.option(
    "--capture-b",
    type=click.Path(dir_okay=False),
    default=None,
    help="Declared capture members for B.",
)
@click.option(
    "--placeholder",
    "placeholders",
    metavar="VALUE",
    multiple=True,
    help="A placeholder value a reader used (repeatable); never printed.",
)
@format_option(choices=("table", "json"))
@output_option
def compare_cmd(
    a: str,
    b: str,
    profile_name: str,
    requests_a: str | None,
    requests_b: str | None,
    capture_a: str | None,
    capture_b: str | None,
    placeholders: tuple[str, ...],
    fmt: str,
    output: Path | None,
) -> int:
    """Compare two readings of a server's tools under the capture rules 1-4.

    Exit 0 when both lists are complete, their captures match and no tool drifted or was
    flagged; 1 for drift, a capture difference, an incomplete list or a flag; 2 when an input
    cannot be read.
    """
    profile = PROFILES[profile_name]
    listing_a, block_a, findings_a = _read(a, requests_a, capture_a)
    listing_b, block_b, findings_b = _read(b, requests_b, capture_b)
    preamble = (
        *(
            Check(c.id, c.status, f"reading {side}: {c.reason}", f"{side}:{c.location}", c.data)
            for side, fs in (("A", findings_a), ("B", findings_b))
            for c in fs
        ),
        info("tools.capture", f"A {_compact(block_a)}", "A"),
        info("tools.capture", f"B {_compact(block_b)}", "B"),
    )
    report = compare(
        Reading("A", listing_a.tools, block_a),
        Reading("B", listing_b.tools, block_b),
        profile,
        placeholders,
        preamble,
    )
    s = report.summary
    emit(
        report,
        fmt,
        output,
        f"sealverify tools compare: {s['state']} under {profile.id} (added {s['added']}, "
        f"removed {s['removed']}, changed {s['changed']}, unchanged {s['unchanged']})",
    )
    return report.exit_code


COMMANDS = [tools]
