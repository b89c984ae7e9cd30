"""Tests of ``sealverify._internal.wording``."""
