"""Layer 4, the ruling's surfaces: _meta partition records and attestations, wording rules."""
