"""Layer 1, wire bytes: strict JSON, the serde and Lean renderers, netstrings, framing, guards."""
