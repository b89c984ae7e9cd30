"""Tests of ``sealverify.history``."""
