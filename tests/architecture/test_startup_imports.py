"""A verify run loads only what it uses: no TOML, catalogue, attestation or URL machinery unasked.

Start-up is paid by every run (a CI gate over one receipt pays nothing else), so what a run
does not use stays unloaded: the wording rules' TOML parser (only a rule file needs it), the
id catalogue (only SARIF), the partition attestation checker and its frame validator (only a
receipt that carries an attestation), and the URL library xml.sax.saxutils would bring.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECEIPT = ROOT / "fixtures" / "demo" / "receipts" / "verified-allow.receipt.json"
_UNUSED = (
    "tomllib",
    "sealverify._internal.catalogue",
    "sealverify._internal.partition.records",
    "sealverify._internal.mcp.frame",
    "urllib.request",
    "xml.sax.saxutils",
    # a signed summary's modules and securesystemslib: only --attest-key
    "sealverify._internal.attest",
    "securesystemslib",
    # fragments are spooled in memory up to a MiB: a temporary file only past it
    "tempfile",
    # the approval token judge: only --approvals
    "sealverify._internal.approvals.tokens",
    # history facts: only --state
    "sealverify._internal.history.facts",
    # sentence and paragraph cutting, the _meta key table: only a string a rule may hit
    "sealverify._internal.wording.paragraphs",
    "sealverify._internal.wording.sentences",
    "sealverify._internal.mcp.keytable",
    # decimal: only a number lexeme the wire guards judge
    "decimal",
    # the re-derivation of sessions that span inputs: only when a session does
    "sealverify._internal.receipts.spanning",
    # the outcome words of `sealverify explain`: not even SARIF reads them
    "sealverify._internal.catalogue.words",
)


def _loaded(fmt: str) -> set[str]:
    receipt = RECEIPT
    probe = (
        "import sys\n"
        "from sealverify._internal.cli.main import main\n"
        f"sys.argv = ['sealverify', 'verify', {str(receipt)!r}, '--format', {fmt!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('loaded:', *[name for name in {_UNUSED!r} if name in sys.modules])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=False
    )
    line = next(x for x in done.stdout.splitlines() if x.startswith("loaded:"))
    return set(line.split()[1:])


@pytest.mark.parametrize("fmt", ["table", "json", "junit"])
def test_a_verify_run_loads_nothing_it_does_not_use(fmt: str) -> None:
    assert _loaded(fmt) == set()


def test_a_sarif_run_loads_the_catalogue_for_its_rules() -> None:
    # The probe can see a module load: SARIF's rules come from the catalogue.
    loaded = _loaded("sarif")
    assert "sealverify._internal.catalogue" in loaded
    assert "sealverify._internal.catalogue.words" not in loaded
