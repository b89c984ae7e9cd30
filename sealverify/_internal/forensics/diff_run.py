"""The ``diff`` report over two inputs: each side's server chosen, then compared.

``sealverify diff`` only reads A, B and the reply capture, calls :func:`diff_inputs`, and
writes the report: the library and the command give one answer, the choice of the server
each side is judged under included.
"""

from __future__ import annotations

from dataclasses import dataclass

from sealverify._internal.forensics.retry import input_required_reply
from sealverify._internal.forensics.sides import DiffInputError, Side, load_side
from sealverify._internal.forensics.verdict import diff_report
from sealverify._internal.mcp.frame import FrameOptions
from sealverify._internal.results.model import Report
from sealverify._internal.wire.framing import Source

__all__ = ["DiffInput", "DiffOptions", "diff_inputs"]

_DEFAULT = "default (empty)"


@dataclass(frozen=True, slots=True)
class DiffInput:
    """One side as read: its bytes (or a call that opens them) and the name the report gives it.

    ``data`` given as a call is opened afresh for each pass and read a block at a time, so
    the input is never held whole (``load_side``). ``index`` is its frame (or receipt line)
    index (None: the first tools/call), ``server`` its own server
    (``--server-a``/``--server-b``).
    """

    data: Source
    name: str
    index: int | None = None
    server: str | None = None


@dataclass(frozen=True, slots=True)
class DiffOptions:
    """What both sides are read under (``sealverify diff``'s options).

    ``server`` is ``kernel_config.server`` for both sides unless a side gives its own; a frame
    side given none is judged under the server of a receipt on the other side. ``reply`` is the
    server's output holding its reply to A (``reply_name`` names it in an error).
    """

    transport: str = "stdio"
    era: str = "auto"
    server: str | None = None
    unknown_keys: str = "refuse"
    reply: Source | None = None
    reply_name: str = "reply"


def _server(own: str | None, both: str | None, label: str) -> tuple[str, str]:
    """A side's server and where it came from: its own flag, then --server, then empty."""
    if own is not None:
        return own, f"--server-{label.lower()}"
    if both is not None:
        return both, "--server"
    return "", _DEFAULT


def _load(given: DiffInput, label: str, options: DiffOptions, chosen: str, from_: str) -> Side:
    return load_side(
        given.data,
        label,
        given.name,
        index=given.index,
        options=FrameOptions(era=options.era, server=chosen),
        transport=options.transport,
        server_from=from_,
        server_from_receipt=from_ in (_DEFAULT, "--server"),
    )


def _sides(a: DiffInput, b: DiffInput, options: DiffOptions) -> tuple[Side, Side]:
    given = {"A": a, "B": b}
    sides = {
        label: _load(side, label, options, *_server(side.server, options.server, label))
        for label, side in given.items()
    }
    # A frame given no server is judged under the server of a receipt on the other side:
    # "is this frame what that receipt decided?" is asked under the receipt's kernel_config.
    for mine, other in (("A", "B"), ("B", "A")):
        side, peer = sides[mine], sides[other]
        if (
            side.kind == "frame"
            and side.server_from == _DEFAULT
            and peer.kind == "receipt"
            and peer.server_from.startswith("kernel_config")
        ):
            from_ = f"{peer.label}'s {peer.server_from}"
            sides[mine] = _load(given[mine], mine, options, peer.server, from_)
    return sides["A"], sides["B"]


def diff_inputs(a: DiffInput, b: DiffInput, options: DiffOptions = DiffOptions()) -> Report:
    """The report ``sealverify diff`` writes for A and B: frames, receipts, or one of each.

    Exit 0 when both are the same invocation, 1 when the invocation differs (or cannot be
    shown equal). Raises :class:`~sealverify._internal.forensics.sides.DiffInputError` when an input
    holds nothing to compare, or ``options.reply`` no response to A's request.
    """
    side_a, side_b = _sides(a, b, options)
    reply = None
    if options.reply is not None:
        reply = input_required_reply(options.reply, side_a.request_id)
        if reply is None:
            raise DiffInputError(
                f"{options.reply_name}: no response to A's id {side_a.request_id!s}"
            )
    return diff_report(side_a, side_b, reply, unknown_keys=options.unknown_keys)
