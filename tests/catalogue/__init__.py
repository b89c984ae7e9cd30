"""Tests of ``sealverify._internal.catalogue``."""
