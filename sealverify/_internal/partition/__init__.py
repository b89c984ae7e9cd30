"""Layer 4, partition: _meta partition records and attestations (the meta-partition ruling)."""
