"""Tests of ``sealverify.definitions``."""
