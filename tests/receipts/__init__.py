"""Tests of ``sealverify._internal.receipts``."""
