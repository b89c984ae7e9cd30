"""W3C Trace Context (traceparent, tracestate) and W3C Baggage grammar checks for `_meta` values.

Grammars: w3c/trace-context ``spec/20-http_request_header_format.md`` (tracestate key grammar as
fixed by PR #584) and w3c/baggage ``baggage/HTTP_HEADER_FORMAT.md``. Each check returns ``None``
when the value is valid, or a short reason a person can act on. Leading and trailing optional
white space (SP, HTAB) is allowed as in an HTTP field value; the exact string is what a
receipt commits, so trimming never changes an identity.
"""

from __future__ import annotations

import re

__all__ = [
    "BAGGAGE_MAX_BYTES",
    "BAGGAGE_MAX_MEMBERS",
    "TRACESTATE_MAX_MEMBERS",
    "baggage_error",
    "traceparent_error",
    "tracestate_error",
]

TRACESTATE_MAX_MEMBERS = 32
BAGGAGE_MAX_BYTES = 8192
BAGGAGE_MAX_MEMBERS = 180  # the ABNF's 0*179 repetitions after the first member

_OWS = " \t"
_HEX2 = r"[0-9a-f]{2}"
_TRACEPARENT = re.compile(
    rf"(?P<version>{_HEX2})-(?P<trace>[0-9a-f]{{32}})-(?P<parent>[0-9a-f]{{16}})-(?P<flags>{_HEX2})"
    r"(?P<rest>.*)",
    re.DOTALL,
)
_TS_KEY = re.compile(r"[a-z0-9][a-z0-9_\-*/@]{0,255}")
_TS_VALUE = re.compile(r"[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]")
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_BAGGAGE_VALUE = re.compile(r"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*")
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def traceparent_error(value: str) -> str | None:
    """Check a traceparent value: lowercase hex, version not ``ff``, non-zero ids.

    Version ``00`` must end after the flags; a higher version may carry further fields after a
    ``-`` (the W3C forward-compatibility rule).
    """
    match = _TRACEPARENT.fullmatch(value.strip(_OWS))
    if match is None:
        return "not version-traceid-parentid-flags in lowercase hex (2-32-16-2 digits)"
    if match["version"] == "ff":
        return "version ff is forbidden"
    if match["trace"] == "0" * 32:
        return "trace-id is all zeros"
    if match["parent"] == "0" * 16:
        return "parent-id is all zeros"
    rest = match["rest"]
    if match["version"] == "00" and rest:
        return "version 00 has content after the trace-flags"
    if rest and not rest.startswith("-"):
        return "trace-flags must be followed by the end of the value or '-'"
    return None


def tracestate_error(value: str) -> str | None:
    """Check a tracestate list: at most 32 members, each ``key=value`` or empty."""
    members = value.split(",")
    non_empty = [m.strip(_OWS) for m in members if m.strip(_OWS)]
    if len(non_empty) > TRACESTATE_MAX_MEMBERS:
        return f"{len(non_empty)} list-members, over the maximum of {TRACESTATE_MAX_MEMBERS}"
    for member in non_empty:
        key, sep, item = member.partition("=")
        if not sep:
            return f"list-member {member[:40]!r} has no '='"
        if _TS_KEY.fullmatch(key) is None:
            return f"key {key[:40]!r} is not a tracestate key (lowercase, 1-256 chars)"
        if _TS_VALUE.fullmatch(item) is None:
            return f"value of {key[:40]!r} is not a tracestate value (1-256 printable, no ',' '=')"
    return None


def baggage_error(value: str) -> str | None:
    """Check a baggage list: tokens, baggage-octets, well-formed percent escapes, W3C limits."""
    size = len(value.encode("utf-8"))
    if size > BAGGAGE_MAX_BYTES:
        return f"{size} bytes, over the W3C limit of {BAGGAGE_MAX_BYTES}"
    members = value.split(",")
    if len(members) > BAGGAGE_MAX_MEMBERS:
        return f"{len(members)} list-members, over the grammar's maximum of {BAGGAGE_MAX_MEMBERS}"
    for member in members:
        fields = member.split(";")
        key, sep, item = fields[0].partition("=")
        if not sep:
            return f"list-member {fields[0].strip(_OWS)[:40]!r} has no '='"
        reason = _baggage_pair_error(key, item, required_value=True)
        if reason:
            return reason
        for prop in fields[1:]:
            prop_key, prop_sep, prop_value = prop.partition("=")
            reason = _baggage_pair_error(prop_key, prop_value, required_value=bool(prop_sep))
            if reason:
                return "property: " + reason
    return None


def _baggage_pair_error(key: str, item: str, *, required_value: bool) -> str | None:
    key = key.strip(_OWS)
    if _TOKEN.fullmatch(key) is None:
        return f"key {key[:40]!r} is not an RFC 7230 token"
    if not required_value:
        return None
    item = item.strip(_OWS)
    if _BAGGAGE_VALUE.fullmatch(item) is None:
        return f"value of {key[:40]!r} has a character outside baggage-octet (percent-encode it)"
    if _BAD_PERCENT.search(item):
        return f"value of {key[:40]!r} has a '%' not followed by two hex digits"
    return None
