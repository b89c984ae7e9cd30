"""Layer 1, reports: the one report model every command produces, and its output formats."""

# The layer's fast paths, or their references under SEALVERIFY_REFERENCE=1 (fastpath.py).
from sealverify.reports import fast as fast
