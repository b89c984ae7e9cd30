"""Tests of ``sealverify._internal.forensics``."""
