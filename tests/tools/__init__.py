"""Tests of ``sealverify.tools``."""
