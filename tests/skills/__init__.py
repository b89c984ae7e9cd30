"""Tests of ``sealverify._internal.skills``."""
