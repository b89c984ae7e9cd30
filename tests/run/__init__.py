"""Tests of ``sealverify.run``."""
