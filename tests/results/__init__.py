"""Tests of ``sealverify._internal.results``."""
