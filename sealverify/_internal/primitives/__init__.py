"""Layer 2, seal's primitives: identities it binds, bytes it signs, Ed25519 keys and pins."""
