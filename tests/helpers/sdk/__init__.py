"""Real MCP traffic for the tests: the official Python SDK's servers, and recorders."""
