"""Tests of ``sealverify.attest``."""
