"""Tests of ``sealverify._internal.approvals``."""
