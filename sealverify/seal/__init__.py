"""Layer 2, seal evidence primitives: identities, Object B, release frames, signatures, trust."""
