"""``binding.audit-certs``: the receipt's certs and the audit's, equal member order aside.

The binding compares the sorted compact texts of both; values equal as Python values are
taken as equal without rendering them. Hypothesis holds that shortcut to the rendered
comparison, and an attacker who re-signs a receipt with changed certs is still refused.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from sealverify_testkit import mint
from sealverify_testkit.mint import KERNEL_VALID_CONFIG

from sealverify._internal.receipts.bindings import kernel_audit
from sealverify._internal.receipts.verify import verify_receipt
from sealverify._internal.wire.strictjson import JsonNumber, JsonValue, parse_bytes

_LEXEMES = ["0", "-0", "1", "1.0", "1.00", "10e-1", "1e999", "-1e400", "2e2", "123456789012345"]
_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=4)
_SCALARS: st.SearchStrategy[Any] = (
    st.none() | st.booleans() | _TEXT | st.sampled_from(_LEXEMES).map(JsonNumber)
)
_VALUES: st.SearchStrategy[Any] = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)


def _rendered_same(left: JsonValue, right: JsonValue) -> bool:
    """The comparison as it was defined: both sorted compact texts (None: a refused number)."""
    sort = kernel_audit._safe_compact
    return sort(left, sort_keys=True) == sort(right, sort_keys=True)


def _reordered(value: Any) -> Any:
    """``value`` with every object's members in reverse order (the same value to Python)."""
    if isinstance(value, dict):
        return {key: _reordered(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(item) for item in value]
    return value


@given(_VALUES, _VALUES)
def test_the_shortcut_is_the_rendered_comparison(left: Any, right: Any) -> None:
    assert kernel_audit._same_sorted(left, right) == _rendered_same(left, right)


@given(_VALUES)
def test_equal_values_member_order_aside_render_the_same(value: Any) -> None:
    other = _reordered(value)
    assert other == value
    assert kernel_audit._same_sorted(value, other)
    assert _rendered_same(value, other)


def _certs_check(raw: bytes) -> tuple[str, str]:
    subject = verify_receipt(raw, "r")
    check = next(c for c in subject.checks if c.id == "binding.audit-certs")
    return str(check.status), check.reason


def test_certs_changed_and_resigned_are_refused() -> None:
    raw = next(iter(mint.mint_many(1, kernel_config=KERNEL_VALID_CONFIG, ruled_target=False)))
    assert _certs_check(raw) == (
        "pass",
        "receipt certs are equal (member order aside) to the audit certs",
    )
    doc = parse_bytes(raw)
    assert isinstance(doc, dict) and isinstance(doc["certs"], list)
    for index, cert in enumerate(doc["certs"]):
        assert isinstance(cert, dict)
        forged: dict[str, Any] = dict(doc)
        certs = [dict(c) if isinstance(c, dict) else c for c in doc["certs"]]
        certs[index] = {**cert, "reason": f"{cert['reason']!s} (edited)"}
        forged["certs"] = certs
        resigned = mint.resign_v3(forged, mint.RECEIPT_KEY, str(doc["signature"]["domain"]))  # type: ignore[index]
        status, reason = _certs_check(mint.render_pretty(resigned))
        assert (status, reason) == (
            "fail",
            "receipt certs are not equal (member order aside) to the audit certs",
        )
