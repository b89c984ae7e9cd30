"""seal's release-frame byte rule: the forwarded frame with the operation id spliced in."""

from __future__ import annotations

from collections.abc import Callable

from sealverify.wire import strictjson

__all__ = ["splice_operation_id"]


def splice_operation_id(
    frame: bytes,
    operation_id: str,
    *,
    parse: Callable[[bytes], strictjson.JsonValue] = strictjson.parse_bytes,
) -> bytes:
    """seal-host ``release.rs`` ``frame_with_operation_id``: the release frame for a request.

    The terminator (``\\r\\n`` or ``\\n``) is split off, ``,"operation_id":"<id>"`` (no comma
    for an empty object) goes before the closing ``}``, and the terminator is put back.
    ValueError when the body is not an object or already carries ``operation_id``.
    ``parse`` is the strict parser (:func:`strictjson.parse_bytes`, or a cache of it: the body
    is only read).
    """
    terminator = b"\r\n" if frame.endswith(b"\r\n") else b"\n" if frame.endswith(b"\n") else b""
    body = frame[: len(frame) - len(terminator)]
    parsed = parse(body)
    if not isinstance(parsed, dict):
        raise ValueError("release frame body is not a JSON object")
    if "operation_id" in parsed:
        raise ValueError("request already carries operation_id")
    stripped = body.rstrip(b" \t\r\n")
    insert = (b"," if parsed else b"") + b'"operation_id":"' + operation_id.encode() + b'"'
    return stripped[:-1] + insert + body[len(stripped) - 1 :] + terminator
