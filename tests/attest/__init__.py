"""Tests of ``sealverify._internal.attest``."""
