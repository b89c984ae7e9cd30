"""Tests of ``sealverify.wire``."""
