"""A model of the seal kernel step, written from its Lean source, to re-derive decisions."""

# The layer's fast paths, or their references under SEALVERIFY_REFERENCE=1 (fastpath.py).
from sealverify.kernel import fast as fast
