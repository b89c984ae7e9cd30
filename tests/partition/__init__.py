"""Tests of ``sealverify._internal.partition``."""
