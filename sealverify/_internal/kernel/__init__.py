"""A model of the seal kernel step, written from its Lean source, to re-derive decisions."""
