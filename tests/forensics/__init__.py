"""Tests of ``sealverify.forensics``."""
