"""Layer 3, history: the audit chain, ApprovalRecord v2 tokens, state kept across runs."""
