"""Tests of ``sealverify._internal.mcp``."""
