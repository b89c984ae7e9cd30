"""File names as reports show them: any name, the bytes that are not UTF-8 escaped as ``\\xHH``.

On POSIX a file name is bytes; Python hands one that is not UTF-8 over with each stray byte as a
lone surrogate (PEP 383 ``surrogateescape``), which no report can encode. A name enters a
report through :func:`report_name` only, so every format (json, jsonl, table, junit, html,
sarif) gets valid text; SARIF's URIs are percent-encoded from the original bytes
(:func:`uri_path`), as RFC 3986 section 2.1 has it.
"""

from __future__ import annotations

import os
import re
from urllib.parse import quote

__all__ = ["report_name", "uri_path"]

# backslashreplace writes a byte that is not UTF-8 as \x80..\xff, lowercase.
_ESCAPED_BYTE = re.compile(r"\\x([89a-f][0-9a-f])")


def report_name(name: str | os.PathLike[str]) -> str:
    """``name`` as text any report can hold: each byte that is not UTF-8 as ``\\xHH``.

    A name that is valid UTF-8 is returned unchanged (reports stay byte-stable). A lone
    surrogate that stands for no byte (possible on Windows) is written ``\\udXXX``.
    """
    text = os.fspath(name)
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("ascii", "strict")
    return raw.decode("utf-8", "backslashreplace")


def uri_path(name: str, safe: str = "/:@#") -> str:
    """A report name as a URI path: percent-encoded from the file name's bytes.

    The ``\\xHH`` escapes :func:`report_name` made (a byte 0x80..0xFF, never valid UTF-8 text
    on its own) become that byte again, so ``r\\xff.json`` is ``r%FF.json``. Only where names
    are bytes (POSIX): a Windows name is text, and its ``\\`` separates folders.
    """
    if "\\x" not in name or os.sep != "/":
        return quote(name, safe=safe)
    parts: list[bytes] = []
    at = 0
    for match in _ESCAPED_BYTE.finditer(name):
        parts.append(name[at : match.start()].encode("utf-8"))
        parts.append(bytes([int(match.group(1), 16)]))
        at = match.end()
    parts.append(name[at:].encode("utf-8"))
    return quote(b"".join(parts), safe=safe)
