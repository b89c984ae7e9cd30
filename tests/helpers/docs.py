"""Shared with other test modules by tests/architecture/test_docs.py."""

from __future__ import annotations

import re

from tests.conftest import ROOT

CALL = re.compile(
    r'(?:fail|passed|info|not_evaluated|Refusal|Check|_field_fail|_fail|_pass|_info)\(\s*f?"'
    r'([a-z][a-z0-9_\-]*(?:\.[a-z0-9_\-]+)+)"'
)


def emitted_ids() -> dict[str, str]:
    """Every literal check or finding id the code can emit, with a file that emits it."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "sealverify").rglob("*.py")):
        for match in CALL.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(match.group(1), path.name)
    return found
