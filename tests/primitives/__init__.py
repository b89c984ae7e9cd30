"""Tests of ``sealverify.primitives``."""
