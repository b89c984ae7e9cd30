"""Fuzz harnesses for sealverify's entry points (not shipped in the wheel; see docs/fuzzing.md)."""
