"""Layer 3, MCP: request frames, _meta validation, the key table, W3C trace headers."""
