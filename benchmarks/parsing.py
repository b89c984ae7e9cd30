"""Benchmark section: parse time over growing hostile inputs, which must grow linearly."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import suppress

from sealverify._internal.mcp.frame import analyze_frame
from sealverify._internal.skills.identity import FrontmatterError, parse_frontmatter
from sealverify._internal.wire.framing import split_stdio
from sealverify._internal.wire.strictjson import JsonError, parse_bytes

__all__ = ["SHAPES", "section"]


def _too_deep_unterminated(n: int) -> bytes:
    # More brackets than the depth limit, then a string of escaped quotes that never closes.
    return b"[" * 65 + b'"' + b'\\"' * (n // 2)


def _unterminated(n: int) -> bytes:
    return b'{"a":"' + b'\\"' * (n // 2)


def _escaped_value(n: int) -> bytes:
    head = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":"'
    return head + b'\\"' * (n // 2) + b'"}}}'


def _deep(n: int) -> bytes:
    return b"[" * (n // 2) + b"]" * (n // 2)


def _members(n: int) -> bytes:
    return b"{" + b",".join(b'"k%d":[1,"\\u00e9"]' % i for i in range(n // 16)) + b"}"


def _frontmatter(n: int) -> bytes:
    return b"---\nname: demo\ndescription: '" + b"''" * (n // 2) + b"'\n---\n"


def _json(data: bytes) -> None:
    with suppress(JsonError):
        parse_bytes(data)


def _frame(data: bytes) -> None:
    for frame in split_stdio(data + b"\n"):
        analyze_frame(frame)


def _skill(data: bytes) -> None:
    with suppress(FrontmatterError):
        parse_frontmatter(data)


SHAPES: tuple[tuple[str, Callable[[int], bytes], Callable[[bytes], None]], ...] = (
    ('65 brackets, unterminated \\" string: parse', _too_deep_unterminated, _json),
    ('65 brackets, unterminated \\" string: frame', _too_deep_unterminated, _frame),
    ('unterminated \\" string in an object: parse', _unterminated, _json),
    ('tools/call, argument of \\" escapes: frame', _escaped_value, _frame),
    ("brackets nested n/2 deep: parse", _deep, _json),
    ("object of n/16 members: parse", _members, _json),
    ("SKILL.md, description of '' escapes: frontmatter", _frontmatter, _skill),
)
SIZES = (16 * 1024, 32 * 1024, 64 * 1024, 128 * 1024, 256 * 1024)


def _seconds(run: Callable[[bytes], None], data: bytes, repeat: int) -> float:
    best = float("inf")
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        run(data)
        best = min(best, time.perf_counter() - started)
    return best


def section(repeat: int = 3) -> list[str]:
    """Markdown lines: milliseconds per input size, and the growth per doubling (2x is linear)."""
    header = ["input shape", *(f"{size // 1024} KiB ms" for size in SIZES), "x per doubling"]
    lines = [
        f"(f) parse time over growing hostile inputs (fastest of {max(1, repeat)}); a linear "
        "parser takes about 2x per doubling, a quadratic one 4x",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" + "---:|" * (len(header) - 1),
    ]
    for label, build, run in SHAPES:
        times = [_seconds(run, build(size), repeat) for size in SIZES]
        growth = (times[-1] / max(times[0], 1e-9)) ** (1 / (len(SIZES) - 1))
        cells = [label, *(f"{t * 1000:.2f}" for t in times), f"{growth:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines
