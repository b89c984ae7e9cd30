"""Tests of ``sealverify._internal.run``."""
