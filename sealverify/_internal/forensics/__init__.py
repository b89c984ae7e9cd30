"""Forensic comparison of two frames or two receipts: bytes, identities, meaning, retry, verdict."""

from __future__ import annotations

from sealverify._internal.forensics.changes import Change, json_diff
from sealverify._internal.forensics.compare import (
    IDENTITY_NAMES,
    byte_diff,
    identity_rows,
    meta_key_rows,
)
from sealverify._internal.forensics.integrity import receipt_drift, receipt_integrity
from sealverify._internal.forensics.retry import input_required_reply, retry_view
from sealverify._internal.forensics.sides import DiffInputError, Side, load_side
from sealverify._internal.forensics.verdict import VERDICTS, diff_report

__all__ = [
    "IDENTITY_NAMES",
    "VERDICTS",
    "Change",
    "DiffInputError",
    "Side",
    "byte_diff",
    "diff_report",
    "identity_rows",
    "input_required_reply",
    "json_diff",
    "load_side",
    "meta_key_rows",
    "receipt_drift",
    "receipt_integrity",
    "retry_view",
]
