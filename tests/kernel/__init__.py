"""Tests of ``sealverify.kernel``."""
