"""Tests of ``sealverify.cli``."""
