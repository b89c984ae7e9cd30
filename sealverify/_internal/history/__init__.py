"""Layer 3, history: seal-host's audit chain and the state kept across runs."""
