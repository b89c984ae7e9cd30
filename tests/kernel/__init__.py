"""Tests of ``sealverify._internal.kernel``."""
