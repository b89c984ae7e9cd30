"""Tests of ``sealverify._internal.primitives``."""
