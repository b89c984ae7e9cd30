"""Tests of ``sealverify.mcp``."""
