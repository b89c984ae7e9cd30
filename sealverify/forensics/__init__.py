"""Forensic comparison of two frames or two receipts: bytes, identities, meaning, retry, verdict."""

from __future__ import annotations

from sealverify.forensics.changes import Change, json_diff
from sealverify.forensics.compare import IDENTITY_NAMES, byte_diff, identity_rows, meta_key_rows
from sealverify.forensics.integrity import receipt_drift, receipt_integrity
from sealverify.forensics.retry import input_required_reply, retry_view
from sealverify.forensics.sides import DiffInputError, Side, load_side
from sealverify.forensics.verdict import VERDICTS, diff_report

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
