"""Receipt directories: the file name binds entry and request hash; identity is the operation.

seal-host@099be66 ``rust/src/authorization_decision.rs`` (``AuthorizationDecisionWriter``)
names each receipt ``receipt-<entry, 20 digits>-<hash>.json`` where the hash is
``canonical_request_sha256``, or ``request_sha256`` when the line did not parse. The entry
counter starts at 0 in every host process and skips a number whose exact name already exists
(a repeated request from an earlier process), so entry numbers repeat across sessions and a
skip within one session is explained only by such a name collision. ALLOW receipts are
rewritten in place and re-signed as ``release_status`` moves PENDING -> UNKNOWN -> RELEASED
(``rust/src/release.rs`` ``transition``), so a file's hash is not its identity; its
``operation_id`` is. Pure: callers pass names and bytes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sealverify._internal.results.model import Check, Status, fail, info, passed
from sealverify._internal.wire.spelling import HEX64
from sealverify._internal.wire.strictjson import JsonError, parse_bytes

_FAIL = Status.FAIL

__all__ = ["NAME_PATTERN", "ReceiptFile", "check_directory", "parse_name", "read_receipt_file"]

NAME_PATTERN = re.compile(rf"receipt-(\d{{20}})-({HEX64.pattern})\.json")
_TEMP_PATTERN = re.compile(r"\.receipt-\d+-\d{20}\.tmp")


def parse_name(name: str) -> tuple[int, str] | None:
    """``(entry, hash)`` from a host receipt file name, or None when it is not one."""
    match = NAME_PATTERN.fullmatch(name)
    return (int(match.group(1)), match.group(2)) if match else None


@dataclass(frozen=True, slots=True)
class ReceiptFile:
    """One receipt file: its name, the identities it claims and any reason it was unreadable."""

    name: str
    entry: int | None
    name_hash: str | None
    receipt_hash: str | None
    hash_field: str
    session: str | None
    operation_id: str | None
    release_status: str | None
    problem: str = ""


def read_receipt_file(name: str, data: bytes) -> ReceiptFile:
    """Read the naming identities of one receipt from its bytes (never raises on bad input)."""
    parsed = parse_name(name)
    entry, name_hash = parsed if parsed else (None, None)
    try:
        doc = parse_bytes(data)
    except JsonError as exc:
        return ReceiptFile(
            name, entry, name_hash, None, "", None, None, None, f"not strict JSON: {exc}"
        )
    if not isinstance(doc, dict):
        return ReceiptFile(name, entry, name_hash, None, "", None, None, None, "not a JSON object")
    field = "canonical_request_sha256" if "canonical_request_sha256" in doc else "request_sha256"
    value = doc.get(field)
    view = doc.get("effect_view")
    session = view.get("session") if isinstance(view, dict) else None
    op = doc.get("operation_id")
    status = doc.get("release_status")
    return ReceiptFile(
        name=name,
        entry=entry,
        name_hash=name_hash,
        receipt_hash=value if isinstance(value, str) else None,
        hash_field=field,
        session=session if isinstance(session, str) else None,
        operation_id=op if isinstance(op, str) else None,
        release_status=status if isinstance(status, str) else None,
    )


def _name_checks(item: ReceiptFile) -> list[Check]:
    if item.problem:
        return [fail("receiptdir.unreadable", f"receipt cannot be read: {item.problem}", item.name)]
    if item.entry is None:
        return [
            fail(
                "receiptdir.name",
                "name is not receipt-<20 digits>-<64 lowercase hex>.json",
                item.name,
            )
        ]
    if item.receipt_hash is None:
        return [
            fail(
                "receiptdir.name-hash",
                "the receipt has neither canonical_request_sha256 "
                "nor request_sha256 to bind its name to",
                item.name,
            )
        ]
    if item.receipt_hash != item.name_hash:
        return [
            fail(
                "receiptdir.name-hash",
                f"the name says {item.name_hash}, the receipt's "
                f"{item.hash_field} is {item.receipt_hash}",
                item.name,
            )
        ]
    return [
        passed(
            "receiptdir.name-hash",
            f"name binds entry {item.entry} and the receipt's {item.hash_field}",
            item.name,
        )
    ]


def check_directory(names: Sequence[str], receipts: Sequence[ReceiptFile]) -> list[Check]:
    """Check a receipt directory: names, entry sequence per session, operation uniqueness.

    ``names`` lists every file name in the directory (to spot leftover temp files and name
    collisions); ``receipts`` holds the read ``receipt-*.json`` files.
    """
    checks: list[Check] = []
    for name in sorted(names):
        if _TEMP_PATTERN.fullmatch(name):
            checks.append(
                info(
                    "receiptdir.leftover-temp",
                    "a receipt temp file was left behind: the host stopped while writing a receipt",
                    name,
                )
            )
    for item in receipts:
        checks.extend(_name_checks(item))
    named = [r for r in receipts if r.entry is not None and not r.problem]
    checks.extend(_sequence_checks(named))
    checks.extend(_operation_checks([r for r in receipts if not r.problem]))
    return checks


def _sequence_checks(named: Sequence[ReceiptFile]) -> list[Check]:
    checks: list[Check] = []
    by_entry_hash = {(r.entry, r.name_hash) for r in named}
    sessions: dict[str, list[ReceiptFile]] = {}
    for item in named:
        sessions.setdefault(item.session or "(no session)", []).append(item)
    for session, items in sorted(sessions.items()):
        items.sort(key=lambda r: (r.entry or 0, r.name))
        expected = 0
        seen: dict[int, str] = {}
        for item in items:
            entry = item.entry or 0
            if entry in seen:
                checks.append(
                    fail(
                        "receiptdir.duplicate-entry",
                        f"entry {entry} of session {session!r} is also named by {seen[entry]}",
                        item.name,
                    )
                )
                continue
            seen[entry] = item.name
            for skipped in range(expected, entry):
                if (skipped, item.name_hash) in by_entry_hash:
                    checks.append(
                        info(
                            "receiptdir.entry-skip",
                            f"entry {skipped} skipped: an earlier session's receipt for "
                            "the same request already held that name",
                            item.name,
                        )
                    )
                else:
                    checks.append(
                        fail(
                            "receiptdir.entry-gap",
                            f"session {session!r} has no receipt for entry {skipped}; "
                            "a receipt was removed",
                            item.name,
                            missing_entry=skipped,
                        )
                    )
            expected = entry + 1
        if len(sessions) > 1:
            checks.append(
                info(
                    "receiptdir.sessions",
                    f"session {session!r}: {len(items)} "
                    "receipt(s); entry numbers restart in every host process",
                )
            )
    if named and not any(c.status == _FAIL for c in checks):
        checks.append(
            passed(
                "receiptdir.entries",
                f"{len(named)} receipt name(s) form gap-free entry sequences per session",
            )
        )
    return checks


def _operation_checks(receipts: Sequence[ReceiptFile]) -> list[Check]:
    checks: list[Check] = []
    owners: dict[str, str] = {}
    for item in sorted(receipts, key=lambda r: r.name):
        op = item.operation_id
        if op is None:
            continue
        if not HEX64.fullmatch(op):
            checks.append(
                fail("receiptdir.operation-id", "operation_id is not 64 lowercase hex", item.name)
            )
            continue
        if op in owners:
            checks.append(
                fail(
                    "receiptdir.duplicate-operation",
                    f"operation_id {op} is also claimed by {owners[op]}; each "
                    "decision is one file, rewritten in place when re-signed",
                    item.name,
                )
            )
        else:
            owners[op] = item.name
    return checks
