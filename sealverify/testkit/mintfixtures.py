"""Regenerate the bundled ``fixtures/`` tree deterministically (``nox -s fixtures``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["GENERATORS", "main", "mint_frames"]


def _frame(meta: str, name: str, arguments: str, request_id: int = 1) -> bytes:
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{"_meta":{meta},'
        f'"name":"{name}","arguments":{arguments}}}}}\n'
    ).encode()


_ENVELOPE = (
    '"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientInfo":{"name":"sealverify-demo","version":"1.0"},'
    '"io.modelcontextprotocol/clientCapabilities":{}'
)


def mint_frames(root: Path) -> None:
    """Write example request frames: an admissible call, a trace-only variant, a refusal."""
    out = root / "frames"
    out.mkdir(parents=True, exist_ok=True)
    trace = '"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"'
    (out / "call.bin").write_bytes(
        _frame("{" + trace + "," + _ENVELOPE + "}", "search_notes", '{"query":"invoice 2291"}')
    )
    other = trace.replace("00f067aa0ba902b7", "9d7c5e3a1f0b2468")
    (out / "call-other-trace.bin").write_bytes(
        _frame("{" + other + "," + _ENVELOPE + "}", "search_notes", '{"query":"invoice 2291"}')
    )
    (out / "refused-meta-null.bin").write_bytes(
        _frame("null", "search_notes", '{"query":"invoice 2291"}')
    )


GENERATORS: list[Callable[[Path], None]] = [mint_frames]


def main(argv: list[str] | None = None) -> int:
    """Mint every fixture under the given root (default ``fixtures``)."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else "fixtures")
    for generate in GENERATORS:
        generate(root)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
