"""Test and fixture minting helpers: the project's own deterministic evidence generators."""
