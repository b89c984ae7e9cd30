"""Tests of ``sealverify.catalogue``."""
