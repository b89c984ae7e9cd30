"""seal's release-frame byte rule: the forwarded frame with the operation id spliced in."""

from __future__ import annotations

from collections.abc import Callable

from sealverify._internal.wire import strictjson

__all__ = ["splice_operation_id", "unsplice_operation_id"]


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


def unsplice_operation_id(
    release: bytes,
    operation_id: str,
    *,
    parse: Callable[[bytes], strictjson.JsonValue] = strictjson.parse_bytes,
) -> bytes | None:
    """The request a release frame was made from: the exact inverse of the splice, or None.

    ``,"operation_id":"<id>"`` (or ``"operation_id":"<id>"`` in an otherwise empty object)
    must sit right before the body's closing brace; the request is the frame without it,
    and only when splicing it again gives back exactly ``release`` (so nothing else in the
    frame differs, and the request itself carried no operation_id). ``parse`` reads the
    request's body for the splice (:func:`splice_operation_id`): a caller may keep its
    answer rather than parse the recovered line again.
    """
    terminator = b"\r\n" if release.endswith(b"\r\n") else b"\n" if release.endswith(b"\n") else b""
    body = release[: len(release) - len(terminator)]
    stripped = body.rstrip(b" \t\r\n")
    member = b'"operation_id":"' + operation_id.encode("utf-8") + b'"'
    if not stripped.endswith(member + b"}"):
        return None
    head = stripped[: -len(member) - 1]
    if head.endswith(b","):
        head = head[:-1]
    request = head + body[len(stripped) - 1 :] + terminator
    try:
        again = splice_operation_id(request, operation_id, parse=parse)
    except (ValueError, strictjson.JsonError):
        return None
    return request if again == release else None
