"""``sealverify attestation verify``: check a signed verification summary (docs/attestation.md)."""

from __future__ import annotations

from pathlib import Path

import click

from sealverify._internal.cli.attest_run import digest_file
from sealverify._internal.cli.common import (
    allow_published_keys_option,
    emit,
    format_option,
    output_option,
    read_input,
)
from sealverify._internal.cli.helptext import examples
from sealverify._internal.reports.filenames import report_name
from sealverify._internal.reports.formats import table

__all__ = ["COMMANDS", "attestation"]

_EXTRA_HINT = "attestation verify needs the attest extra: pip install 'sealverify[attest]'"
_EXAMPLE = (
    "sealverify attestation verify fixtures/attest/demo.intoto.jsonl \\\n"
    "      --pubkey fixtures/attest/key.pub.pem \\\n"
    "      --subject fixtures/demo/receipts/verified-allow.receipt.json \\\n"
    "      --policy fixtures/demo/trust.json --allow-published-keys"
)


@click.group(epilog=examples(_EXAMPLE))
def attestation() -> None:
    """Signed verification summaries (in-toto, SLSA VSA, DSSE) that verify --attestation writes.

    `attestation verify FILE --pubkey KEY` checks one: the signature, the Statement, the
    summary's result, each --subject file's digest and the --policy file's digest.
    """


@attestation.command("verify", epilog=examples(_EXAMPLE))
@click.argument("attestation_path", metavar="FILE")
@click.option(
    "--pubkey",
    "pubkey",
    required=True,
    metavar="KEY",
    help="The attesting public key: a PEM file (Ed25519 or ECDSA), or 64 hex digits of a raw "
    "Ed25519 key.",
)
@click.option(
    "--subject",
    "subjects",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="A file that must be a subject of the summary, matched by its sha256 (repeatable): "
    "the artifact you are about to deploy or rely on.",
)
@click.option(
    "--policy",
    "policy_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="TRUST",
    help="The trust file (or pins document) the summary must have been verified under, "
    "matched by its sha256.",
)
@allow_published_keys_option
@format_option()
@output_option
def verify_cmd(
    attestation_path: str,
    pubkey: str,
    subjects: tuple[Path, ...],
    policy_path: Path | None,
    allow_published_keys: bool,
    fmt: str,
    output: Path | None,
) -> int:
    """Check a signed verification summary: PASSED (exit 0) or FAILED (exit 1).

    FAILED when no signature verifies under --pubkey (another key, a changed payload or
    payload type), the payload is not an in-toto Statement with one SLSA verification summary,
    the summary says FAILED, a --subject file is not one of its subjects, or its policy
    digest is not that of --policy. A summary signed by a published key (sealverify explain
    authority.published-key) is UNPINNED (exit 3) unless --allow-published-keys. Exit 2 only
    when it could not run (an unreadable file or key, the attest extra missing).
    """
    try:
        from sealverify._internal.attest import keys
        from sealverify._internal.attest.check import attestation_verify_report
    except ImportError as exc:
        raise click.UsageError(f"{_EXTRA_HINT} ({exc})") from None
    key_path = Path(pubkey)
    key_text = read_input(pubkey) if key_path.is_file() else pubkey.encode("utf-8")
    key = keys.public_key(key_text, f"--pubkey {pubkey}")
    data = read_input(attestation_path)
    name = "-" if attestation_path == "-" else report_name(Path(attestation_path).name)
    report = attestation_verify_report(
        data,
        key,
        [digest_file(path) for path in subjects],
        digest_file(policy_path) if policy_path is not None else None,
        name=name,
        allow_published_keys=allow_published_keys,
    )
    outcome = report.subjects[0].outcome
    note = table.published_keys_note(report.summary)
    emit(report, fmt, output, f"sealverify attestation verify: {name} {outcome}{note}")
    return report.exit_code


COMMANDS = [attestation]
