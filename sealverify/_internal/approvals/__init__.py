"""Layer 3, approvals: ApprovalRecord v2 tokens, the approvals receipts consumed, the report."""
