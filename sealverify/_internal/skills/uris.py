"""RFC 3986 syntax-based normalisation of a URI, and why a skill URI is not in normal form.

A host may compare or dereference URIs after normalising them (RFC 3986 §6.2.2; WHATWG URL
decodes ``%2e`` as ``.`` too), so a skill resource URI that changes under normalisation names
another file than the one its digest was listed for. Written here, small and pure, rather than
taken from ``urllib``, whose ``urljoin`` and ``unquote`` are lenient (no %-case rule, decode of
reserved characters) and differ between Python versions.
"""

from __future__ import annotations

import json
import re

__all__ = ["normalise", "remove_dot_segments", "uri_problem"]

# RFC 3986 Appendix B: the one regular expression that splits any URI reference.
_SPLIT = re.compile(r"^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?$", re.DOTALL)
_PCT = re.compile(r"%([0-9A-Fa-f]{2})")
_BAD_PCT = re.compile(r"%(?![0-9A-Fa-f]{2})")
# §2.3 unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~": the only octets whose percent-encoding
# is equivalent to the character itself, so the only ones §6.2.2.2 decodes.
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# Encoded "/", "\" and NUL: a segment that holds one becomes two segments, or a truncated name,
# in a host that decodes before it maps the path to files.
_SEPARATOR = re.compile(r"%(2[Ff]|5[Cc]|00)")


def remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4, step by step: the path with every ``.`` and ``..`` segment resolved."""
    rest = path
    out: list[str] = []
    while rest:
        if rest.startswith("../"):  # A
            rest = rest[3:]
        elif rest.startswith("./"):  # A
            rest = rest[2:]
        elif rest.startswith("/./") or rest == "/.":  # B
            rest = "/" + rest[3:]
        elif rest.startswith("/../") or rest == "/..":  # C
            rest = "/" + rest[4:]
            if out:
                out.pop()
        elif rest in (".", ".."):  # D
            rest = ""
        else:  # E: the first segment, with its leading "/" if any, moves to the output
            cut = rest.find("/", 1)
            cut = len(rest) if cut == -1 else cut
            out.append(rest[:cut])
            rest = rest[cut:]
    return "".join(out)


def _percent(text: str) -> str:
    """§6.2.2.1 and §6.2.2.2: decode unreserved octets, write the other triplets in uppercase."""

    def one(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()

    return _PCT.sub(one, text)


def _authority(authority: str) -> str:
    """The authority with its host in lowercase (§6.2.2.1); userinfo and port kept."""
    userinfo, at, hostport = authority.rpartition("@")
    if hostport.startswith("["):  # an IP literal: the port follows the closing bracket
        end = hostport.find("]") + 1
        host, port = (hostport[:end], hostport[end:]) if end else (hostport, "")
    else:
        host, colon, port = hostport.partition(":")
        port = colon + port
    return _percent(userinfo) + at + _percent(host.lower()) + port


def normalise(uri: str) -> str:
    """The RFC 3986 §6.2.2 syntax-based normal form of ``uri``.

    Lowercase scheme and host, percent-encodings of unreserved characters decoded and every
    other triplet's hex in uppercase, then dot segments removed from the path of a URI with a
    scheme or an authority (§5.2.4; a relative path has no base to resolve ``..`` against and
    is left as written). Scheme-based rules (§6.2.3, such as an empty path as ``/``) are not
    applied: they differ per scheme.
    """
    match = _SPLIT.match(uri)
    assert match is not None  # every string matches Appendix B's expression
    scheme, authority, path = match.group(2), match.group(4), _percent(match.group(5))
    query, fragment = match.group(7), match.group(9)
    out = ""
    if scheme is not None:
        out += scheme.lower() + ":"
    if authority is not None:
        out += "//" + _authority(authority)
    if scheme is not None or authority is not None:
        path = remove_dot_segments(path)
    out += path
    if query is not None:
        out += "?" + _percent(query)
    if fragment is not None:
        out += "#" + _percent(fragment)
    return out


def uri_problem(uri: str) -> str:
    """Why ``uri`` cannot name one file as written ("" when it can).

    A control character or backslash (RFC 3986 allows neither), a ``%`` not followed by two hex
    digits, a percent-encoded ``/``, ``\\`` or NUL (any case), or a literal form that differs
    from :func:`normalise`: a host that normalises would read another URI than the one listed.
    """
    if any(ch < " " or ch == "\x7f" or ch == "\\" for ch in uri):
        return "it holds a control character or a backslash, which RFC 3986 does not allow"
    if _BAD_PCT.search(uri):
        return "a '%' is not followed by two hex digits (RFC 3986 §2.1)"
    encoded = _SEPARATOR.search(uri)
    if encoded:
        return (
            f"it holds {encoded.group(0)}, a percent-encoded '/', '\\' or NUL, which a host "
            "that decodes the path reads as a separator or the end of the name"
        )
    normal = normalise(uri)
    if normal != uri:
        return f"its RFC 3986 normal form (§6.2.2) is {json.dumps(normal)}, not the URI as written"
    return ""
