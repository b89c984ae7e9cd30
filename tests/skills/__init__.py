"""Tests of ``sealverify.skills``."""
