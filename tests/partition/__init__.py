"""Tests of ``sealverify.ruling``."""
