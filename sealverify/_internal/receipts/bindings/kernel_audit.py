"""Kernel-attested bytes: the audit payload in emitted_bytes, its certs, verdict and reason."""

from __future__ import annotations

from sealverify._internal.receipts.bindings.derived import (
    Derivations,
    Doc,
    pointer,
)
from sealverify._internal.receipts.bindings.request import (
    expected_request_hash,
)
from sealverify._internal.receipts.embedded import parse_embedded
from sealverify._internal.receipts.families import hex64
from sealverify._internal.results.model import Check, Compared, fail, fail_compared, passed
from sealverify._internal.wire import serdejson
from sealverify._internal.wire.strictjson import (
    JsonError,
    JsonValue,
)

__all__ = [
    "audit",
    "verdict_reason",
]


_VERDICT_MAP = {"allow": "ALLOW", "deny": "BLOCK"}


_ROUTE_MAP = {"forward": "ALLOW", "passthrough": "ALLOW", "block": "BLOCK", "error": "ERROR"}
_HOST_ROUTES = {"forward": "ALLOW", "block": "BLOCK"}


def _audit(doc: Doc) -> tuple[dict[str, JsonValue] | None, str | None, str | None]:
    emitted = doc.get("emitted_bytes")
    if not isinstance(emitted, str):
        return None, None, "emitted_bytes is missing"
    try:
        outer = parse_embedded(emitted)
        audit_text = outer.get("audit") if isinstance(outer, dict) else None
        if not isinstance(audit_text, str):
            return None, None, "emitted_bytes has no audit string"
        audit_value = parse_embedded(audit_text)
    except JsonError as exc:
        return None, None, f"emitted_bytes or its audit is not strict JSON: {exc}"
    if not isinstance(audit_value, dict):
        return None, None, "the audit in emitted_bytes is not an object"
    route = outer.get("route") if isinstance(outer, dict) else None
    return audit_value, route if isinstance(route, str) else None, None


def audit(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """``emitted_bytes.audit`` against the receipt: request hash, verdict, certs, tool, epoch."""
    if doc.get("bypass") is not False:
        return []
    audit_value, route, error = _audit(doc)
    if audit_value is None:
        return [fail("binding.audit-request-sha256", error or "no audit", pointer("emitted_bytes"))]
    return [
        _request_check(doc, derived, audit_value),
        _verdict_check(doc, audit_value, route),
        *_audit_certs(doc, audit_value),
        *_tool_epoch_checks(doc, audit_value),
    ]


def _request_check(
    doc: Doc, derived: Derivations | None, audit_value: dict[str, JsonValue]
) -> Check:
    """The kernel-attested ``audit.request_sha256`` is the receipt's request identity."""
    expected = expected_request_hash(doc, derived)
    attested = audit_value.get("request_sha256")
    if hex64(attested) and attested == expected:
        return passed(
            "binding.audit-request-sha256",
            "the kernel-attested audit.request_sha256 is the receipt's request",
            pointer("emitted_bytes"),
        )
    return fail_compared(
        "binding.audit-request-sha256",
        "audit.request_sha256 "
        + ("is missing" if attested is None else f"{attested!s}")
        + f" does not equal the receipt's request identity {expected}",
        pointer("emitted_bytes"),
        Compared(
            str(expected),
            str(attested),
            "the receipt's request identity",
            "audit.request_sha256 the kernel attested (emitted_bytes)",
        ),
    )


def _verdict_check(doc: Doc, audit_value: dict[str, JsonValue], route: str | None) -> Check:
    """The audit's verdict and route both map to the receipt's verdict."""
    verdict = doc.get("verdict")
    mapped = _VERDICT_MAP.get(str(audit_value.get("verdict")))
    # A host writes a receipt only for a forward or a block (seal-host@099be66
    # authorization_decision.rs refuses any other route); fleet receipts map every route.
    routes = _HOST_ROUTES if "record_type" in doc else _ROUTE_MAP
    routed = routes.get(route or "")
    if mapped == verdict and routed == verdict:
        return passed(
            "binding.audit-verdict",
            f"audit verdict and route map to {verdict}",
            pointer("verdict"),
        )
    return fail(
        "binding.audit-verdict",
        f"audit verdict {audit_value.get('verdict')!s} / route {route} do not "
        f"map to the receipt verdict {verdict!s}",
        pointer("verdict"),
    )


def _tool_epoch_checks(doc: Doc, audit_value: dict[str, JsonValue]) -> list[Check]:
    """``audit.tool`` is the receipt's tool and ``audit.epoch`` its kernel_config epoch."""
    checks: list[Check] = []
    tool = doc.get("tool")
    if isinstance(tool, str):
        if audit_value.get("tool") == tool:
            checks.append(
                passed("binding.audit-tool", "audit.tool is the receipt's tool", pointer("tool"))
            )
        else:
            checks.append(
                fail(
                    "binding.audit-tool",
                    "audit.tool differs from the receipt's tool",
                    pointer("tool"),
                )
            )
    config = doc.get("kernel_config")
    epoch = config.get("epoch") if isinstance(config, dict) else None
    if epoch is not None and "epoch" in audit_value:
        if audit_value["epoch"] == epoch:
            checks.append(
                passed(
                    "binding.audit-epoch",
                    "audit.epoch = kernel_config.epoch",
                    pointer("kernel_config", "epoch"),
                )
            )
        else:
            checks.append(
                fail(
                    "binding.audit-epoch",
                    "audit.epoch differs from kernel_config.epoch",
                    pointer("kernel_config", "epoch"),
                )
            )
    return checks


def _audit_certs(doc: Doc, audit_value: dict[str, JsonValue]) -> list[Check]:
    certs = doc.get("certs")
    if "request_parse_error" in doc:
        # seal-check auditConsistent: byte equality, member order included.
        same = _safe_compact(certs) == _safe_compact(audit_value.get("certs"))
        how = "byte-equal"
    else:
        # Compared as compact(identities.sort_keys(...)), which compact's sort_keys writes.
        same = _same_sorted(certs, audit_value.get("certs"))
        how = "equal (member order aside)"
    if same and certs is not None:
        return [
            passed(
                "binding.audit-certs",
                f"receipt certs are {how} to the audit certs",
                pointer("certs"),
            )
        ]
    return [
        fail(
            "binding.audit-certs",
            f"receipt certs are not {how} to the audit certs",
            pointer("certs"),
        )
    ]


def _same_sorted(left: JsonValue, right: JsonValue) -> bool:
    """``_safe_compact(left, sort_keys=True) == _safe_compact(right, sort_keys=True)``.

    Values equal as Python values (objects member order aside, numbers by lexeme, arrays in
    order) write the same sorted text, or both refuse the same number: only values that
    differ are rendered (tests/receipts/test_audit_certs_equal.py compares the two).
    """
    return left == right or _safe_compact(left, sort_keys=True) == _safe_compact(
        right, sort_keys=True
    )


def _safe_compact(value: JsonValue, *, sort_keys: bool = False) -> str | None:
    try:
        return serdejson.compact(value, sort_keys=sort_keys)
    except serdejson.NumberNotRepresentable:
        return None


def verdict_reason(doc: Doc, derived: Derivations | None = None) -> list[Check]:
    """``reason`` and ``deny_kernel`` follow from the certs and the verdict (host producer).

    seal-host ``authorization_decision.rs``: ALLOW is "every gating kernel allows" with no
    deny cert; BLOCK names the first deny cert as ``"<kernel> kernel: <cert reason>"`` and
    ``deny_kernel``, or "no kernel gated this call" with ``deny_kernel`` null. Upstream covers
    this only through replay; ERROR receipts are not checked.
    """
    verdict = doc.get("verdict")
    certs = doc.get("certs")
    if doc.get("bypass") is not False or verdict not in ("ALLOW", "BLOCK"):
        return []
    if not isinstance(certs, list):
        return []
    deny = next((c for c in certs if isinstance(c, dict) and c.get("verdict") == "deny"), None)
    if verdict == "ALLOW":
        expected: tuple[JsonValue, JsonValue] = ("every gating kernel allows", None)
        if deny is not None:
            return [
                fail("binding.verdict-reason", "an ALLOW carries a deny cert", pointer("certs"))
            ]
    elif deny is not None:
        kernel = deny.get("kernel")
        expected = (f"{kernel!s} kernel: {deny.get('reason')!s}", kernel)
    else:
        expected = ("no kernel gated this call", None)
    if (doc.get("reason"), doc.get("deny_kernel")) == expected:
        return [
            passed(
                "binding.verdict-reason",
                "reason and deny_kernel follow from the certs and the verdict",
                pointer("reason"),
            )
        ]
    return [
        fail(
            "binding.verdict-reason",
            f"reason/deny_kernel do not follow from the certs: expected {expected[0]!r} "
            f"and deny_kernel {expected[1]!s}",
            pointer("reason"),
        )
    ]
