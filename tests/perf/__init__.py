"""Performance paths and bounds: fast paths equal their references, memory stays flat."""
