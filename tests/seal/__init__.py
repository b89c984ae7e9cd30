"""Tests of ``sealverify.seal``."""
