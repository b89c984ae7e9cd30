"""Tests of ``sealverify.approvals``."""
