"""Layer 5, receipts: families, bindings by artifact, the spine, outcomes, verify, discovery."""
