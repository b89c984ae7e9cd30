"""Tests of ``sealverify._internal.wire``."""
