"""sealverify: an independent, offline verifier for seal MCP mediator evidence."""

__version__ = "0.1.0"
