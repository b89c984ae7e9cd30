"""Tests of ``sealverify.reports``."""
