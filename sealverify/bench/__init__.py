"""Layer 7, the benchmark: python -m sealverify.bench (see docs/performance.md)."""
