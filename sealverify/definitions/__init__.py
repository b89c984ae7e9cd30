"""Layer 2, definitions: tool-definition digests and drift, capture blocks, Agent Skills."""
