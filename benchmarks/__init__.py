"""Layer 7, the benchmark: python -m benchmarks (see docs/performance.md)."""
