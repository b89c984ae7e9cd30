"""Layer 2, seal evidence primitives: identities, Object B, release frames, signatures, trust."""

# The layer's fast paths, or their references under SEALVERIFY_REFERENCE=1 (fastpath.py).
from sealverify.seal import fast as fast
