"""Layer 6, the benchmark: python -m sealverify.bench (see docs/performance.md)."""
