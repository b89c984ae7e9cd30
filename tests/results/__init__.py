"""Tests of ``sealverify.results``."""
