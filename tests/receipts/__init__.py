"""Tests of ``sealverify.receipts``."""
