"""The two sides of a comparison: a frame or a receipt, resolved from the bytes given."""

from __future__ import annotations

import json
from contextlib import closing
from dataclasses import dataclass, field, replace
from typing import Literal

from sealverify._internal.approvals.consumed import receipt_server
from sealverify._internal.forensics.inputs import frame_count, read_whole, whole_document
from sealverify._internal.forensics.integrity import (
    RECEIPT_LIMITS,
    decode_b64,
    receipt_integrity,
)
from sealverify._internal.mcp.frame import FrameAnalysis, FrameOptions, analyze_frame, iter_stream
from sealverify._internal.primitives import identities
from sealverify._internal.primitives.releaseframe import unsplice_operation_id
from sealverify._internal.results.model import Check
from sealverify._internal.wire.framing import FrameBytes, Source, frame_of, read_lines
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonValue,
    parse_bytes,
)
from sealverify.errors import InputError

__all__ = [
    "DiffInputError",
    "Side",
    "load_side",
]


RECEIPT_DISCRIMINATORS = ("record_type", "seal_receipt", "seal_live_receipt")


_AUTO = FrameOptions(era="auto")


class DiffInputError(InputError, ValueError):
    """An input cannot be used at all (empty, no such frame index): the CLI maps it to exit 2."""


@dataclass(frozen=True, slots=True)
class Side:
    """One input, resolved to the frame bytes and tools/call params that get compared."""

    label: str
    source: str
    kind: Literal["frame", "receipt"]
    frame: FrameBytes | None
    origin: str
    analysis: FrameAnalysis | None
    message: JsonValue
    params: dict[str, JsonValue] | None
    ids: identities.Identities | None
    receipt: dict[str, JsonValue] | None = field(default=None, repr=False)
    notes: tuple[str, ...] = ()
    integrity: tuple[Check, ...] = ()
    server: str = ""
    server_from: str = ""

    @property
    def request_id(self) -> JsonValue:
        return self.message.get("id") if isinstance(self.message, dict) else None


def _receipt_kind(value: JsonValue) -> bool:
    return isinstance(value, dict) and any(k in value for k in RECEIPT_DISCRIMINATORS)


def _frame_side(
    label: str,
    source: str,
    frame: FrameBytes,
    analysis: FrameAnalysis,
    origin: str,
    notes: list[str],
    options: FrameOptions,
    server_from: str,
) -> Side:
    message = analysis.message
    params = None
    if analysis.method == "tools/call" and isinstance(message, dict):
        raw = message.get("params")
        params = raw if isinstance(raw, dict) else None
    return Side(
        label,
        source,
        "frame",
        frame,
        origin,
        analysis,
        message,
        params,
        analysis.identities,
        None,
        tuple(notes),
        server=options.server,
        server_from=server_from,
    )


def _pick_frame(
    data: Source,
    label: str,
    source: str,
    index: int | None,
    options: FrameOptions,
    transport: str,
    server_from: str,
) -> Side:
    if transport == "http":
        frame = frame_of(read_whole(data), "http")
        analysis = analyze_frame(frame, options)
        return _frame_side(label, source, frame, analysis, "http body", [], options, server_from)
    notes: list[str] = []
    count = frame_count(data)  # the frames are read and analysed one at a time, never all held
    if index is not None and index >= count:
        raise DiffInputError(
            f"{source}: --index-{label.lower()} {index}: the input has {count} frame(s)"
        )
    first: FrameAnalysis | None = None
    chosen: tuple[int, FrameAnalysis] | None = None
    with closing(read_lines(data)) as frames:
        for position, result in enumerate(iter_stream(frames, options)):
            first = first or result
            if position == index or (index is None and result.method == "tools/call"):
                chosen = (position, result)
                break
    if chosen is None:  # no tools/call: the first frame (the era comes from frames before)
        if first is None:  # an input cut short between its readings: nothing to compare
            raise DiffInputError(f"{source}: empty input")
        chosen = (0, first)
    if index is None and count > 1:
        what = (
            "tools/call"
            if chosen[1].method == "tools/call"
            else ("frame (no tools/call in the input)")
        )
        notes.append(
            f"{source} holds {count} frames; compared the first {what}, "
            f"frame #{chosen[0]}; pass --index-{label.lower()} to choose another"
        )
    position, analysis = chosen
    return _frame_side(
        label, source, analysis.frame, analysis, f"frame #{position}", notes, options, server_from
    )


def _receipt_server(
    label: str,
    receipt: dict[str, JsonValue],
    options: FrameOptions,
    server_from: str,
    from_receipt: bool,
    notes: list[str],
) -> tuple[FrameOptions, str]:
    """The server a receipt side is judged under: its own kernel_config unless one was given."""
    found = receipt_server(receipt)
    if found is None:
        return options, server_from
    server, member = found
    if from_receipt:
        return replace(options, server=server), member
    if server != options.server:
        notes.append(
            f"the server given for {label} ({json.dumps(options.server)}) differs from the "
            f"receipt's {member} ({json.dumps(server)}); the given one is used"
        )
    return options, server_from


def _receipt_side(
    label: str,
    source: str,
    receipt: dict[str, JsonValue],
    options: FrameOptions,
    notes: list[str],
    server_from: str,
    from_receipt: bool,
) -> Side:
    options, server_from = _receipt_server(
        label, receipt, options, server_from, from_receipt, notes
    )
    artifacts = receipt.get("signed_artifacts")
    release = receipt.get("release_frame")
    frame_bytes: bytes | None = None
    origin = "receipt fields (no frame bytes in the receipt)"
    if isinstance(artifacts, dict) and "object_a" in artifacts:
        frame_bytes = decode_b64(artifacts["object_a"])
        origin = "signed_artifacts.object_a"
    elif isinstance(release, dict) and "base64" in release:
        spliced = decode_b64(release["base64"])
        op = receipt.get("operation_id")
        frame_bytes = spliced
        origin = "release_frame.base64 (as released, operation_id spliced in)"
        if spliced is not None and isinstance(op, str):
            plain = unsplice_operation_id(spliced, op)
            if plain is not None:
                frame_bytes = plain
                origin = "release_frame.base64 with the spliced operation_id member removed"
            else:
                notes.append(
                    "release_frame carries no removable operation_id member; compared as released"
                )
    unspliced = frame_bytes if origin.endswith("operation_id member removed") else None
    integrity = tuple(receipt_integrity(receipt, frame_bytes, unspliced))
    if frame_bytes is not None:
        frame = frame_of(frame_bytes, "stdio")
        analysis = analyze_frame(frame, replace(options, era="auto"))
        side = _frame_side(label, source, frame, analysis, origin, notes, options, server_from)
        return replace(side, kind="receipt", receipt=receipt, integrity=integrity)
    params: dict[str, JsonValue] | None = None
    ids = None
    if isinstance(receipt.get("tool"), str) and "arguments" in receipt:
        params = {"name": receipt["tool"], "arguments": receipt["arguments"]}
        for member in ("_meta", "requestState", "inputResponses"):
            if member in receipt:
                params[member] = receipt[member]
        try:
            ids = identities.compute(params, server=options.server)
        except (ValueError, TypeError):
            ids = None
        notes.append(
            "the receipt carries no frame bytes: its tool, arguments and any "
            "_meta/requestState/inputResponses are compared as tools/call params"
        )
    message: JsonValue = {"params": params} if params is not None else None
    return Side(
        label,
        source,
        "receipt",
        None,
        origin,
        None,
        message,
        params,
        ids,
        receipt,
        tuple(notes),
        integrity,
        server=options.server,
        server_from=server_from,
    )


def load_side(
    data: Source,
    label: str,
    source: str,
    *,
    index: int | None = None,
    options: FrameOptions = _AUTO,
    transport: str = "stdio",
    server_from: str = "default (empty)",
    server_from_receipt: bool = True,
) -> Side:
    """Resolve one input: a raw frame (or capture), a receipt, or a JSON-lines receipt file.

    ``data`` is the input's bytes, or a call that opens them (a reader with ``read(size)``,
    used as a context manager) afresh for each pass: it is read a block at a time, and what
    is held is the one receipt document, line or frame it is judged by, never the input.

    A receipt is a JSON object with one of the members ``record_type``, ``seal_receipt`` or
    ``seal_live_receipt``. Raises :class:`DiffInputError` when there is nothing to compare.

    ``options.server`` is seal's ``kernel_config.server`` for the guard targets and effect
    commitments; ``server_from`` says where it came from. A receipt side with a
    ``kernel_config`` is judged under its own server unless ``server_from_receipt`` is False
    (a server given for that side explicitly), and a differing given server is noted.
    """
    blank, document = whole_document(data, RECEIPT_LIMITS)
    if blank:
        raise DiffInputError(f"{source}: empty input")
    try:
        whole = parse_bytes(document, RECEIPT_LIMITS) if document is not None else None
    except JsonError:
        whole = None
    if isinstance(whole, dict) and _receipt_kind(whole):
        if index not in (None, 0):
            raise DiffInputError(f"{source}: holds one receipt; --index-{label.lower()} {index}")
        return _receipt_side(label, source, whole, options, [], server_from, server_from_receipt)
    if transport == "stdio":
        side = _receipt_line_side(data, label, source, index, options, server_from,
                                  server_from_receipt)  # fmt: skip
        if side is not None:
            return side
    return _pick_frame(data, label, source, index, options, transport, server_from)


def _receipt_line_side(
    data: Source,
    label: str,
    source: str,
    index: int | None,
    options: FrameOptions,
    server_from: str,
    server_from_receipt: bool,
) -> Side | None:
    """The receipt on the chosen line of a JSON-lines receipt file; None when not one.

    Only the first line decides and only the chosen one is parsed: the lines are read one at
    a time, never all held.
    """

    def parsed(line: FrameBytes) -> JsonValue:
        try:
            return parse_bytes(line.line, RECEIPT_LIMITS)
        except JsonError:
            return None

    with closing(read_lines(data)) as frames:
        lines = (f for f in frames if f.line.strip(b" \t"))
        first = next(lines, None)
        chosen = parsed(first) if first is not None else None
        if not _receipt_kind(chosen):
            return None
        count = 1
        for line in lines:
            if count == index:
                chosen = parsed(line)
            count += 1
    notes: list[str] = []
    if index is None:
        index = 0
        if count > 1:
            notes.append(
                f"{source} holds {count} lines; compared the first "
                f"receipt (line 0); pass --index-{label.lower()} to choose"
            )
    if index >= count:
        raise DiffInputError(
            f"{source}: --index-{label.lower()} {index}: the input has {count} line(s)"
        )
    if not isinstance(chosen, dict) or not _receipt_kind(chosen):
        raise DiffInputError(f"{source}: line {index} is not a receipt")
    return _receipt_side(label, source, chosen, options, notes, server_from, server_from_receipt)
