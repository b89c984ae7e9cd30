"""What changed between two JSON values, by JSON pointer, with number spellings told apart."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from sealverify._internal.wire import serdejson
from sealverify._internal.wire.spelling import (
    pointer_token as pointer_token,  # re-exported (verdict)
)
from sealverify._internal.wire.strictjson import (
    JsonNumber,
    JsonValue,
    display,
)

__all__ = [
    "Change",
    "json_diff",
]


SHOWN = 160


@dataclass(frozen=True, slots=True)
class Change:
    """One difference at a JSON pointer: added, removed, changed, member-order, number-spelling."""

    pointer: str
    change: str
    a: JsonValue = None
    b: JsonValue = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pointer": self.pointer, "change": self.change}
        if self.change in ("removed", "changed", "number-spelling"):
            out["a"] = _show(self.a)
        if self.change in ("added", "changed", "number-spelling"):
            out["b"] = _show(self.b)
        return out


def _show(value: JsonValue) -> str:
    """A bounded compact rendering of a value for the report (producer order kept)."""
    try:
        text = serdejson.compact(value)
    except (ValueError, OverflowError):
        text = display(value)  # a spelling serde refuses: show it as received
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def _numbers_equal(a: JsonNumber, b: JsonNumber) -> bool:
    try:
        return Decimal(a.lexeme) == Decimal(b.lexeme)
    except InvalidOperation:
        return False


def json_diff(a: JsonValue, b: JsonValue, pointer: str = "") -> list[Change]:
    """JSON-pointer differences from ``a`` to ``b``, sorted by pointer.

    Objects compare by member name; a changed order of the common members is its own
    ``member-order`` change at the object's pointer. Numbers with different spellings of one
    value are ``number-spelling``. Arrays compare by position.
    """
    out: list[Change] = []
    _diff(a, b, pointer, out)
    return sorted(out, key=lambda c: (c.pointer, c.change))


def _diff(a: JsonValue, b: JsonValue, pointer: str, out: list[Change]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a:
            child = f"{pointer}/{pointer_token(key)}"
            if key not in b:
                out.append(Change(child, "removed", a[key], None))
            else:
                _diff(a[key], b[key], child, out)
        out.extend(
            Change(f"{pointer}/{pointer_token(k)}", "added", None, b[k]) for k in b if k not in a
        )
        if [k for k in a if k in b] != [k for k in b if k in a]:
            out.append(Change(pointer, "member-order", None, None))
    elif isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            _diff(x, y, f"{pointer}/{i}", out)
        out.extend(Change(f"{pointer}/{i}", "removed", a[i], None) for i in range(len(b), len(a)))
        out.extend(Change(f"{pointer}/{i}", "added", None, b[i]) for i in range(len(a), len(b)))
    elif isinstance(a, JsonNumber) and isinstance(b, JsonNumber):
        if a.lexeme != b.lexeme:
            kind = "number-spelling" if _numbers_equal(a, b) else "changed"
            out.append(Change(pointer, kind, a, b))
    elif type(a) is not type(b) or a != b:
        out.append(Change(pointer, "changed", a, b))
