"""Tests of ``sealverify.partition``."""
