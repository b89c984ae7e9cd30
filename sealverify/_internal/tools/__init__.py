"""Layer 2, tools: tool-definition digests and drift, capture blocks, recorded transcripts."""
