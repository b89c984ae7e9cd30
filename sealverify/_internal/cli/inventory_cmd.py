"""``sealverify inventory``: the keys, kernel builds and sessions a set of receipts carries."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import click

from sealverify import Inventory, InventoryBuilder, trust_template
from sealverify._internal.cli.common import output_option, say, table_view, write_result
from sealverify._internal.cli.helptext import examples
from sealverify._internal.reports.formats.grid import ID, TEXT, View, grid_parts, wrap
from sealverify._internal.reports.visible import visible
from sealverify._internal.run.engine import LOG_SUFFIXES, expand
from sealverify._internal.run.reading import open_capped
from sealverify._internal.run.refused import InputRefused, SourceUnreadable
from sealverify.formats import listing

__all__ = ["COMMANDS", "inventory"]

_SIDE_SUFFIX = ".partition.json"  # a partition attestation beside a receipt (verify reads it)


def _read(paths: tuple[str, ...]) -> Inventory:
    builder = InventoryBuilder()
    for path, walked in expand(paths):
        if path.as_posix().endswith(_SIDE_SUFFIX):
            continue
        if path.suffix in LOG_SUFFIXES and isinstance(path, Path):  # a window at a time
            builder.add_log(open_capped(path, path.as_posix()), path.as_posix())
            continue
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise SourceUnreadable.of(path, exc) from None
        if path.suffix in LOG_SUFFIXES:  # an object-storage log, read whole
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


_ROLE_TITLES = {
    "config": "config signer (signed_config.pubkey)",
    "receipt": "Object B receipt key (signature.public_key)",
    "approver": "ed25519 approver key id (approval.approval_identity.key_id)",
    "attestation": "partition attestation signer (signature.public_key)",
}


class _Span(Protocol):
    """A signed-time range as the inventory gives it."""

    @property
    def first_ms(self) -> int: ...
    @property
    def last_ms(self) -> int: ...


def _span(span: _Span | None) -> str:
    """A signed-time range to the second, the date said once when both ends share it."""
    if span is None:
        return "no signed time"
    first, last = (_when(ms)[:19].replace("T", " ") for ms in (span.first_ms, span.last_ms))
    if first == last:
        return f"signed {first}"
    return f"signed {first} to {last[11:] if first[:10] == last[:10] else last}"


def _rows(
    rows: list[list[str]], kinds: tuple[str, ...], view: View
) -> tuple[list[str], list[list[str]]]:
    """A table's header lines and each row's lines, fitted (reports/formats/grid.py), indented.

    A key or digest is never cut: at a narrow width each row is stacked under it.
    """
    head, body = grid_parts(rows[0], [visible_row(r) for r in rows[1:]], kinds, _inner(view))
    return [f"  {line}\n" for line in head], [[f"  {line}\n" for line in b] for b in body]


def _inner(view: View) -> View:
    return View(max(view.columns - 2, 20), view.colour)


def visible_row(row: list[str]) -> list[str]:
    return [visible(cell) for cell in row]


def _notes(
    flags: tuple[str, ...], span: _Span | None, view: View, published: str | None = None
) -> list[str]:
    """The lines under an entry: when it was signed, and what it is flagged for."""
    named = [
        f"{flag} ({published})" if flag == "published" and published else flag for flag in flags
    ]
    out = [f"      {_span(span)}"]
    if named:
        out.append("      flagged: " + ", ".join(named))
    return [f"{line}\n" for text in out for line in wrap(text, view.columns, "        ")]


def _keys_section(found: Inventory, view: View) -> list[str]:
    out = ["\nkeys the receipts name, by role (seen, not verified)\n"]
    for role in found.roles_seen():
        keys = found.role_keys(role)
        out.append(
            f"{_ROLE_TITLES[role]}: {len(keys)} key(s) on {keys[0].role_receipts} receipt(s)\n"
        )
        head = [["key", "receipts", "families"]]
        rows = [[k.value, _share(k.receipts, k.role_receipts), ",".join(k.families)] for k in keys]
        lines, body = _rows(head + rows, (ID, TEXT, TEXT), view)
        out.extend(lines)
        for row_lines, key in zip(body, keys, strict=True):
            out.extend(row_lines)
            out.extend(_notes(key.flags, key.signed_time, view, key.published))
    if not found.keys:
        out.append("  none\n")
    if found.spine_receipts:
        out.append(
            f"  {found.spine_receipts} seal.spine/v1 receipt(s) name no signing key: pin the "
            "seal CLI's signer with --receipt-pubkey\n"
        )
    if found.malformed_keys:
        out.append(f"  {found.malformed_keys} key member(s) not 64 lowercase hex (not listed)\n")
    return out


def _builds_section(found: Inventory, view: View) -> list[str]:
    out = ["\nkernel builds\n"]
    if not found.builds:
        return [*out, "  none\n"]
    head = [["sha256", "receipts", "default pin", "re-derived"]]
    rows = [
        [
            b.sha256,
            _share(b.receipts, b.build_receipts),
            "yes" if b.always_pinned else "no",
            "yes" if b.modelled else "no",
        ]
        for b in found.builds
    ]
    lines, body = _rows(head + rows, (ID, TEXT, TEXT, TEXT), view)
    out.extend(lines)
    for row_lines, build in zip(body, found.builds, strict=True):
        out.extend(row_lines)
        out.extend(_notes(build.flags, build.signed_time, view))
    return out


def _legend(found: Inventory) -> list[str]:
    used = found.flags_seen()
    if not used:
        return []
    return [
        "\nflags (look twice before confirming; docs/inventory.md#flags)\n",
        *(f"  {flag}: {text}\n" for flag, text in used),
    ]


def _share(receipts: int, total: int) -> str:
    return f"{receipts} of {total} ({receipts * 100 // total if total else 0}%)"


def _table(found: Inventory, view: View) -> str:
    """The inventory for a person, every line within ``view``'s width."""
    out = [
        f"{found.receipts} receipt(s) read; {found.unreadable} unreadable, "
        f"{found.skipped} skipped (not receipts)\n"
    ]
    if found.unreadable_examples:
        out.append("  unreadable (sealverify verify says why): ")
        out.append(", ".join(found.unreadable_examples) + "\n")
    out.append("\nfamilies\n")
    families = [["family", "receipts"], *([f, str(n)] for f, n in found.families.items())]
    lines, body = _rows(families, (ID, ID), view)
    out.extend([*lines, *(line for row in body for line in row)])
    out.extend(_keys_section(found, view))
    out.extend(_builds_section(found, view))
    out.append(
        f"\nsessions: {found.sessions} ({found.receipts_in_sessions} receipt(s) name a session)\n"
    )
    if found.signed_time is None:
        out.append("signed time: none (only v3 and spine receipts carry a signed time)\n")
    else:
        first, last = found.signed_time
        out.append(
            f"signed time (claimed; verify checks it): {_when(first)} to {_when(last)} on "
            f"{found.timed_receipts} receipt(s)\n"
        )
    out.extend(_legend(found))
    text = "".join(out)
    return "".join(  # the prose lines wrapped, each under its own start
        "\n".join(wrap(line, view.columns, " " * (len(line) - len(line.lstrip()) + 2))) + "\n"
        for line in text.removesuffix("\n").split("\n")
    )


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
    'marked "confirmed": false: sealverify refuses it until you confirm each entry out of band; '
    "a flagged entry is written last and confirmed only by the first 8 hex digits of its key. "
    "Never overwrites a file.",
)
@output_option
def inventory(paths: tuple[str, ...], fmt: str, template: Path | None, output: Path | None) -> int:
    """List what receipts carry: keys, kernel builds, families, sessions, signed times.

    Keys by role (config signer, Object B receipt key, approver key id, partition attestation
    signer) and kernel builds: how many receipts name each, its share of its role's receipts,
    when those were signed, and flags for what is odd (published: its secret is public;
    minority, second-signer: another key signs most of the role's receipts; only-failing: every
    receipt naming it fails another check). Nothing is verified: a key is listed because a
    receipt names it. Use it to find what to confirm with the seal operator and pin
    (--trust-template writes a starting point, flagged entries last). PATH is read as verify
    reads it (files, directories, globs, JSONL logs). Exit 0, or 2 when no receipt could be
    read (or the run could not be done).
    """
    found = _read(paths)
    if not found.receipts and not found.unreadable:
        raise InputRefused("no receipts matched: " + " ".join(paths))
    text = listing(fmt, found.to_dict(), lambda: _table(found, table_view(output)))
    write_result([text], output)
    flagged = sum(1 for k in found.keys if k.flags) + sum(1 for b in found.builds if b.flags)
    if template is not None:
        template.write_bytes(trust_template(found, paths))
        say(
            f"trust template written to {template}: every entry is unconfirmed; sealverify "
            f"refuses it until you confirm each one ({flagged} flagged, written last: each is "
            "confirmed by the first 8 hex digits of its key or build; docs/trust.md)"
        )
    say(
        f"sealverify inventory: {found.receipts} receipt(s), {len(found.keys)} key(s), "
        f"{len(found.builds)} kernel build(s), {found.sessions} session(s); "
        f"{flagged} flagged"
    )
    return 0 if found.receipts else 2


COMMANDS = [inventory]
