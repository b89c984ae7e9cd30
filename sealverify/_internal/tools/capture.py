"""The capture block: how a tool listing was read, published beside its digest."""

from __future__ import annotations

import json
from typing import Any

from sealverify._internal.results.model import Check, fail, info
from sealverify._internal.tools.digests import Listing, check_numbers, js_value
from sealverify._internal.wire.strictjson import JsonValue

__all__ = ["LAUNCH_MEMBERS", "build_capture", "declared_members", "sanitize_declared"]

# The capture-conditions proposal (§2) names exactly these members. Anything else a user declares
# is dropped (and said
# so), never carried into the published block.
_TOP = ("observedAt", "transport", "protocol", "pages", "clientCapabilities", "launch")
_PROTOCOL = ("requested", "negotiated", "versionHeader")
LAUNCH_MEMBERS = ("package", "resolvedVersion", "args", "envNames", "envValues", "network", "home")
_ENUMS = {"envValues": ("none", "placeholder", "real"), "network": ("none", "full")}
_TRANSPORTS = ("stdio", "streamable-http", "sse")


def declared_members(parsed: JsonValue) -> Any:
    """What :func:`sanitize_declared` reads of a parsed declared capture, as numbers in JS.

    As ``js_value(parsed)`` for it: a bad number anywhere raises the same ``Unrepresentable``,
    and only the members of the capture block are copied. A member it drops is named, its
    value never read, so it is not copied (a capture of many notes took twice its tree).
    """
    check_numbers(parsed)
    if not isinstance(parsed, dict):
        return parsed  # not an object (a finding), or null (no capture): nothing is read
    return {key: js_value(value) if key in _TOP else None for key, value in parsed.items()}


def _typed(key: str, value: Any) -> bool:
    if key in ("versionHeader", "complete"):
        return isinstance(value, bool)
    if key == "read":
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if key in ("args", "envNames", "clientCapabilities"):
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if key in _ENUMS:
        return value in _ENUMS[key]
    if key == "transport":
        return value in _TRANSPORTS
    return isinstance(value, str)


def sanitize_declared(declared: Any, where: str) -> tuple[dict[str, Any], list[Check]]:
    """Keep only the §2 members of a declared capture, each well typed; never keep env values.

    A declared ``launch.env`` object (name -> value) is reduced to its sorted names; its values
    are dropped and a finding says so. Unknown or mistyped members are dropped with a finding.
    """
    out: dict[str, Any] = {}
    findings: list[Check] = []
    if not isinstance(declared, dict):
        return out, [
            fail("capture.declared.invalid", "the declared capture is not an object", where)
        ]

    def drop(path: str, why: str) -> None:
        findings.append(info("capture.declared.dropped", f"{path} dropped: {why}", where))

    for key, value in declared.items():
        if key not in _TOP:
            drop(key, "not a member of the capture block")
        elif key == "protocol" or key == "pages":
            members = _PROTOCOL if key == "protocol" else ("read", "complete")
            if not isinstance(value, dict):
                drop(key, "not an object")
                continue
            kept: dict[str, Any] = {}
            for sub, subvalue in value.items():
                if sub in members and _typed(sub, subvalue):
                    kept[sub] = subvalue
                else:
                    drop(f"{key}.{sub}", "unknown member or wrong type")
            if kept:
                out[key] = kept
        elif key == "launch":
            if not isinstance(value, dict):
                drop(key, "not an object")
                continue
            launch: dict[str, Any] = {}
            for sub, subvalue in value.items():
                if sub == "env" and isinstance(subvalue, dict):
                    launch.setdefault("envNames", sorted(subvalue))
                    findings.append(
                        info(
                            "capture.env-values-withheld",
                            "launch.env values were given; only their names are published "
                            "(capture values are never published)",
                            where,
                        )
                    )
                elif sub in LAUNCH_MEMBERS and _typed(sub, subvalue):
                    launch[sub] = subvalue
                else:
                    drop(
                        f"launch.{sub}",
                        "unknown member or wrong type (envValues is "
                        "none|placeholder|real, network is none|full)",
                    )
            if launch:
                out["launch"] = launch
        elif _typed(key, value):
            out[key] = value
        else:
            drop(key, "wrong type")
    return out, findings


def build_capture(
    listing: Listing, declared: dict[str, Any] | None
) -> tuple[dict[str, Any], list[Check]]:
    """The capture block for one listing: what its bytes show, plus sanitized declared members.

    Members derived from the bytes (transport of a transcript, negotiated version, pages) win
    over declared ones; a disagreement is a finding. Members nobody knows are omitted.
    """
    block: dict[str, Any] = {}
    findings: list[Check] = []
    if declared is not None:
        block, findings = sanitize_declared(declared, "capture")
    derived_pages = {"read": len(listing.pages), "complete": listing.complete}
    if "pages" in block and block["pages"] != derived_pages:
        findings.append(
            fail(
                "capture.declared.conflict",
                f"declared pages {block['pages']} disagree with the pages read from the input "
                f"{derived_pages}; the input wins",
                "capture/pages",
            )
        )
    block["pages"] = derived_pages
    protocol = dict(block.get("protocol", {}))
    for key, value in (("requested", listing.requested), ("negotiated", listing.negotiated)):
        if value is None:
            continue
        if key in protocol and protocol[key] != value:
            findings.append(
                fail(
                    "capture.declared.conflict",
                    f"declared protocol.{key} {json.dumps(protocol[key])} disagrees with "
                    f"{json.dumps(value)} read from "
                    "the transcript; the transcript wins",
                    f"capture/protocol/{key}",
                )
            )
        protocol[key] = value
    if listing.version_header is not None:
        if "versionHeader" in protocol and protocol["versionHeader"] != listing.version_header:
            findings.append(
                fail(
                    "capture.declared.conflict",
                    f"declared protocol.versionHeader {json.dumps(protocol['versionHeader'])} "
                    f"disagrees with {json.dumps(listing.version_header)} read from the HTTP "
                    "transcript's request headers; the transcript wins",
                    "capture/protocol/versionHeader",
                )
            )
        protocol["versionHeader"] = listing.version_header
    if protocol:
        block["protocol"] = protocol
    if listing.transport is not None:
        if block.get("transport", listing.transport) != listing.transport:
            findings.append(
                fail(
                    "capture.declared.conflict",
                    f"declared transport {json.dumps(block['transport'])} but the input is a "
                    f"{listing.transport} transcript",
                    "capture/transport",
                )
            )
        block["transport"] = listing.transport
    if listing.client_capabilities is not None:
        block["clientCapabilities"] = listing.client_capabilities
    if listing.launch:
        launch = dict(block.get("launch", {}))
        for key, value in listing.launch.items():
            if key in launch and launch[key] != value:
                findings.append(
                    fail(
                        "capture.declared.conflict",
                        f"declared launch.{key} disagrees with the launch the transcript "
                        "recorded; the transcript wins",
                        f"capture/launch/{key}",
                    )
                )
            launch[key] = value
        block["launch"] = {k: launch[k] for k in LAUNCH_MEMBERS if k in launch}
    return {k: block[k] for k in _TOP if k in block}, findings
