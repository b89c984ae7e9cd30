"""Record real MCP sessions with the official Python SDK into sealverify transcript files.

The HTTP recorder sits at the client's transport: it keeps the headers the SDK client sent
and the headers and body bytes the SDK server answered, exchange by exchange. The stdio
recorder launches the server through ``tee`` on both pipes, as a mediator would sit there.
"""

from __future__ import annotations

import base64
import os
import shlex
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

SERVER = Path(__file__).with_name("server.py")
HTTP_FORMAT = "sealverify._internal.mcp-http-transcript/v1"
STDIO_FORMAT = "sealverify._internal.mcp-stdio-transcript/v1"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class _Recording(httpx2.AsyncBaseTransport):
    def __init__(self, edit: Callable[[httpx2.Request], None] | None) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.edit = edit
        self.exchanges: list[dict[str, Any]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if self.edit is not None:
            self.edit(request)
        body = await request.aread()
        response = await self.inner.handle_async_request(request)
        data = await response.aread()
        self.exchanges.append(
            {
                "request": {
                    "method": request.method,
                    "url": str(request.url),
                    "headers": [[k.decode(), v.decode()] for k, v in request.headers.raw],
                    "body_base64": _b64(body),
                },
                "response": {
                    "status": response.status_code,
                    "headers": [[k.decode(), v.decode()] for k, v in response.headers.raw],
                    "body_base64": _b64(data),
                },
            }
        )
        return httpx2.Response(
            response.status_code, headers=response.headers, content=data, request=request
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


def record_http(mode: str, edit: Callable[[httpx2.Request], None] | None = None) -> dict[str, Any]:
    """Run the SDK's Streamable HTTP server on localhost, list its tools with the SDK client.

    ``mode`` is the client's ``mode`` (``2026-07-28``, ``legacy`` or ``auto``); ``edit`` may
    change each request before it is sent (to record a client that omits a header).
    """
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(listener.fileno())],
        pass_fds=[listener.fileno()],
        stderr=subprocess.DEVNULL,
    )
    recorder = _Recording(edit)
    endpoint = f"http://127.0.0.1:{port}/mcp"

    async def session() -> None:
        async with httpx2.AsyncClient(transport=recorder, timeout=30) as http:
            transport = streamable_http_client(endpoint, http_client=http)
            async with Client(transport, mode=mode) as client:  # type: ignore[arg-type]
                await client.list_tools()

    try:
        anyio.run(session)
    finally:
        server.terminate()
        server.wait(timeout=30)
        listener.close()
    return {"format": HTTP_FORMAT, "endpoint": endpoint, "exchanges": recorder.exchanges}


def record_stdio(mode: str, workdir: Path, env: dict[str, str]) -> dict[str, Any]:
    """Launch the SDK's stdio server through ``tee`` on both pipes and list its tools."""
    c2s, s2c = workdir / "c2s.bin", workdir / "s2c.bin"
    argv = [sys.executable, str(SERVER), "stdio"]
    pipeline = f"tee {shlex.quote(str(c2s))} | {shlex.join(argv)} | tee {shlex.quote(str(s2c))}"
    params = StdioServerParameters(command="sh", args=["-c", pipeline], env=env)

    async def session() -> None:
        async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
            await client.list_tools()

    anyio.run(session)
    return {
        "format": STDIO_FORMAT,
        "launch": {"command": argv[0], "args": argv[1:], "env": env},
        "c2s_base64": _b64(c2s.read_bytes()),
        "s2c_base64": _b64(s2c.read_bytes()),
    }


def base_env(home: Path) -> dict[str, str]:
    """A small launch environment: the real PATH, a reader HOME, one placeholder secret."""
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "EXAMPLE_API_KEY": "ph-1"}
