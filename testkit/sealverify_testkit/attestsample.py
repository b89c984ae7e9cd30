"""The ``attest/`` sample: a signing key with a public seed and a signed verification summary.

The summary is the one ``verify --attest-key`` writes, at a fixed time, for the two demo
receipts that verify (``tests/attest/test_attestation.py`` holds the two equal byte for byte), so
``attestation verify`` has a sample to check from the source tree. Ed25519 signatures are
deterministic, so minting again gives the same bytes. Needs the ``attest`` extra.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from sealverify._internal.kernel.profiles import KERNEL_PROFILES
from sealverify._version import __version__
from sealverify_testkit import keys

__all__ = [
    "SAMPLE_ARGS",
    "SAMPLE_EPOCH",
    "SAMPLE_RECEIPTS",
    "SAMPLE_TIME",
    "attest_key_pem",
    "mint_attest",
]

SAMPLE_RECEIPTS = ("verified-allow.receipt.json", "verified-block.receipt.json")
SAMPLE_EPOCH = 1786000060  # SOURCE_DATE_EPOCH of the sample, the demo approval's judging time
SAMPLE_TIME = "2026-08-06T07:07:40Z"
# The command that writes the same file from the repository root (with SAMPLE_EPOCH).
SAMPLE_ARGS = (
    "verify",
    *(f"fixtures/demo/receipts/{name}" for name in SAMPLE_RECEIPTS),
    "--trust",
    "fixtures/demo/trust.json",
    "--allow-published-keys",
    "--attest-key",
    "fixtures/attest/key.pem",
    "--attestation",
    "fixtures/attest/demo.intoto.jsonl",
)

_README = f"""\
# A signed verification summary

`key.pem` is the testkit's `ATTEST_KEY`, an Ed25519 key whose seed is public (the SHA-256 of
the text `sealverify-demo-attest-key`): anyone can sign with it, so **never trust it outside
these samples**; `attestation verify` names it a published key and accepts it only with
`--allow-published-keys`. `key.pub.pem` is its public key.

`demo.intoto.jsonl` is the signed verification summary (docs/attestation.md) of the two demo
receipts that verify, as this command writes it from the repository root:

```sh
SOURCE_DATE_EPOCH={SAMPLE_EPOCH} sealverify {" ".join(SAMPLE_ARGS[:3])} \\
  {" ".join(SAMPLE_ARGS[3:6])} \\
  {" ".join(SAMPLE_ARGS[6:])}
```
"""


def attest_key_pem() -> tuple[bytes, bytes]:
    """The sample key as unencrypted PKCS#8 PEM, and its public key as SubjectPublicKeyInfo."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    key = ed25519.Ed25519PrivateKey.from_private_bytes(keys.ATTEST_KEY.seed)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, public


def mint_attest(root: Path) -> None:
    """Write ``attest/``: the key pair, a README, and the summary of the demo's two receipts.

    Reads ``root/demo`` (minted before it): the receipts and the trust file it names.
    """
    from sealverify._internal.attest.envelope import sign_statements
    from sealverify._internal.attest.keys import signer
    from sealverify._internal.attest.statement import Digested, Run, run_statement, vsa_statement

    def digested(relative: str) -> Digested:
        data = (root / relative.removeprefix("fixtures/")).read_bytes()
        return Digested(relative, hashlib.sha256(data).hexdigest())

    paths = [f"fixtures/demo/receipts/{name}" for name in SAMPLE_RECEIPTS]
    counts = {"receipts": 2, "VERIFIED": 2, "REDUCED": 0, "UNPINNED": 0, "FAIL": 0}
    run = Run(
        command="verify",
        exit_code=0,
        rule="SEALVERIFY_VERIFIED_REDERIVED",
        subjects=tuple(map(digested, paths)),
        policy=digested("fixtures/demo/trust.json"),
        resource_uri=paths[0],
        time_verified=SAMPLE_TIME,
        version=__version__,
        profiles=tuple(p[:8] for p in sorted(KERNEL_PROFILES)),
        counts={**counts, "not_mediated": 0, "findings": 0},
        options={
            "paths": paths,
            "allow_published_keys": True,
            "rederive": True,
            "waive": [],
            "history": False,
            "format": "table",
        },
    )
    private, public = attest_key_pem()
    out = root / "attest"
    out.mkdir(parents=True, exist_ok=True)
    (out / "key.pem").write_bytes(private)
    (out / "key.pub.pem").write_bytes(public)
    (out / "README.md").write_bytes(_README.encode("utf-8"))
    statements = [vsa_statement(run), run_statement(run)]
    (out / "demo.intoto.jsonl").write_bytes(sign_statements(statements, signer(private, "key")))
