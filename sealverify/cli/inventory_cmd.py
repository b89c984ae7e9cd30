"""``sealverify inventory``: the keys, kernel builds and sessions a set of receipts carries."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import click

from sealverify import Inventory, InventoryBuilder, trust_template
from sealverify.cli.common import output_option, write_result
from sealverify.cli.helptext import examples
from sealverify.cli.verify_runner import LOG_SUFFIXES, expand

__all__ = ["COMMANDS", "inventory"]

_SIDE_SUFFIX = ".partition.json"  # a partition attestation beside a receipt (verify reads it)


def _read(paths: tuple[str, ...]) -> Inventory:
    builder = InventoryBuilder()
    for path, walked in expand(paths):
        if path.as_posix().endswith(_SIDE_SUFFIX):
            continue
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise click.UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
        if path.suffix in LOG_SUFFIXES:
            builder.add_log(data, path.as_posix())
            continue
        side = path.with_name(path.name + _SIDE_SUFFIX)
        try:
            attestation = side.read_bytes() if side.is_file() else None
        except OSError:
            attestation = None  # verify names the unreadable side file
        builder.add_file(data, path.as_posix(), attestation, walked)
    return builder.inventory()


def _when(ms: int) -> str:
    try:
        moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return f"{ms} ms"
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _table(found: Inventory) -> str:
    from tabulate import tabulate  # loaded only for the table format

    def table(rows: list[list[str]], head: list[str]) -> str:
        return tabulate(rows, head, tablefmt="plain", disable_numparse=True) + "\n"

    out = [
        f"{found.receipts} receipt(s) read; {found.unreadable} unreadable, "
        f"{found.skipped} skipped (not receipts)\n"
    ]
    if found.unreadable_examples:
        out.append("  unreadable (sealverify verify says why): ")
        out.append(", ".join(found.unreadable_examples) + "\n")
    out.append("\nfamilies\n")
    out.append(table([[f, str(n)] for f, n in found.families.items()], ["family", "receipts"]))
    out.append("\nkeys the receipts name (seen, not verified)\n")
    rows = [
        [
            key.role + (" (key id)" if key.is_key_id else ""),
            key.value,
            str(key.receipts),
            ",".join(key.families),
            f"PUBLISHED ({key.published})" if key.published else "",
        ]
        for key in found.keys
    ]
    out.append(
        table(rows, ["role", "key", "receipts", "families", "published"]) if rows else "  none\n"
    )
    if found.spine_receipts:
        out.append(
            f"  {found.spine_receipts} seal.spine/v1 receipt(s) name no signing key: pin the "
            "seal CLI's signer with --receipt-pubkey\n"
        )
    if found.malformed_keys:
        out.append(f"  {found.malformed_keys} key member(s) not 64 lowercase hex (not listed)\n")
    out.append("\nkernel builds\n")
    builds = [
        [
            b.sha256,
            str(b.receipts),
            "yes" if b.always_pinned else "no",
            "yes" if b.modelled else "no",
        ]
        for b in found.builds
    ]
    head = ["sha256", "receipts", "pinned by default", "decisions re-derived"]
    out.append(table(builds, head) if builds else "  none\n")
    out.append(
        f"\nsessions: {found.sessions} ({found.receipts_in_sessions} receipt(s) name a session)\n"
    )
    if found.signed_time is None:
        out.append("signed time: none (only v3 and spine receipts carry a signed time)\n")
    else:
        first, last = found.signed_time
        out.append(
            f"signed time: {_when(first)} to {_when(last)} over {found.timed_receipts} "
            "receipt(s), as claimed (verify checks the signatures)\n"
        )
    return "".join(out)


def _template_path(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """A template never overwrites a file: it may be the trust file already in use."""
    if value is not None and value.exists():
        raise click.BadParameter(
            f"{value} exists; give a new file name (a template never overwrites)"
        )
    if value is not None and not value.parent.is_dir():
        raise click.BadParameter(f"{value}: directory {value.parent} does not exist")
    return value


@click.command(
    epilog=examples(
        "sealverify inventory fixtures/demo/receipts",
        "sealverify inventory fixtures/demo/receipts --format json",
        "sealverify inventory fixtures/demo/receipts --trust-template trust-template.json",
    )
)
@click.argument("paths", metavar="PATH...", nargs=-1, required=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="Report format: table, json.",
)
@click.option(
    "--trust-template",
    "template",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    callback=_template_path,
    help="Also write a trust file of the keys and kernel builds seen, every entry "
    'marked "confirmed": false: sealverify refuses it until you confirm each entry out of band '
    "(published keys are marked). Never overwrites a file.",
)
@output_option
def inventory(paths: tuple[str, ...], fmt: str, template: Path | None, output: Path | None) -> int:
    """List what receipts carry: keys, kernel builds, families, sessions, signed times.

    For each key (config signer, Object B receipt key, approver key id, partition attestation
    signer) and kernel build: how many receipts name it, and whether it is a published key.
    Nothing is verified: a key is listed because a receipt names it. Use it to find what to
    confirm with the seal operator and pin (--trust-template writes a starting point). PATH is
    read as verify reads it (files, directories, globs, JSONL logs). Exit 0, or 2 when no
    receipt could be read (or the run could not be done).
    """
    found = _read(paths)
    if not found.receipts and not found.unreadable:
        raise click.UsageError("no receipts matched: " + " ".join(paths))
    if fmt == "json":
        text = json.dumps(found.to_dict(), indent=2, ensure_ascii=False) + "\n"
    else:
        text = _table(found)
    write_result([text], output)
    if template is not None:
        template.write_bytes(trust_template(found, paths))
        click.echo(
            f"trust template written to {template}: every entry is unconfirmed; sealverify "
            "refuses it until you confirm each one (docs/trust.md)",
            err=True,
        )
    click.echo(
        f"sealverify inventory: {found.receipts} receipt(s), {len(found.keys)} key(s), "
        f"{len(found.builds)} kernel build(s), {found.sessions} session(s)",
        err=True,
    )
    return 0 if found.receipts else 2


COMMANDS = [inventory]
