"""Tests of ``sealverify._internal.tools``."""
