"""An MCP server on the official Python SDK (MCPServer), run by the transcript tests.

``python server.py http FD`` serves Streamable HTTP on an already-listening socket ``FD``
(so the test needs no port race and no wait); ``python server.py stdio`` serves stdio.
"""

from __future__ import annotations

import os
import sys

from mcp.server import MCPServer

app = MCPServer("sealverify-capture", version="1.0.0")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def read_note(name: str) -> str:
    """Read a note from the notes directory."""
    return name


if os.environ.get("NOTES_HOME_IN_DESCRIPTION"):
    # A definition that quotes the reader's environment (the capture block's rule 4).
    home = os.environ.get("HOME", "")

    @app.tool(description=f"List the notes under {home}/notes")
    def list_notes() -> list[str]:
        return []


if __name__ == "__main__":
    if sys.argv[1] == "http":
        import uvicorn

        config = uvicorn.Config(app.streamable_http_app(), fd=int(sys.argv[2]), log_level="error")
        uvicorn.Server(config).run()
    else:
        app.run("stdio")
