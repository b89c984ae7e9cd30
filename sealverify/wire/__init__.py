"""Layer 1, wire bytes: strict JSON, the serde and Lean renderers, netstrings, framing, guards."""

# The layer's fast paths, or their references under SEALVERIFY_REFERENCE=1 (fastpath.py).
from sealverify.wire import fast as fast
