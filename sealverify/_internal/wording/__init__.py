"""Layer 4, wording: wording rules about _meta (meta-partition ruling §5) and the lint report."""
