"""Tests of ``sealverify.follow``."""
