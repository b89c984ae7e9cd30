"""Layer 5, receipts: families, bindings by artifact, the spine, outcomes, verify, discovery."""

# The layer's fast paths, or their references under SEALVERIFY_REFERENCE=1 (fastpath.py).
from sealverify.receipts import fast as fast
