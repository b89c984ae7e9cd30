"""Tests of ``sealverify._internal.cli``."""
