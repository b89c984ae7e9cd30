"""Tests of ``sealverify._internal.follow``."""
