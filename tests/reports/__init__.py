"""Tests of ``sealverify._internal.reports``."""
