"""Tests of ``sealverify.wording``."""
