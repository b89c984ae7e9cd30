"""The JSON report format: sorted keys, two-space indent, UTF-8, byte-stable."""

from __future__ import annotations

import json

from sealverify.report import Report

__all__ = ["render"]


def render(report: Report) -> str:
    """Serialize the report as documented in docs/report-format.md."""
    return json.dumps(report.to_dict(), sort_keys=True, indent=2, ensure_ascii=False) + "\n"
