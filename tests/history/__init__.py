"""Tests of ``sealverify._internal.history``."""
