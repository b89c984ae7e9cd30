"""Layer 4, the ruling's surfaces: _meta partition records and attestations, wording rules."""

# The layer's fast paths, or their references under SEALVERIFY_REFERENCE=1 (fastpath.py).
from sealverify.ruling import fast as fast
