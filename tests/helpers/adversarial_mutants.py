"""Every single-member lie one can tell in a receipt: change, remove or add, at every depth.

A mutant changes one place of a parsed receipt: a value (a string edited, a number moved, a
boolean flipped, null replaced, an array shortened or padded), a removed member, or an added
one. Strings that carry documents (the kernel output and its audit line, the signed policy
payload, Object A, the approval statement, the release frame) are decoded, changed inside
and encoded again by the producer's own byte rule, so the lie sits behind every signature
once the record is re-signed. Paths are normalized (array index ``*``, ``#`` steps into a
carried document) the way docs/claims.md writes its member pointers.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sealverify._internal.approvals import record as approvals
from sealverify._internal.wire import leanjson, serdejson
from sealverify._internal.wire.framing import raw_line
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonNumber,
    JsonValue,
    parse_bytes,
    parse_text,
)

Record = dict[str, JsonValue]
HEX = "0123456789abcdef"
ENUMS: dict[str, tuple[str, ...]] = {
    "/verdict": ("ALLOW", "BLOCK", "ERROR"),
    "/authorization": ("approval", "explicit_policy_allow"),
    "/release_status": ("PENDING", "UNKNOWN", "RELEASED", "NOT_APPLICABLE"),
    "/durability_class": ("asserted_local_fsync", "witnessed_external", "unknown"),
    "/approval/approval_identity/channel": ("file", "interactive", "ed25519"),
    "/certs/*/verdict": ("allow", "deny"),
    "/certs/*/kernel": ("safety", "temporal"),
    "/emitted_bytes#/route": ("forward", "block", "error", "passthrough"),
    "/emitted_bytes#/audit#/verdict": ("allow", "deny"),
    "/signature/domain": ("seal.object-b/v1", "seal.object-b/v2"),
    "/decision": ("ALLOW", "BLOCK", "INPUT_REQUIRED"),
}


@dataclass(frozen=True, slots=True)
class Codec:
    """How a string member carries a document: decode to a value, encode it back."""

    name: str
    decode: Callable[[str], JsonValue]
    encode: Callable[[JsonValue, str], str]  # (new value, old text) -> new text


def _frame_decode(text: str) -> JsonValue:
    return parse_bytes(raw_line(base64.b64decode(text, validate=True)))


def _frame_encode(value: JsonValue, old: str) -> str:
    frame = base64.b64decode(old, validate=True)
    terminator = frame[len(raw_line(frame)) :]
    body = serdejson.compact(value, exact=True).encode("utf-8") + terminator
    return base64.b64encode(body).decode("ascii")


def _statement_decode(text: str) -> JsonValue:
    return parse_bytes(base64.b64decode(text, validate=True))


def _statement_encode(value: JsonValue, old: str) -> str:
    return base64.b64encode(approvals.render(value)).decode("ascii")


LEAN = Codec("lean", parse_text, lambda value, old: leanjson.compress(value))
SERDE = Codec("serde", parse_text, lambda value, old: serdejson.compact(value, exact=True))
FRAME = Codec("frame", _frame_decode, _frame_encode)
STATEMENT = Codec("statement", _statement_decode, _statement_encode)
CARRIED: dict[str, Codec] = {
    "/emitted_bytes": LEAN,
    "/emitted_bytes#/audit": LEAN,
    "/signed_config/payload": SERDE,
    "/signed_artifacts/object_a": FRAME,
    "/signed_artifacts/approval_statement": STATEMENT,
    "/release_frame/base64": FRAME,
}

Step = tuple[str, str | int]  # ("key", name) | ("index", i) | ("carried", codec name)
CODECS = {codec.name: codec for codec in (LEAN, SERDE, FRAME, STATEMENT)}


@dataclass(frozen=True, slots=True)
class Mutant:
    """One lie: where (normalized and exact), how, and the changed record."""

    path: str  # normalized: "/certs/*/reason", "/emitted_bytes#/audit#/verdict"
    where: str  # exact: "/certs/0/reason"
    how: str  # "value", "remove", "add", "drop-item", "repeat-item"
    record: Record

    def describe(self) -> str:
        return f"{self.how} {self.where or '/'}"


def _norm(steps: list[Step]) -> tuple[str, str]:
    norm, exact = "", ""
    for kind, token in steps:
        if kind == "carried":
            norm += "#"
            exact += "#"
        elif kind == "index":
            norm += "/*"
            exact += f"/{token}"
        else:
            norm += f"/{token}"
            exact += f"/{token}"
    return norm, exact


def _edit_string(path: str, value: str) -> list[str]:
    if path in ENUMS:
        return [v for v in ENUMS[path] if v != value]
    if len(value) in (64, 128) and all(c in HEX for c in value):
        return [HEX[(HEX.index(value[0]) + 1) % 16] + value[1:]]
    return [value + "x"] if value else ["x"]


def _edits(path: str, value: JsonValue) -> list[JsonValue]:
    if isinstance(value, bool):
        return [not value]
    if value is None:
        return ["x"]
    if isinstance(value, str):
        return list(_edit_string(path, value))
    if isinstance(value, JsonNumber):
        as_int = value.as_int()
        if as_int is not None:
            return [JsonNumber(str(as_int + 1))]
        return [JsonNumber("0")]
    return []


def _replace(
    root: JsonValue, steps: list[Step], change: Callable[[JsonValue], JsonValue]
) -> JsonValue:
    """A copy of ``root`` with the value at ``steps`` replaced by ``change(value)``."""
    if not steps:
        return change(copy.deepcopy(root))
    kind, token = steps[0]
    rest = steps[1:]
    if kind == "carried":
        assert isinstance(root, str)
        codec = CODECS[str(token)]
        inner = _replace(codec.decode(root), rest, change)
        return codec.encode(inner, root)
    out = copy.copy(root)
    if isinstance(out, dict):
        out = dict(out)
        out[str(token)] = _replace(out[str(token)], rest, change)
    elif isinstance(out, list):
        out = list(out)
        out[int(token)] = _replace(out[int(token)], rest, change)
    return out


class _Removed(Exception):
    pass


def _remove(root: JsonValue, steps: list[Step]) -> JsonValue:
    """A copy of ``root`` without the member the last step names."""
    *parent, (_kind, token) = steps

    def drop(container: JsonValue) -> JsonValue:
        if isinstance(container, dict):
            return {k: v for k, v in container.items() if k != token}
        raise _Removed

    return _replace(root, parent, drop)


def mutants(record: Record) -> Iterator[Mutant]:
    """Every single-place mutant of ``record`` (parsed strictly, lexemes kept)."""
    yield from _walk(record, record, [])


def _make(how: str, steps: list[Step], build: Callable[[], JsonValue]) -> Mutant | None:
    # An encoding the producer's rule cannot write (the approval renderer refuses floats,
    # serde some number spellings) is no lie anyone can sign: skipped, not reported.
    try:
        changed = build()
    except (approvals.NotRenderable, serdejson.NumberNotRepresentable, _Removed):
        return None
    assert isinstance(changed, dict)
    path, where = _norm(steps)
    return Mutant(path, where, how, changed)


def _walk(root: Record, value: JsonValue, steps: list[Step]) -> Iterator[Mutant]:
    path, _ = _norm(steps)
    found: list[Mutant | None] = []
    for new in _edits(path, value):
        found.append(
            _make(
                "value", steps, lambda new=new: _replace(root, steps, lambda _: copy.deepcopy(new))
            )
        )
    if isinstance(value, dict):
        found.append(
            _make(
                "add",
                steps,
                lambda: _replace(root, steps, lambda old: {**old, "sealverify_mutant": "x"}),
            )
        )
    elif isinstance(value, list) and value:
        found.append(_make("drop-item", steps, lambda: _replace(root, steps, lambda old: old[:-1])))
        found.append(
            _make(
                "repeat-item",
                steps,
                lambda: _replace(root, steps, lambda old: [*old, copy.deepcopy(old[0])]),
            )
        )
    yield from (m for m in found if m is not None)
    if isinstance(value, dict):
        for name, item in value.items():
            child: list[Step] = [*steps, ("key", name)]
            removed = _make("remove", child, lambda child=child: _remove(root, child))
            if removed is not None:
                yield removed
            yield from _walk(root, item, child)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(root, item, [*steps, ("index", index)])
    elif isinstance(value, str) and path in CARRIED:
        codec = CARRIED[path]
        try:
            inner = codec.decode(value)
        except (JsonError, ValueError):
            return
        yield from _walk(root, inner, [*steps, ("carried", codec.name)])
